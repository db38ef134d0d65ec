import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The file in a data folder that names the process holding it. */
export const LOCK_FILE = 'pm-service.pid';

/** A data folder could not be held: another process has it. The message names that process and the file. */
export class FolderInUseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FolderInUseError';
  }
}

interface Holder {
  pid: number;
  host: string;
}

/** The folders this process holds: a second open of one of them here is refused as from another process. */
const held = new Set<string>();

/**
 * Holds `folder` for this process until the returned function is called (or the process exits), or throws a
 * `FolderInUseError`. The embedded PostgreSQL takes no lock of its own: two processes on one folder both start,
 * each writes its own view of the files, and one's acknowledged writes are lost or the folder is left unreadable.
 *
 * PostgreSQL's own rule for its data directory (`postmaster.pid`): a file created exclusively, holding the process
 * id and, here, the host. A file left by a process that is gone (`kill -9`, a crash, a power cut) is taken over:
 * on the same host, when no process has that id, or the id is this process's own or its parent's (a container
 * restarted gives its process the same small id). Never by age: an event loop held up by a long checkpoint would
 * look abandoned while its process still writes. A file from another host (a folder shared between machines or
 * containers) cannot be checked and is never taken over: the message says to remove it once that process is gone.
 * As in PostgreSQL, two processes that find the same abandoned file at the same instant may both take it over.
 */
export function holdFolder(folder: string): () => void {
  const path = join(folder, LOCK_FILE);
  const own: Holder = { pid: process.pid, host: hostname() };
  if (held.has(path)) throw new FolderInUseError(`in use by this process already (${path})`);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o644);
      try {
        writeSync(fd, `${JSON.stringify(own)}\n`);
      } finally {
        closeSync(fd);
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 10) throw error;
    }
    const holder = readHolder(path);
    if (holder === 'gone') continue;
    if (holder !== 'unreadable' && holder.host !== own.host) {
      throw new FolderInUseError(
        `in use by process ${holder.pid} on host ${holder.host} (${path}); remove that file if that process is gone`,
      );
    }
    if (holder === 'unreadable' || isRunning(holder.pid)) {
      // An unreadable file is one another process is writing this instant, or a damaged one: either way, not ours
      // to take. Saying so is safer than guessing.
      throw new FolderInUseError(
        holder === 'unreadable'
          ? `in use by another process, or left empty by one that stopped (${path}); remove that file if no ` +
              'process uses the folder'
          : `in use by process ${holder.pid} (${path}); one process at a time may open a data directory`,
      );
    }
    try {
      unlinkSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  held.add(path);
  const release = () => {
    if (!held.delete(path)) return;
    process.off('exit', release);
    const holder = readHolder(path);
    if (holder !== 'gone' && holder !== 'unreadable' && holder.pid === own.pid && holder.host === own.host) {
      try {
        unlinkSync(path);
      } catch {
        // Gone already, or the folder with it: nothing is left to release.
      }
    }
  };
  process.on('exit', release);
  return release;
}

/** Who the file names; `gone` when there is no file any more, `unreadable` when it does not name a process. */
function readHolder(path: string): Holder | 'gone' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<Holder>;
    if (Number.isSafeInteger(parsed.pid) && parsed.pid! > 0 && typeof parsed.host === 'string') {
      return { pid: parsed.pid!, host: parsed.host };
    }
  } catch {
    // Not JSON: below.
  }
  return 'unreadable';
}

/**
 * Whether a process other than this one and its parent runs with id `pid` on this host. One that has ended but not
 * yet been reaped by its parent (a zombie: `kill -9` under a supervisor that restarts first) runs no more.
 */
function isRunning(pid: number): boolean {
  if (pid === process.pid || pid === process.ppid) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** Whether `pid` has ended and waits for its parent (Linux's `/proc`; elsewhere, not known: no). */
function isZombie(pid: number): boolean {
  try {
    // The state follows the command's name, which is in parentheses and may itself hold spaces or ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}
