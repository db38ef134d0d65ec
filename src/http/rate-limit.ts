import { format } from '@lukeed/ms';
import type { FastifyReply } from 'fastify';
import { LruMap } from 'toad-cache';
import { AppError } from '../errors.ts';

/** One key's window: requests counted since it started. */
interface Window {
  count: number;
  startedAt: number;
}

/** How many keys are remembered at most: the least recently seen is forgotten first (its budget starts afresh). */
const KEYS_REMEMBERED = 100_000;

/** A window in the largest unit that divides it: `60000` → `1m`. */
function inWords(ms: number): string {
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * `RATE_LIMIT`: at most `max` requests per key in a fixed window of `windowMs` that starts at the key's first
 * request. Every answer counted carries `X-RateLimit-Limit`, `-Remaining` and `-Reset` (seconds until the window
 * ends); past the limit, `429 RATE_LIMITED` with `Retry-After`. The keys live in this process, in a bounded LRU map.
 *
 * The rules and headers are @fastify/rate-limit's (with its defaults), which the service used before: the count is
 * kept here, in the guard hook each route has with the token check (http/auth.ts), because the plugin's own hook
 * (asynchronous, reading the route's options anew, a promise per count) was most of what `RATE_LIMIT` cost a
 * request (bench/HISTORY.md, *tokens and the rate limit*).
 */
export class RateLimiter {
  private readonly windows = new LruMap<Window>(KEYS_REMEMBERED);
  private readonly max: number;
  private readonly windowMs: number;
  private readonly perWindow: string;

  constructor({ max, windowMs }: { readonly max: number; readonly windowMs: number }) {
    this.max = max;
    this.windowMs = windowMs;
    this.perWindow = `at most ${max} per ${inWords(windowMs)}`;
  }

  /** Counts a request of `key` and sets its headers on `reply`; answers the refusal when it is over the limit. */
  count(key: string, reply: FastifyReply, now = Date.now()): AppError | undefined {
    // `get` marks the key as the most recently seen; a key seen for the first time is added.
    let window = this.windows.get(key);
    if (window === undefined) this.windows.set(key, (window = { count: 0, startedAt: now }));
    if (window.startedAt + this.windowMs <= now) {
      window.count = 0;
      window.startedAt = now;
    }
    window.count++;
    const resetS = Math.ceil((this.windowMs - (now - window.startedAt)) / 1000);
    reply.header('x-ratelimit-limit', this.max);
    if (window.count <= this.max) {
      reply.header('x-ratelimit-remaining', this.max - window.count);
      reply.header('x-ratelimit-reset', resetS);
      return undefined;
    }
    reply.header('x-ratelimit-remaining', 0);
    reply.header('x-ratelimit-reset', resetS);
    reply.header('retry-after', resetS);
    return new AppError(
      'RATE_LIMITED',
      `Too many requests: ${this.perWindow}; try again in ${format(resetS * 1000, true)}`,
    );
  }
}
