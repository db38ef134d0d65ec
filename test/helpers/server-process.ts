import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Everything the process has written to stdout so far (JSON log lines). */
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts the service as a user does (`src/server.ts` through tsx) on a free port and waits until it listens. */
export async function startServer(args: string[] = [], env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts', '--port', '0', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = once(child, 'exit').then(([code]) => code as number | null);

  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
    if (match) return { child, baseUrl: match[1]!, output: () => out, exited };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start:\n${out}\n${err}`);
}
