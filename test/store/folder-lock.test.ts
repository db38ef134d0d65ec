/**
 * A data folder is held by one process at a time (`holdFolder`, PostgreSQL's `postmaster.pid` rule): refused while
 * the process its file names runs, taken over once that process is gone, never taken from another host.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderInUseError, holdFolder, LOCK_FILE } from '../../src/store/sql/folder-lock.ts';

function folder(t: TestContext): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'pm-lock-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, file: join(dir, LOCK_FILE) };
}

const named = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { pid: number; host: string };

/** A process that runs until killed: what another instance of the service is, for the lock. */
async function otherProcess(t: TestContext) {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await once(child, 'spawn');
  t.after(() => child.kill('SIGKILL'));
  return child;
}

test('holding a folder writes this process into its file; a second hold is refused; release removes it', (t) => {
  const { dir, file } = folder(t);
  const release = holdFolder(dir);
  assert.deepEqual(named(file), { pid: process.pid, host: hostname() });
  assert.throws(() => holdFolder(dir), FolderInUseError);
  release();
  assert.equal(existsSync(file), false);
  release(); // twice: nothing more happens
  holdFolder(dir)();
});

test(
  'a folder whose file names a process that has ended but is not yet reaped (a zombie) is taken over',
  { skip: !existsSync('/proc/self/stat') && 'no /proc on this system' },
  async (t) => {
    const { dir, file } = folder(t);
    // The child ends only once its parent has become `sleep`, which never waits for it: it stays a zombie meanwhile.
    // (Ending earlier, it could be reaped by the shell before the exec.)
    const script = '(while [ "$(cat /proc/$$/comm)" != sleep ]; do sleep 0.01; done) & echo $!; exec sleep 30';
    const parent = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    t.after(() => parent.kill('SIGKILL'));
    const [out] = (await once(parent.stdout!, 'data')) as [Buffer];
    const pid = Number(out.toString().trim());
    for (let waited = 0; !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '); waited += 10) {
      assert.ok(waited < 5_000, 'the child became a zombie');
      await new Promise((r) => setTimeout(r, 10));
    }
    writeFileSync(file, `${JSON.stringify({ pid, host: hostname() })}\n`);
    const release = holdFolder(dir);
    assert.deepEqual(named(file), { pid: process.pid, host: hostname() });
    release();
  },
);

test('a folder whose file names a running process is refused, naming it; once that process is gone, taken over', async (t) => {
  const { dir, file } = folder(t);
  const other = await otherProcess(t);
  const theirs = `${JSON.stringify({ pid: other.pid, host: hostname() })}\n`;
  writeFileSync(file, theirs);
  assert.throws(
    () => holdFolder(dir),
    (error: Error) =>
      error instanceof FolderInUseError &&
      error.message.includes(`in use by process ${other.pid}`) &&
      /pid/.test(error.message),
  );
  assert.equal(readFileSync(file, 'utf8'), theirs, 'the holder keeps its file');

  // Killed without a chance to remove its file (kill -9): the file stays, and names a process that is gone.
  other.kill('SIGKILL');
  await once(other, 'exit');
  const release = holdFolder(dir);
  assert.deepEqual(named(file), { pid: process.pid, host: hostname() });
  release();
});

test("a file naming this process's own id (a restarted container's) is left from before and taken over", (t) => {
  const { dir, file } = folder(t);
  writeFileSync(file, JSON.stringify({ pid: process.pid, host: hostname() }));
  const release = holdFolder(dir);
  assert.deepEqual(named(file), { pid: process.pid, host: hostname() });
  release();
});

test('a file from another host is never taken over: refused, naming the host and what to do', (t) => {
  const { dir, file } = folder(t);
  const theirs = JSON.stringify({ pid: 999_999, host: `not-${hostname()}` });
  writeFileSync(file, theirs);
  assert.throws(
    () => holdFolder(dir),
    (error: Error) => error instanceof FolderInUseError && error.message.includes(`on host not-${hostname()}`),
  );
  assert.equal(readFileSync(file, 'utf8'), theirs);
});

test('an empty or unreadable file is refused (a holder writing it this instant), saying it may be removed', (t) => {
  const { dir, file } = folder(t);
  for (const text of ['', 'garbage', '{"pid":-42,"host":"x"}']) {
    writeFileSync(file, text);
    assert.throws(
      () => holdFolder(dir),
      (error: Error) =>
        error instanceof FolderInUseError && /remove that file if no process uses the folder/.test(error.message),
    );
    assert.equal(readFileSync(file, 'utf8'), text);
  }
});

test("release leaves a file that no longer names this process (someone else's since)", async (t) => {
  const { dir, file } = folder(t);
  const release = holdFolder(dir);
  const other = await otherProcess(t);
  const theirs = JSON.stringify({ pid: other.pid, host: hostname() });
  writeFileSync(file, theirs);
  release();
  assert.equal(readFileSync(file, 'utf8'), theirs);
});
