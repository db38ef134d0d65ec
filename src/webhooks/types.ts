import type { DeliveryRecord } from '../model/delivery.ts';

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
   * when its row was written (for a first attempt, the commit of the change that caused it), and now.
   */
  attempted?(
    row: Pick<DeliveryRecord, 'id' | 'webhookId' | 'eventId' | 'eventType' | 'attempt' | 'createdAt'>,
    startedAt: Date,
  ): void;
}
