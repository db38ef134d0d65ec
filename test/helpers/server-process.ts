import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The command `npm start` runs (package.json), as node arguments: the service is started the same way whether
 * through npm or directly, on the node running the tests.
 */
function startArgs(): string[] {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const [node, ...args] = scripts.start.replace(/^exec /, '').split(/\s+/);
  if (node !== 'node') throw new Error(`npm start does not run node: ${scripts.start}`);
  return args;
}

export interface ServerProcess {
  /** The process started: node itself, or npm when started through `npm start`. */
  child: ChildProcess;
  baseUrl: string;
  /** Everything the process has written to stdout so far (JSON log lines). */
  output: () => string;
  /** Everything written to stderr so far. */
  errors: () => string;
  /** The exit code, or the signal that ended it. */
  exited: Promise<number | NodeJS.Signals | null>;
}

export interface StartOptions {
  /** Start through `npm start -- …`, as the README says and a process manager does, instead of node directly. */
  npm?: boolean;
  /** How long `startServer` waits for the service to listen (`runUntilExit`, for it to exit); default 20 s. */
  startTimeoutMs?: number;
}

/** The tests run the service with its nested-transaction check on (off by default for speed). */
const CHECKED = { CHECK_NESTED_TRANSACTIONS: 'true' };

/**
 * Spawns the service with `args`; does not wait. Through npm it gets a process group of its own, so that
 * {@link killAll} can end npm and the service under it at once.
 */
function spawnService(args: string[], env: Record<string, string>, { npm = false }: StartOptions = {}) {
  const child = npm
    ? spawn('npm', ['start', '--', ...args], {
        cwd: root,
        env: { ...process.env, CI: 'true', ...CHECKED, ...env },
        stdio: 'pipe',
        detached: true,
      })
    : spawn(process.execPath, [...startArgs(), ...args], {
        cwd: root,
        env: { ...process.env, ...CHECKED, ...env },
        stdio: 'pipe',
      });
  child.stdin!.end();
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | NodeJS.Signals | null);
  return { child, output: () => out, errors: () => err, exited };
}

/** Starts the service as a user does, on a free port (`args` may override it), and waits until it listens. */
export async function startServer(
  args: string[] = [],
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<ServerProcess> {
  const server = spawnService(['--port', '0', ...args], env, options);
  let exited = false;
  void server.exited.then(() => (exited = true));
  const deadline = Date.now() + (options.startTimeoutMs ?? 20_000);
  while (Date.now() < deadline && !exited) {
    const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output());
    if (match) return { ...server, baseUrl: match[1]! };
    await new Promise((r) => setTimeout(r, 50));
  }
  killAll(server.child);
  throw new Error(`server did not start:\n${server.output()}\n${server.errors()}`);
}

/** Runs the service with exactly `args` until it exits by itself (a start that fails): its exit code and output. */
export async function runUntilExit(args: string[], env: Record<string, string> = {}, options: StartOptions = {}) {
  const server = spawnService(args, env, options);
  const timer = setTimeout(() => killAll(server.child), options.startTimeoutMs ?? 20_000);
  const code = await server.exited;
  clearTimeout(timer);
  return { code, stdout: server.output(), stderr: server.errors() };
}

/** Kills the process at once, and everything in its process group when it has its own (started through npm). */
export function killAll(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
