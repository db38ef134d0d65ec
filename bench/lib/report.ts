/** The comparison table, the targets it is judged by, and the results file. */
import { cpus } from 'node:os';
import type { Measurement } from './load.ts';
import { median } from './load.ts';
import type { ServerName, Store } from './routes.ts';

export interface ServerResult {
  /** Medians over the rounds. */
  rps: number;
  p50: number;
  p99: number;
  /** CPU the server used during the measurement, as a share of one core (near 1: the server was the bottleneck). */
  cpu: number;
  /** Cores other processes on the machine used meanwhile (median); above ~0.1 the figures are disturbed. */
  others: number;
  /** Cores PostgreSQL used (median; `--store postgres` only). */
  db?: number;
  runs: Run[];
}

/** `db`: the cores PostgreSQL's processes used meanwhile (`--store postgres` only). */
export type Run = Measurement & { cpu: number; others: number; db?: number };

export interface RouteResult {
  name: string;
  write: boolean;
  servers: Partial<Record<ServerName, ServerResult>>;
}

export function summarize(runs: Run[]): ServerResult {
  return {
    rps: Math.round(median(runs.map((r) => r.rps))),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    cpu: round2(median(runs.map((r) => r.cpu))),
    others: round2(median(runs.map((r) => r.others))),
    ...(runs[0]?.db === undefined ? {} : { db: round2(median(runs.map((r) => r.db ?? NaN))) }),
    runs: runs.map((r) => ({
      ...r,
      rps: Math.round(r.rps),
      cpu: round2(r.cpu),
      others: round2(r.others),
      ...(r.db === undefined ? {} : { db: round2(r.db) }),
    })),
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The median of the round-by-round ratios of `a` to `b` (both measured in each round, one after the other): the
 * figure the targets are judged on. The machine's speed drifts from round to round, which moves the ratio of two
 * medians taken from different rounds; a round's own ratio is taken within seconds. NaN when either is missing.
 */
export function pairedRatio(a?: ServerResult, b?: ServerResult): number {
  if (!a || !b || a.runs.length !== b.runs.length) return NaN;
  return median(a.runs.map((run, i) => run.rps / b.runs[i]!.rps));
}

/** The ratio of the two medians, shown next to the paired one. */
const ratioOfMedians = (a?: ServerResult, b?: ServerResult) => (a && b ? a.rps / b.rps : NaN);

function cell(r: ServerResult | undefined): string {
  if (!r) return '—'.padStart(25);
  return `${String(r.rps).padStart(7)} ${fmt(r.p50).padStart(5)} ${fmt(r.p99).padStart(5)} ${r.cpu.toFixed(2).padStart(5)}`;
}
const fmt = (x: number) => (Number.isNaN(x) ? '—' : x >= 100 ? x.toFixed(0) : x.toFixed(1));

export function table(routes: readonly RouteResult[], store: Store = 'memory'): string {
  if (store === 'postgres') return pgTable(routes);
  const head = `${'route'.padEnd(32)}| ${'service'.padEnd(24)} | ${'bare node:http'.padEnd(24)} | ${'json-server 0.17'.padEnd(24)} | svc/bare         | svc/json         | ${'+ token, limit'.padEnd(24)} | token/svc`;
  const sub = `${''.padEnd(32)}| ${'  req/s   p50   p99   cpu'.padEnd(24)} | ${'  req/s   p50   p99   cpu'.padEnd(24)} | ${'  req/s   p50   p99   cpu'.padEnd(24)} | paired (medians) | paired (medians) | ${'  req/s   p50   p99   cpu'.padEnd(24)} | paired (medians)`;
  const both = (a?: ServerResult, b?: ServerResult) =>
    `${x(pairedRatio(a, b)).padStart(7)} (${x(ratioOfMedians(a, b))})`.padEnd(16);
  const lines = routes.map((r) => {
    const { service, bare } = r.servers;
    const json = r.servers['json-server'];
    const token = r.servers['service-token'];
    return `${r.name.padEnd(32)}| ${cell(service)} | ${cell(bare)} | ${cell(json)} | ${both(service, bare)} | ${both(service, json)} | ${cell(token)} | ${both(token, service)}`;
  });
  return [
    head,
    sub,
    '-'.repeat(head.length),
    ...lines,
    '',
    'req/s: median over rounds; p50/p99: latency in ms; cpu: share of one core the server used',
    '+ token, limit: the service with AUTH=token and RATE_LIMIT=1000000/1m, every request with the admin token',
    "ratios: paired = the median of each round's ratio; in brackets, the ratio of the medians",
  ].join('\n');
}
/** `--store postgres`: the service on PostgreSQL next to bare node:http + pg on the same data. */
function pgTable(routes: readonly RouteResult[]): string {
  const head = `${'route'.padEnd(32)}| ${'service (PostgreSQL)'.padEnd(30)} | ${'bare node:http + pg'.padEnd(30)} | svc/bare-pg`;
  const sub = `${''.padEnd(32)}| ${'  req/s   p50   p99   cpu    db'.padEnd(30)} | ${'  req/s   p50   p99   cpu    db'.padEnd(30)} | paired (medians)`;
  const dbCell = (r?: ServerResult) => `${cell(r)} ${(r?.db === undefined ? '—' : r.db.toFixed(2)).padStart(5)}`;
  const lines = routes.map((r) => {
    const { service } = r.servers;
    const bare = r.servers['bare-pg'];
    const ratio = `${x(pairedRatio(service, bare)).padStart(7)} (${x(ratioOfMedians(service, bare))})`;
    return `${r.name.padEnd(32)}| ${dbCell(service)} | ${dbCell(bare)} | ${ratio}`;
  });
  return [
    head,
    sub,
    '-'.repeat(head.length + 8),
    ...lines,
    '',
    'req/s: median over rounds; p50/p99: latency in ms; cpu: share of one core the server process used;',
    "db: cores PostgreSQL's processes used meanwhile; ratios: paired = the median of each round's ratio",
  ].join('\n');
}

const x = (v: number) => (Number.isNaN(v) ? '—' : `${v.toFixed(2)}×`);

export interface Verdict {
  target: string;
  value: string;
  met: boolean;
}

/** The issue's targets, judged on the median of each round's ratio ({@link pairedRatio}) and the median p99. */
export function verdicts(routes: readonly RouteResult[], store: Store = 'memory'): Verdict[] {
  const out: Verdict[] = [];
  const byName = (n: string) => routes.find((r) => r.name === n);
  const baseline = store === 'postgres' ? 'bare-pg' : 'bare';
  const vsBare = (name: string, min: number) => {
    const r = byName(name);
    const v = pairedRatio(r?.servers.service, r?.servers[baseline]);
    const m = ratioOfMedians(r?.servers.service, r?.servers[baseline]);
    if (!Number.isNaN(v))
      out.push({
        target: `${name} ≥ ${min}× ${baseline}`,
        value: `${v.toFixed(2)}× (medians: ${m.toFixed(2)}×)`,
        met: v >= min,
      });
  };
  if (store === 'postgres') {
    // The PostgreSQL targets: reads at half the bare server's rate or better, a create (one transaction with its
    // activity entries and notification) within 25 ms at p99 under 50 connections.
    vsBare('GET /api/tasks/:id', 0.5);
    const p99 = byName('POST /api/tasks')?.servers.service?.p99;
    if (p99 !== undefined)
      out.push({ target: 'POST /api/tasks service p99 ≤ 25 ms', value: `${fmt(p99)} ms`, met: p99 <= 25 });
    return out;
  }
  vsBare('GET /api/tasks/:id', 0.65);
  vsBare('POST /api/tasks', 0.35);
  for (const r of routes) {
    // Tokens and a rate limit may cost at most 15 % of any route's throughput.
    const t = pairedRatio(r.servers['service-token'], r.servers.service);
    if (!Number.isNaN(t))
      out.push({
        target: `${r.name} with AUTH=token, RATE_LIMIT ≥ 0.85× without`,
        value: `${t.toFixed(2)}× (medians: ${ratioOfMedians(r.servers['service-token'], r.servers.service).toFixed(2)}×)`,
        met: t >= 0.85,
      });
    const min = r.write ? 100 : 10;
    const v = pairedRatio(r.servers.service, r.servers['json-server']);
    const m = ratioOfMedians(r.servers.service, r.servers['json-server']);
    // What bare node:http reaches on the same route in the same rounds: a target above it asks the service to be
    // faster than Node's own floor.
    const floor = pairedRatio(r.servers.bare, r.servers['json-server']);
    if (!Number.isNaN(v))
      out.push({
        target: `${r.name} ≥ ${min}× json-server`,
        value: `${v.toFixed(1)}× (medians: ${m.toFixed(1)}×)${Number.isNaN(floor) ? '' : `; bare node:http: ${floor.toFixed(1)}×`}`,
        met: v >= min,
      });
    const p99 = r.servers.service?.p99;
    if (p99 !== undefined) out.push({ target: `${r.name} service p99 ≤ 5 ms`, value: `${fmt(p99)} ms`, met: p99 <= 5 });
  }
  return out;
}

export function verdictLines(vs: readonly Verdict[]): string {
  return vs.map((v) => `${v.met ? 'met    ' : 'NOT MET'}  ${v.target.padEnd(52)} ${v.value}`).join('\n');
}

export function machine(): Record<string, unknown> {
  return {
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    platform: process.platform,
  };
}
