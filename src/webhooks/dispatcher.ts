import { setMaxListeners } from 'node:events';
import type { Dispatcher } from 'undici';
import { iso } from '../core/runtime.ts';
import { DeliveryHistory } from './history.ts';
import { resolveOptions, type DispatcherOptions as Options, type Settings } from './options.ts';
import { WorkQueue } from './queue.ts';
import { delayBeforeRetry } from './retry.ts';
import { describeError, precheck, sendOnce, type AttemptResult } from './send.ts';
import { signingKey, webhookHeaders } from './signing.ts';
import {
  realTimers,
  type DeliveryObserver,
  type DeliveryRecord,
  type DeliveryTarget,
  eventBody,
  type OutboundEvent,
  type Scheduler,
} from './types.ts';
import { createGuardedAgent } from './url-guard.ts';

export interface DispatcherOptions extends Options {
  /** The timers of retries, attempt timeouts and the close grace period. Default: Node's. */
  scheduler?: Scheduler;
  /** Told of each attempt once it is settled (tests wait on it; metrics could count it). */
  observer?: DeliveryObserver;
}

/** One event on its way to one webhook: a chain of attempts, each with its own record. */
interface Delivery {
  readonly target: DeliveryTarget;
  readonly event: OutboundEvent;
  readonly eventId: string;
  readonly eventType: string;
  attempt: number;
  record: DeliveryRecord;
  timer?: unknown;
  cancelled: boolean;
}

type Outcome = Pick<DeliveryRecord, 'responseStatus' | 'error' | 'durationMs'>;
const SHOWN_ON_CLOSE = 50;
const DROP_LOG_INTERVAL_MS = 10_000;
/** URLs whose precheck is remembered (forgotten all at once past this many). */
const PRECHECKS_KEPT = 1_000;

/**
 * Delivers events to webhooks in the background: a bounded queue, bounded concurrency, retries on
 * timers, one `DeliveryRecord` per attempt. Nothing here throws into, or waits on, the caller.
 */
export class WebhookDispatcher {
  private readonly s: Settings;
  private readonly agent: Dispatcher;
  private readonly history: DeliveryHistory<Delivery>;
  private readonly queue: WorkQueue<Delivery>;
  private readonly retrying = new Set<Delivery>();
  private readonly bodies = new WeakMap<OutboundEvent, string>();
  private readonly prechecked = new Map<string, AttemptResult | null>();
  private readonly shutdown = new AbortController();
  private readonly timers: Scheduler;
  private readonly observer: DeliveryObserver | undefined;
  /** Work in hand outside the queue: retry checks and `onGone` callbacks, which {@link idle} waits for. */
  private readonly inHand = new Set<Promise<void>>();
  /** Deliveries queued, in flight or waiting to retry: what `maxQueue` bounds. */
  private alive = 0;
  private abandoned = 0;
  private droppedSinceLog = 0;
  private lastDropLog = -Infinity;
  private closed = false;

  constructor(options: DispatcherOptions) {
    this.s = resolveOptions(options);
    this.timers = options.scheduler ?? realTimers;
    this.observer = options.observer;
    this.history = new DeliveryHistory(this.s.historyPerWebhook);
    this.queue = new WorkQueue(this.s.concurrency, (d) => this.run(d), this.timers);
    // Each attempt in flight listens for the shutdown (send.ts), and `concurrency` may be in flight: past Node's
    // default of 10 listeners it would print a (false) leak warning.
    setMaxListeners(this.s.concurrency + 1, this.shutdown.signal);
    this.agent =
      this.s.dispatcher ??
      createGuardedAgent({
        allowPrivate: this.s.allowPrivate,
        lookup: this.s.lookup,
        connectTimeoutMs: this.s.timeoutMs,
      });
  }

  /** Queues `event` for `target`. Never throws, never waits; a full queue records the delivery as failed. */
  enqueue(target: DeliveryTarget, event: OutboundEvent): void {
    try {
      if (this.closed)
        return this.s.log.warn(
          { webhookId: target.id, eventId: event.id },
          'webhook dispatcher closed: delivery dropped',
        );
      this.admit(target, event);
    } catch (err) {
      this.s.log.error({ err, webhookId: target.id, eventId: event.id }, 'webhook delivery could not be queued');
    }
  }

  /** Attempt records of a webhook, newest first (copies). */
  deliveries(webhookId: string): DeliveryRecord[] {
    return this.history.list(webhookId);
  }

  /**
   * Sends a recorded delivery's event again (same `webhook-id`) as a new delivery, with its own retries.
   * `target` (same id) replaces the recorded URL and secret, e.g. when the webhook changed since.
   * `undefined` when there is no such record (or the dispatcher is closed).
   */
  redeliver(webhookId: string, deliveryId: string, target?: DeliveryTarget): DeliveryRecord | undefined {
    const old = this.history.find(webhookId, deliveryId)?.context;
    if (!old || this.closed) return undefined;
    return { ...this.admit(target ?? old.target, old.event) };
  }

  /** Drops a deleted webhook's history, queued attempts and retries; an attempt in flight finishes unrecorded. */
  forget(webhookId: string): void {
    this.history.forget(webhookId);
    for (const d of this.queue.removeWhere((q) => q.target.id === webhookId)) this.cancel(d);
    for (const d of [...this.retrying]) if (d.target.id === webhookId) this.cancel(d);
    for (const d of this.queue.inFlight) if (d.target.id === webhookId) d.cancelled = true;
  }

  /**
   * Resolves once nothing is queued, being sent or in hand (a retry check, an `onGone` callback). Retries waiting
   * for their time do not count: they are the scheduler's.
   */
  async idle(): Promise<void> {
    while (this.queue.inFlight.size > 0 || this.inHand.size > 0) await Promise.all([this.queue.idle(), ...this.inHand]);
  }

  stats(): { queued: number; inFlight: number; scheduledRetries: number } {
    return { queued: this.queue.queued, inFlight: this.queue.inFlight.size, scheduledRetries: this.retrying.size };
  }

  /**
   * Stops accepting, drops queued attempts and pending retries (logging their events), lets requests in
   * flight finish for up to `graceMs`, then aborts them. `abandoned`: deliveries left without a final answer.
   */
  async close(graceMs: number): Promise<{ abandoned: number }> {
    if (this.closed) return { abandoned: this.abandoned };
    this.closed = true;
    const dropped = [...this.queue.drain(), ...this.retrying];
    for (const d of dropped) this.abandon(d);
    if (dropped.length > 0) {
      const shown = dropped
        .slice(0, SHOWN_ON_CLOSE)
        .map((d) => ({ webhookId: d.target.id, eventId: d.eventId, eventType: d.eventType, attempt: d.attempt }));
      this.s.log.warn({ count: dropped.length, deliveries: shown }, 'webhook deliveries abandoned at shutdown');
    }
    await this.queue.idle(graceMs);
    if (this.queue.inFlight.size > 0) {
      this.s.log.warn(
        { count: this.queue.inFlight.size },
        'webhook requests still in flight after the grace period: aborting',
      );
      this.shutdown.abort();
      await this.queue.idle(1_000);
    }
    if (!this.s.dispatcher) await this.agent.destroy().catch(() => {});
    return { abandoned: this.abandoned };
  }

  /** Records a first attempt and queues it; with the queue full, records it failed at once (nothing else is done). */
  private admit(target: DeliveryTarget, event: OutboundEvent): DeliveryRecord {
    const d: Delivery = {
      target,
      event,
      eventId: event.id,
      eventType: event.type,
      attempt: 0,
      cancelled: false,
      record: undefined!,
    };
    this.nextAttempt(d);
    if (this.alive >= this.s.maxQueue) {
      this.complete(d, 'failed', { responseStatus: null, error: 'queue full', durationMs: null });
      this.notify(d.record);
      this.warnDropped(target.id, event.id, event.type);
      return d.record;
    }
    this.alive++;
    this.queue.push(d);
    return d.record;
  }

  /**
   * A full queue stays full while receivers are down, and every change then drops a delivery: the first drop
   * is logged at once, the next ones at most every DROP_LOG_INTERVAL_MS, with how many were dropped meanwhile.
   */
  private warnDropped(webhookId: string, eventId: string, eventType: string): void {
    this.droppedSinceLog++;
    const now = performance.now();
    if (now - this.lastDropLog < DROP_LOG_INTERVAL_MS) return;
    this.s.log.warn(
      { webhookId, eventId, eventType, maxQueue: this.s.maxQueue, dropped: this.droppedSinceLog },
      'webhook queue full: deliveries dropped',
    );
    this.droppedSinceLog = 0;
    this.lastDropLog = now;
  }

  private nextAttempt(d: Delivery): void {
    d.attempt++;
    d.record = {
      id: this.s.ids('dlv'),
      webhookId: d.target.id,
      eventId: d.eventId,
      eventType: d.eventType,
      attempt: d.attempt,
      status: 'pending',
      responseStatus: null,
      error: null,
      durationMs: null,
      createdAt: iso(this.s.clock.now()),
      completedAt: null,
      nextAttemptAt: null,
    };
    this.history.add(d.record, d);
  }

  private async run(d: Delivery): Promise<void> {
    const result = this.precheck(d.target.url) ?? (await this.send(d));
    const record = d.record;
    try {
      const after = this.settle(d, result);
      if (after) return void this.hold(after.then(() => this.notify(record)));
    } catch (err) {
      this.s.log.error({ err, webhookId: d.target.id, eventId: d.eventId }, 'webhook delivery bookkeeping failed');
    }
    this.notify(record);
  }

  /** Keeps `work` in hand until it settles (it must not reject). */
  private hold(work: Promise<void>): void {
    const held: Promise<void> = work.finally(() => this.inHand.delete(held));
    this.inHand.add(held);
  }

  private notify(record: DeliveryRecord): void {
    if (!this.observer) return;
    try {
      this.observer.settled({ ...record });
    } catch (err) {
      this.s.log.error({ err, webhookId: record.webhookId }, 'webhook delivery observer failed');
    }
  }

  private async send(d: Delivery): Promise<AttemptResult> {
    const seconds = Math.floor(this.s.clock.now().getTime() / 1000);
    let body: string;
    let headers: Record<string, string>;
    try {
      body = this.bodyOf(d.event);
      headers = webhookHeaders(signingKey(d.target.secret), d.eventId, seconds, body);
    } catch (err) {
      // Cannot happen with the service's own secrets and records; final, since no retry would fare better.
      this.s.log.error({ err, webhookId: d.target.id, eventId: d.eventId }, 'webhook delivery could not be signed');
      return {
        outcome: 'invalid',
        responseStatus: null,
        error: `could not be signed: ${describeError(err)}`,
        retryAfter: undefined,
        durationMs: 0,
      };
    }
    const { timeoutMs } = this.s;
    return sendOnce({
      dispatcher: this.agent,
      url: d.target.url,
      headers,
      body,
      timeoutMs,
      shutdown: this.shutdown.signal,
      timers: this.timers,
    }).catch((err: unknown): AttemptResult => ({
      outcome: 'network',
      responseStatus: null,
      error: describeError(err),
      retryAfter: undefined,
      durationMs: 0,
    }));
  }

  /** {@link precheck} of a URL, remembered: every delivery to a webhook asks it of the same URL. */
  private precheck(url: string): AttemptResult | null {
    let result = this.prechecked.get(url);
    if (result === undefined) {
      if (this.prechecked.size >= PRECHECKS_KEPT) this.prechecked.clear();
      this.prechecked.set(url, (result = precheck(url)));
    }
    return result;
  }

  /** The payload of an event, made when first sent (and shared by its deliveries to several webhooks). */
  private bodyOf(event: OutboundEvent): string {
    let body = this.bodies.get(event);
    if (body === undefined) this.bodies.set(event, (body = JSON.stringify(eventBody(event))));
    return body;
  }

  /**
   * Records an attempt's result and decides what comes next: nothing, or a retry. What is still to be done for the
   * attempt (the `onGone` callback) is returned.
   */
  private settle(d: Delivery, result: AttemptResult): Promise<void> | undefined {
    const { responseStatus, error, durationMs } = result;
    const now = this.s.clock.now();
    const log = { webhookId: d.target.id, eventId: d.eventId, attempt: d.attempt, status: responseStatus, error };
    if (result.outcome === 'ok' || result.outcome === 'refused') {
      this.complete(d, result.outcome === 'ok' ? 'succeeded' : 'refused', { responseStatus, error, durationMs }, now);
      this.s.log[result.outcome === 'ok' ? 'debug' : 'warn'](log, `webhook delivery ${d.record.status}`);
      return void this.finish();
    }
    this.complete(d, 'failed', { responseStatus, error, durationMs }, now);
    if (d.cancelled || result.outcome === 'invalid') return void this.finish();
    if (responseStatus === 410) {
      this.s.log.info(log, 'webhook receiver answered 410 Gone: no retry');
      const { onGone } = this.s;
      this.finish();
      if (!onGone) return undefined;
      return Promise.resolve(d.target.id)
        .then(onGone)
        .catch((err: unknown) => this.s.log.error({ err, webhookId: d.target.id }, 'webhook onGone callback failed'));
    }
    if (this.closed) return void this.abandon(d);
    const delay = delayBeforeRetry(d.attempt, result.retryAfter, now, this.s);
    if (delay === null) {
      this.s.log.warn(log, 'webhook delivery failed: retries exhausted');
      return void this.finish();
    }
    d.record.nextAttemptAt = iso(new Date(now.getTime() + delay));
    this.s.log.debug({ ...log, delayMs: delay }, 'webhook delivery failed: retry scheduled');
    d.timer = this.timers.setTimeout(() => this.hold(this.retry(d)), delay);
    this.retrying.add(d);
  }

  /** Never rejects. */
  private async retry(d: Delivery): Promise<void> {
    d.timer = undefined;
    let active = true;
    try {
      if (this.s.isActive) active = await this.s.isActive(d.target.id);
    } catch (err) {
      this.s.log.error({ err, webhookId: d.target.id }, 'webhook isActive check failed: retrying anyway');
    }
    if (!this.retrying.delete(d)) return; // forgotten, or the dispatcher closed, meanwhile
    if (!active) {
      d.record.nextAttemptAt = null;
      this.s.log.info({ webhookId: d.target.id, eventId: d.eventId }, 'webhook inactive or deleted: retries stopped');
      return this.finish();
    }
    this.nextAttempt(d);
    this.queue.push(d);
  }

  private complete(d: Delivery, status: DeliveryRecord['status'], outcome: Outcome, now = this.s.clock.now()): void {
    Object.assign(d.record, outcome, { status, completedAt: iso(now), nextAttemptAt: null });
  }

  /** Gives up on a delivery because the dispatcher is closing; an attempt not yet made is recorded as failed. */
  private abandon(d: Delivery): void {
    if (d.record.status === 'pending') {
      this.complete(d, 'failed', {
        responseStatus: null,
        error: 'abandoned: dispatcher closed before this attempt',
        durationMs: null,
      });
      this.notify(d.record);
    }
    this.abandoned++;
    this.cancel(d);
  }

  private cancel(d: Delivery): void {
    d.cancelled = true;
    if (d.timer !== undefined) this.timers.clearTimeout(d.timer);
    d.timer = undefined;
    d.record.nextAttemptAt = null;
    this.retrying.delete(d);
    this.finish();
  }

  private finish(): void {
    this.alive--;
  }
}
