import type { DeliveryRecord } from '../model/delivery.ts';
import type { StoredDelivery } from '../store/outbox.ts';

type LogFn = (obj: object, msg?: string) => void;

/** The part of a pino / Fastify logger the dispatcher uses. */
export interface Logger {
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  debug: LogFn;
}

/**
 * The timers the dispatcher runs on: retry waits, attempt timeouts, the grace period at close. Real ones by default;
 * tests pass a fake they advance by hand. A durable queue keeps this seam: its workers wake on these timers to claim
 * the rows that are due.
 */
export interface Scheduler {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

/** Node's timers, unref'd: a pending retry or timeout never keeps the process alive by itself. */
export const realTimers: Scheduler = {
  setTimeout(run, ms) {
    const timer = setTimeout(run, ms);
    timer.unref();
    return timer;
  },
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/** Told of every attempt once the dispatcher is done with it (status final, retry scheduled or not). */
export interface DeliveryObserver {
  settled(record: DeliveryRecord): void;
  /**
   * Told as an attempt is made (its webhook read and admitted, before its request): which attempt of its delivery,
   * when its row was written (for a first attempt, the commit of the change that caused it), the trace context of
   * the request that caused it (traces on), and now.
   */
  attempted?(row: AttemptedRow, startedAt: Date): void;
}

/**
 * What traces need of the delivery workers (traces on: tracing/deliveries.ts); absent, the workers ask nothing and
 * keep nothing of them.
 */
export interface DeliveryTracing {
  /**
   * The trace context of the request under way (W3C `traceparent`), asked as each delivery is staged and kept with
   * it (`StoredDelivery.traceParent`); none outside a request.
   */
  traceParent(): string | undefined;
  /** Runs `work` outside the trace under way: a claim pass that a request's change woke is no part of that request. */
  detached<T>(work: () => T): T;
}

/** What a {@link DeliveryObserver} is told of an attempt as it is made. */
export type AttemptedRow = Pick<
  StoredDelivery,
  'id' | 'webhookId' | 'eventId' | 'eventType' | 'attempt' | 'createdAt' | 'traceParent'
>;
