import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import { DEFAULT_CONFIG } from '../config.ts';
import type { Clock, IdGenerator } from '../core/runtime.ts';
import type { Logger } from './types.ts';

export interface DispatcherOptions {
  clock: Clock;
  ids: IdGenerator;
  log: Logger;
  // The five settings below default to the service's own defaults (DEFAULT_CONFIG, config.ts).
  /** Waits after each failed attempt, in ms: one retry per step. */
  retrySchedule?: readonly number[];
  /** Per attempt, covering connect, headers and body. */
  timeoutMs?: number;
  /** Requests in flight at once; the rest wait in a FIFO queue. */
  concurrency?: number;
  /** Deliveries alive at once (queued, in flight or waiting to retry); more are dropped. */
  maxQueue?: number;
  /** Attempt records kept per webhook, oldest dropped. */
  historyPerWebhook?: number;
  /** Send to loopback, private, link-local and metadata addresses too (`WEBHOOK_ALLOW_PRIVATE=true`). */
  allowPrivate: boolean;
  /** Called when a receiver answers 410 Gone (e.g. to deactivate the webhook). */
  onGone?: (webhookId: string) => void | Promise<void>;
  /** Checked before each retry: an inactive or deleted webhook gets no more. */
  isActive?: (webhookId: string) => boolean | Promise<boolean>;
  /** Spread of retry delays, as a fraction. Default 0.2 (±20 %). */
  jitter?: number;
  /** A number in [0, 1), for the jitter. Default `Math.random`. */
  random?: () => number;
  /** Replaces the guarded agent, SSRF guard included (tests only). */
  dispatcher?: Dispatcher;
  /** Replaces `dns.lookup` behind the SSRF guard (tests only). */
  lookup?: LookupFunction;
}

export type Settings = Required<Omit<DispatcherOptions, 'onGone' | 'isActive' | 'dispatcher' | 'lookup'>> &
  Pick<DispatcherOptions, 'onGone' | 'isActive' | 'dispatcher' | 'lookup'> & {
    /** The longest wait a `Retry-After` may ask for: the schedule's largest step. */
    readonly maxStepMs: number;
  };

/** The options with their defaults; throws on a value that cannot work. */
export function resolveOptions(opts: DispatcherOptions): Settings {
  const s = {
    retrySchedule: DEFAULT_CONFIG.webhookRetrySchedule,
    timeoutMs: DEFAULT_CONFIG.webhookTimeoutMs,
    concurrency: DEFAULT_CONFIG.webhookConcurrency,
    maxQueue: DEFAULT_CONFIG.webhookMaxQueue,
    historyPerWebhook: DEFAULT_CONFIG.webhookHistory,
    jitter: 0.2,
    random: Math.random,
    ...stripUndefined(opts),
  };
  for (const key of ['timeoutMs', 'concurrency', 'maxQueue', 'historyPerWebhook'] as const) {
    if (!Number.isInteger(s[key]) || s[key] < 1)
      throw new Error(`WebhookDispatcher: ${key} must be a positive integer, got ${s[key]}`);
  }
  if (!s.retrySchedule.every((ms) => Number.isFinite(ms) && ms >= 0)) {
    throw new Error('WebhookDispatcher: retrySchedule must hold non-negative numbers of milliseconds');
  }
  if (!(s.jitter >= 0 && s.jitter < 1)) throw new Error(`WebhookDispatcher: jitter must be in [0, 1), got ${s.jitter}`);
  return { ...s, maxStepMs: Math.max(0, ...s.retrySchedule) };
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
