/** One autocannon measurement against one route of one server. */
import autocannon, { type Request } from 'autocannon';

export interface Target {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  /** A body for each request: `n` counts the requests of this run (so each write changes something). */
  body?: (n: number) => unknown;
  /** Headers sent with every request (a token). */
  headers?: Record<string, string>;
}

export interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  /** Requests answered with a status outside 2xx, and socket errors or timeouts: any of them spoils the run. */
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  /** Requests per second from all connections together; unlimited (saturating) when absent. */
  rate?: number;
}

export async function measure(baseUrl: string, target: Target, opts: LoadOptions): Promise<Measurement> {
  let n = 0;
  const request: Request = {
    method: target.method,
    path: target.path,
    headers: { ...target.headers, ...(target.body && { 'content-type': 'application/json' }) },
  };
  const body = target.body;
  if (body) request.setupRequest = (req) => ({ ...req, body: JSON.stringify(body(n++)) });
  const result = await autocannon({
    url: baseUrl,
    connections: opts.connections,
    duration: opts.seconds,
    requests: [request],
    ...(opts.rate ? { overallRate: opts.rate } : {}),
  });
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors, // timeouts included
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * The load settings `npm run bench` and `npm run bench:floor` take (`parseArgs` options):
 * 10 s, 3 rounds, 3 s warm-up, 50 connections.
 */
export const LOAD_ARGS = {
  duration: { type: 'string', default: '10' },
  rounds: { type: 'string', default: '3' },
  warmup: { type: 'string', default: '3' },
  connections: { type: 'string', default: '50' },
} as const;
