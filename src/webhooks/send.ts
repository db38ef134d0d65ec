import { performance } from 'node:perf_hooks';
import { request, type Dispatcher } from 'undici';
import type { Scheduler } from './types.ts';
import { findRefusal, isReservedName } from './url-guard.ts';

/** Response bytes read (and thrown away) before the connection is dropped: receivers have nothing to tell us. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface Attempt {
  dispatcher: Dispatcher;
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Aborts the attempt when the dispatcher shuts down. */
  shutdown: AbortSignal;
  /** Runs the timeout. */
  timers: Scheduler;
}

export interface AttemptResult {
  /** `ok`: a 2xx in time. `http`: any other answer. The rest: no usable answer (`invalid`: see {@link precheck}). */
  outcome: 'ok' | 'http' | 'timeout' | 'network' | 'refused' | 'aborted' | 'invalid';
  responseStatus: number | null;
  error: string | null;
  retryAfter: string | undefined;
  durationMs: number;
}

/**
 * What can be told about a target before any connection: an unusable URL, or a name reserved never to resolve
 * (RFC 2606/6761, the seeded webhooks' hosts). Both are final (`invalid`: recorded as failed, never retried).
 * `null`: worth an attempt.
 */
export function precheck(url: string): AttemptResult | null {
  const target = parseTarget(url);
  const error =
    typeof target === 'string'
      ? target
      : isReservedName(target.hostname)
        ? `getaddrinfo ENOTFOUND ${target.hostname} (a reserved name: never resolves; not retried)`
        : null;
  return error === null
    ? null
    : { outcome: 'invalid', responseStatus: null, error, retryAfter: undefined, durationMs: 0 };
}

/**
 * One POST to a target {@link precheck} let through. Never throws. The timeout covers connecting, the headers
 * and the body; redirects are not followed (undici's `request` follows none); the response body is drained up to
 * `MAX_RESPONSE_BYTES`.
 */
export async function sendOnce({
  dispatcher,
  url,
  headers,
  body,
  timeoutMs,
  shutdown,
  timers,
}: Attempt): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const controller = new AbortController();
  let timedOut = false;
  const timer = timers.setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`timeout after ${timeoutMs} ms`));
  }, timeoutMs);
  const onShutdown = () => controller.abort(new Error('aborted: dispatcher closed'));
  if (shutdown.aborted) onShutdown();
  else shutdown.addEventListener('abort', onShutdown, { once: true });

  let responseStatus: number | null = null;
  let retryAfter: string | undefined;
  try {
    const res = await request(url, { dispatcher, method: 'POST', headers, body, signal: controller.signal });
    responseStatus = res.statusCode;
    const header = res.headers['retry-after'];
    retryAfter = Array.isArray(header) ? header[0] : header;
    await drain(res.body);
    const ok = responseStatus >= 200 && responseStatus < 300;
    return {
      outcome: ok ? 'ok' : 'http',
      responseStatus,
      error: ok ? null : httpError(responseStatus),
      retryAfter,
      durationMs: elapsed(),
    };
  } catch (err) {
    const reading = responseStatus === null ? '' : ` (HTTP ${responseStatus}, reading the response body)`;
    const base = { responseStatus, retryAfter, durationMs: elapsed() };
    if (timedOut) return { ...base, outcome: 'timeout', error: `timeout after ${timeoutMs} ms${reading}` };
    if (shutdown.aborted) return { ...base, outcome: 'aborted', error: `aborted: dispatcher closed${reading}` };
    const refused = findRefusal(err);
    if (refused) return { ...base, outcome: 'refused', error: refused.message };
    return { ...base, outcome: 'network', error: describeError(err) + reading };
  } finally {
    timers.clearTimeout(timer);
    shutdown.removeEventListener('abort', onShutdown);
  }
}

async function drain(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<void> {
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > MAX_RESPONSE_BYTES) break; // leaving the loop destroys the stream and its connection
  }
}

/** The URL to deliver to, or why it is not one. */
function parseTarget(url: string): URL | string {
  if (!URL.canParse(url)) return 'invalid url: not an absolute URL';
  const target = new URL(url);
  const { protocol, username, password } = target;
  if (protocol !== 'http:' && protocol !== 'https:') return `invalid url: ${protocol} is not http or https`;
  if (username || password) return 'invalid url: credentials in the URL are not supported';
  return target;
}

function httpError(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status} (redirects are not followed)`;
  if (status === 410) return 'HTTP 410 Gone (receiver asked for no more deliveries)';
  return `HTTP ${status}`;
}

/** `CODE: message` of a network error, the first of an aggregate (one per address tried). */
export function describeError(err: unknown): string {
  let e = err;
  if (e instanceof AggregateError && e.errors.length > 0) e = e.errors[0];
  if (!(e instanceof Error)) return String(e).slice(0, 500);
  const code = (e as NodeJS.ErrnoException).code;
  const text = code && !e.message.includes(code) ? `${code}: ${e.message}` : e.message || e.name;
  return text.slice(0, 500);
}
