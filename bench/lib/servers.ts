/** Starting, pinning, watching and stopping the servers under test (child processes on 127.0.0.1). */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export const HOST = '127.0.0.1';

/** Whether `taskset` can pin processes to cores here. */
export const hasTaskset = spawnSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' }).status === 0;
const cores = (): number => Number(spawnSync('nproc', [], { encoding: 'utf8' }).stdout.trim()) || 1;

/** Pins this process (the load generator) to the last core, leaving core 0 to the server under test. */
export function pinSelf(): string {
  if (!hasTaskset || cores() < 2) return 'not pinned (taskset absent or one core)';
  const core = String(cores() - 1);
  spawnSync('taskset', ['-a', '-c', '-p', core, String(process.pid)], { stdio: 'ignore' });
  return `load generator on core ${core}, servers on core 0`;
}

export interface ServerSpec {
  name: string;
  /** Command and arguments (run under `taskset -c 0` when available). */
  argv: string[];
  env?: Record<string, string>;
  port: number;
  /** Path answered once the server is ready. */
  readyPath: string;
  /** Where stdout goes (default /dev/null). */
  logFile?: string;
}

/** Children still running, killed if the bench itself stops early (Ctrl-C, an error). */
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

export interface Running {
  spec: ServerSpec;
  child: ChildProcess;
  url: string;
  stderr: () => string;
}

export async function start(spec: ServerSpec): Promise<Running> {
  const [cmd, ...args] = hasTaskset ? ['taskset', '-c', '0', ...spec.argv] : spec.argv;
  const out = openSync(spec.logFile ?? '/dev/null', 'a');
  const child = spawn(cmd!, args, { env: { ...process.env, ...spec.env }, stdio: ['ignore', out, 'pipe'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-4000)));
  const url = `http://${HOST}:${spec.port}`;
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) throw new Error(`${spec.name} exited at start (${child.exitCode}): ${err}`);
    try {
      const res = await fetch(url + spec.readyPath);
      await res.arrayBuffer();
      if (res.ok) return { spec, child, url, stderr: () => err };
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`${spec.name} did not answer ${spec.readyPath} within 15 s: ${err}`);
}

/** SIGTERM, then SIGKILL after 5 s. */
export async function stop(server: Running): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** CPU seconds (user + system) a process has used so far; NaN where /proc is absent. */
export function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

/** Resident set size of a process in bytes; NaN where /proc is absent. */
export function rssBytes(pid: number | undefined): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** CPU seconds the whole machine has spent busy (every core, every process); NaN where /proc is absent. */
export function machineBusySeconds(): number {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = ticks as number[];
    return (user! + nice! + system! + irq! + softirq! + steal!) / 100;
  } catch {
    return NaN;
  }
}

/**
 * CPU seconds used so far by each of the PostgreSQL server's processes on this machine (those named `postgres`),
 * by pid: the database is part of the server under test in a `--store postgres` run, not a disturbance.
 */
export function postgresCpuSeconds(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes(' (postgres) ')) continue;
      const fields = stat.split(') ')[1]!.split(' ');
      byPid.set(Number(entry), (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // gone meanwhile
    }
  }
  return byPid;
}

/**
 * PostgreSQL's CPU seconds between two readings: what each process running at the end used since the first (all
 * of it for one started meanwhile). A process that ended meanwhile counts for nothing: subtracting all it had used
 * (an earlier server's connections closing during the measurement) made the database's share negative and the
 * other processes' seem to exceed the machine.
 */
function postgresCpuSince(before: ReadonlyMap<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of postgresCpuSeconds()) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/**
 * Watches one measurement: the server's CPU (share of one core) and what every other process on the machine
 * used meanwhile (`others`, in cores; this process and the server excluded), which spoils a benchmark on 2 cores.
 * With `database`, PostgreSQL's processes count as the server's (`db`, in cores), not as others.
 */
export function cpuWatch(
  pid: number | undefined,
  database = false,
): () => { cpu: number; others: number; db?: number } {
  const t0 = performance.now();
  const server0 = cpuSeconds(pid);
  const db0 = database ? postgresCpuSeconds() : new Map<number, number>();
  const all0 = machineBusySeconds();
  const self0 = process.cpuUsage();
  return () => {
    const wall = (performance.now() - t0) / 1000;
    const server = cpuSeconds(pid) - server0;
    const db = database ? postgresCpuSince(db0) : 0;
    const self = process.cpuUsage(self0);
    const others = machineBusySeconds() - all0 - server - db - (self.user + self.system) / 1e6;
    return { cpu: server / wall, others: Math.max(0, others / wall), ...(database ? { db: db / wall } : {}) };
  };
}

/** Below this many cores used by other processes, a measurement counts as undisturbed. */
export const QUIET = 0.15;

/**
 * Waits (up to `maxSeconds`) until the rest of the machine is quiet, measured over 1 s at a time.
 * Other sessions' test suites on a 2-core machine would otherwise take the cores the benchmark pins.
 */
export async function waitQuiet(maxSeconds: number, log: (line: string) => void): Promise<boolean> {
  for (let waited = 0; waited < maxSeconds; waited++) {
    const all0 = machineBusySeconds();
    const self0 = process.cpuUsage();
    await sleep(1000);
    const self = process.cpuUsage(self0);
    const others = machineBusySeconds() - all0 - (self.user + self.system) / 1e6;
    if (Number.isNaN(others) || others < QUIET) return true;
    if (waited % 15 === 0) log(`  (waiting for other processes to finish: they use ${others.toFixed(2)} cores)`);
  }
  return false;
}
