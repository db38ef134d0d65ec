import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import type { IdGenerator } from '../model/ids.ts';
import type { Clock } from '../model/time.ts';
import type { Logger } from './types.ts';

/**
 * What delivery does when a setting is not given, and so the service's defaults of the `WEBHOOK_*` settings
 * (config.ts reads them from here): a dispatcher built without settings behaves as the service does.
 */
export const DELIVERY_DEFAULTS = Object.freeze({
  /** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
  retrySchedule: Object.freeze([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]),
  timeoutMs: 10_000,
  concurrency: 32,
  perWebhookConcurrency: 8,
  maxQueue: 10_000,
  historyPerWebhook: 100,
  historyDays: 30,
  pollMs: 1_000,
});

/** The settings of the delivery workers (the dispatcher's options but its outbox, webhook reads and timers). */
export interface DeliverySettings {
  clock: Clock;
  ids: IdGenerator;
  log: Logger;
  // The settings below that have a default in DELIVERY_DEFAULTS take it when absent.
  /** Waits after each failed attempt, in ms: one retry per step. */
  retrySchedule?: readonly number[];
  /** Per attempt, covering connect, headers and body. */
  timeoutMs?: number;
  /** Requests in flight at once; the rest wait, oldest due first. */
  concurrency?: number;
  /** Requests in flight at once to one webhook: a receiver that hangs holds at most these slots. */
  perWebhookConcurrency?: number;
  /** Deliveries waiting at once in memory (queued, in flight or waiting to retry); more are dropped. */
  maxQueue?: number;
  /** Attempt records kept per webhook in memory, oldest dropped. */
  historyPerWebhook?: number;
  /** Days attempt records are kept on a durable store, then pruned. */
  historyDays?: number;
  /** How often a durable store is looked at for due deliveries no notification announced (a backstop), in ms. */
  pollMs?: number;
  /**
   * On a durable store, the least time between the starts of two claim passes, and of two outcome writes, in ms.
   * Under load each then carries what came meanwhile (a claim costs the database about a millisecond, planned
   * afresh each time) instead of a few rows; alone, a pass or a write goes at once. Default 10; 0: none.
   */
  gatherMs?: number;
  /** Send to loopback, private, link-local and metadata addresses too (`WEBHOOK_ALLOW_PRIVATE=true`). */
  allowPrivate: boolean;
  /** Called when a receiver answers 410 Gone (e.g. to deactivate the webhook), with the URL that answered. */
  onGone?: (webhookId: string, url: string) => void | Promise<void>;
  /** Spread of retry delays, as a fraction. Default 0.2 (±20 %). */
  jitter?: number;
  /** A number in [0, 1), for the jitter. Default `Math.random`. */
  random?: () => number;
  /** Replaces the guarded agent, SSRF guard included (tests only). */
  dispatcher?: Dispatcher;
  /** Replaces `dns.lookup` behind the SSRF guard (tests only). */
  lookup?: LookupFunction;
}

type Optional = 'onGone' | 'dispatcher' | 'lookup';
export type Settings = Required<Omit<DeliverySettings, Optional>> &
  Pick<DeliverySettings, Optional> & {
    /** The longest wait a `Retry-After` may ask for: the schedule's largest step. */
    readonly maxStepMs: number;
  };

/** The options with their defaults; throws on a value that cannot work. */
export function resolveOptions(opts: DeliverySettings): Settings {
  const s = {
    ...DELIVERY_DEFAULTS,
    gatherMs: 10,
    jitter: 0.2,
    random: Math.random,
    ...stripUndefined(opts),
  };
  const positive = [
    'timeoutMs',
    'concurrency',
    'perWebhookConcurrency',
    'maxQueue',
    'historyPerWebhook',
    'historyDays',
    'pollMs',
  ] as const;
  for (const key of positive) {
    if (!Number.isInteger(s[key]) || s[key] < 1)
      throw new Error(`WebhookDispatcher: ${key} must be a positive integer, got ${s[key]}`);
  }
  if (!s.retrySchedule.every((ms) => Number.isFinite(ms) && ms >= 0)) {
    throw new Error('WebhookDispatcher: retrySchedule must hold non-negative numbers of milliseconds');
  }
  if (!(Number.isFinite(s.gatherMs) && s.gatherMs >= 0))
    throw new Error(`WebhookDispatcher: gatherMs must be a non-negative number, got ${s.gatherMs}`);
  if (!(s.jitter >= 0 && s.jitter < 1)) throw new Error(`WebhookDispatcher: jitter must be in [0, 1), got ${s.jitter}`);
  return { ...s, maxStepMs: Math.max(0, ...s.retrySchedule) };
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
