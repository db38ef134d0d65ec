/**
 * The comparison: for each route and each round, fresh servers (so one route's writes never swell another's reads,
 * and no process's luck counts twice: two processes of the same build can differ by 20 % for as long as they run,
 * as each one's JIT settles its own way), a warm-up each, then one measurement each, service, the service with
 * tokens and a rate limit, bare, json-server (reversed every other round). The medians are taken over the rounds,
 * that is over as many processes.
 */
import { measure, type LoadOptions, type Measurement, type Target } from './load.ts';
import { specs } from './fleet.ts';
import { summarize, type RouteResult, type Run } from './report.ts';
import type { Route, ServerName, Store } from './routes.ts';
import { QUIET, cpuWatch, start, stop, waitQuiet, type Running } from './servers.ts';

export interface CompareOptions {
  connections: number;
  seconds: number;
  warmup: number;
  rounds: number;
  servers: readonly ServerName[];
  /** Where the service keeps its data (default: memory, as users run it). */
  store?: Store;
  log: (line: string) => void;
}

export async function compareRoute(route: Route, o: CompareOptions): Promise<RouteResult> {
  const runs = new Map<ServerName, Run[]>(o.servers.map((s) => [s, []]));
  for (let round = 1; round <= o.rounds; round++) {
    const fleet = await specs(o.store, o.servers);
    const running = new Map<ServerName, Running>();
    try {
      for (const name of o.servers) running.set(name, await start(fleet.specs[name]!));
      if (route.prepare) {
        for (const [name, server] of running) {
          await prepare(server.url, route.prepare, name, route.targets[name].headers);
        }
      }
      const load: LoadOptions = { connections: o.connections, seconds: o.warmup };
      for (const [name, server] of running) if (o.warmup > 0) await measure(server.url, route.targets[name], load);
      // Servers in turn, the order reversed every other round: no server always goes first.
      const order = [...running];
      if (round % 2 === 0) order.reverse();
      for (const [name, server] of order) {
        const { m, cpu, others, db } = await quietMeasure(server, route.targets[name], o);
        runs.get(name)!.push({ ...m, cpu, others, ...(db === undefined ? {} : { db }) });
        const bad = m.non2xx + m.errors > 0 ? `  (${m.non2xx} non-2xx, ${m.errors} errors)` : '';
        const noisy = others >= QUIET ? `  [other processes used ${others.toFixed(2)} cores: noisy]` : '';
        o.log(
          `  ${route.name} · ${name.padEnd(11)} round ${round}: ${Math.round(m.rps)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, cpu ${cpu.toFixed(2)}${db === undefined ? '' : `, db ${db.toFixed(2)}`}${bad}${noisy}`,
        );
      }
    } finally {
      for (const server of running.values()) await stop(server);
      await fleet.cleanup();
    }
  }
  const servers: RouteResult['servers'] = {};
  for (const [name, r] of runs) servers[name] = summarize(r);
  return { name: route.name, write: route.write, servers };
}

/**
 * One measurement, taken again (once) when other processes took CPU meanwhile; the least disturbed one is
 * kept and its disturbance reported. Before each, up to 30 s of waiting for the machine to be quiet.
 */
export async function quietMeasure(
  server: Running,
  target: Target,
  o: {
    connections: number;
    seconds: number;
    log: (l: string) => void;
    store?: Store;
    /** Called before each measurement (one taken again included): to reset what the caller counts during it. */
    before?: () => void;
  },
) {
  let best: { m: Measurement; cpu: number; others: number; db?: number } | undefined;
  for (let attempt = 0; attempt < 2 && !(best && best.others < QUIET); attempt++) {
    await waitQuiet(30, o.log);
    o.before?.();
    const watch = cpuWatch(server.child.pid, o.store === 'postgres');
    const m = await measure(server.url, target, { connections: o.connections, seconds: o.seconds });
    const taken = { m, ...watch() };
    if (!best || taken.others < best.others) best = taken;
    if (taken.others >= QUIET)
      o.log(
        `  (other processes used ${taken.others.toFixed(2)} cores during the measurement: ${attempt < 1 ? 'again' : 'kept the quietest'})`,
      );
  }
  return best!;
}

/** Sends the route's preparation requests one by one (e.g. activity entries for the log to read). */
async function prepare(
  baseUrl: string,
  p: Target & { count: number },
  name: string,
  headers: Record<string, string> = {},
): Promise<void> {
  for (let n = 0; n < p.count; n++) {
    const res = await fetch(baseUrl + p.path, {
      method: p.method,
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(p.body?.(n) ?? {}),
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`preparing ${name}: ${p.method} ${p.path} answered ${res.status}`);
  }
}
