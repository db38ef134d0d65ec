import type { CurrentWebhook, DeliveryLog, StoredDelivery } from '../../store/outbox.ts';
import type { Settings } from '../options.ts';
import { precheck, type AttemptResult } from '../send.ts';
import type { DeliveryRecord } from '../../model/delivery.ts';
import type { DeliveryObserver, DeliveryTracing, Scheduler } from '../types.ts';

/** URLs whose precheck is remembered, and webhooks whose last read is (forgotten all at once past this many). */
export const KEPT = 1_000;

/**
 * What every part of the delivery reads: the settings, the outbox, who this worker is, its timers, the work it has
 * in hand, and whether it is closed (set once, by the shutdown).
 */
export interface DeliveryContext {
  readonly s: Settings;
  readonly outbox: DeliveryLog;
  /** Written to each row this worker claims (a random id per dispatcher). */
  readonly owner: string;
  readonly timers: Scheduler;
  readonly work: WorkInHand;
  readonly observer: DeliveryObserver | undefined;
  /** Traces on: what they need of the workers (`DispatcherOptions.tracing`). */
  readonly tracing: DeliveryTracing | undefined;
  closed: boolean;
}

/** A claimed attempt, from its claim until its outcome is written. */
export interface InFlight {
  readonly row: StoredDelivery;
  /**
   * The webhook as it was read for the deliveries to it claimed together, with when (`performance.now()`) and the
   * webhook's count of changes then: read again when the attempt starts late or after a change (fresh.ts).
   */
  hook: Promise<CurrentWebhook | undefined>;
  readAt: number;
  seen: number;
  /** Whether it has given back its slot (its request is over, or was never made). */
  freed: boolean;
}

/** Work in hand outside the attempts (staging, claim passes, `onGone` callbacks): what `idle` and `close` wait for. */
export class WorkInHand {
  private readonly held = new Set<Promise<void>>();

  /** Keeps `work` in hand until it settles (it must not reject). */
  hold(work: Promise<void>): void {
    const held: Promise<void> = work.finally(() => this.held.delete(held));
    this.held.add(held);
  }

  get size(): number {
    return this.held.size;
  }

  /** What is in hand now. */
  all(): Promise<void>[] {
    return [...this.held];
  }
}

/**
 * How long a claim pass or an outcome write that would begin now waits, the last one having begun at `since`
 * (`performance.now()`): on a durable store, what comes within `gatherMs` of the last one goes in one statement
 * (options.ts). Alone, a pass or a write goes at once.
 */
export function gatherWait(c: DeliveryContext, since: number): number {
  return c.outbox.durable ? since + c.s.gatherMs - performance.now() : 0;
}

/** Tells the observer of an attempt the dispatcher is done with; an observer that throws is logged, no more. */
export function notify(c: DeliveryContext, record: DeliveryRecord): void {
  if (!c.observer) return;
  try {
    c.observer.settled({ ...record });
  } catch (err) {
    c.s.log.error({ err, webhookId: record.webhookId }, 'webhook delivery observer failed');
  }
}

/** {@link precheck} of a URL, remembered: every delivery to a webhook asks it of the same URL. */
export class Prechecks {
  private readonly known = new Map<string, AttemptResult | null>();

  of(url: string): AttemptResult | null {
    let result = this.known.get(url);
    if (result === undefined) {
      if (this.known.size >= KEPT) this.known.clear();
      this.known.set(url, (result = precheck(url)));
    }
    return result;
  }
}
