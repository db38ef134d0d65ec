import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { DeliveryRecord } from '../model/delivery.ts';
import type { OutboundEvent } from '../model/outbound.ts';
import type { CurrentWebhook, DeliveryLog, DeliveryTarget, StoredDelivery } from '../store/outbox.ts';
import { attempt, type AttemptContext } from './delivery/attempt.ts';
import { Claims } from './delivery/claim.ts';
import { notify, Prechecks, WorkInHand, type DeliveryContext } from './delivery/context.ts';
import { FreshWebhooks } from './delivery/fresh.ts';
import { OutcomeWriter } from './delivery/outcomes.ts';
import { Schedule } from './delivery/schedule.ts';
import { shutDown, type ShutdownParts } from './delivery/shutdown.ts';
import { Slots } from './delivery/slots.ts';
import { Staging } from './delivery/staging.ts';
import { resolveOptions, type DeliverySettings } from './options.ts';
import { realTimers, type DeliveryObserver, type DeliveryTracing, type Scheduler } from './types.ts';
import { createGuardedAgent } from './url-guard.ts';

export interface DispatcherOptions extends DeliverySettings {
  /** Where deliveries wait and attempts are recorded: the store's (`store.deliveries`). */
  outbox: DeliveryLog;
  /** Read before each attempt: the webhook as it is now (URL, secret, active), `undefined` once deleted. */
  current: (webhookId: string) => Promise<CurrentWebhook | undefined>;
  /** The timers of retries, attempt timeouts and the close grace period. Default: Node's. */
  scheduler?: Scheduler;
  /** Told of each attempt once it is settled (tests wait on it; metrics could count it). */
  observer?: DeliveryObserver;
  /** Traces on: the trace context kept with each delivery, and the claim passes outside the requests' traces. */
  tracing?: DeliveryTracing;
}

/**
 * Delivers events to webhooks in the background, from the store's outbox (store/outbox.ts): each delivery is a row
 * written with the change that caused it; workers claim due rows (delivery/claim.ts), at most `concurrency` in flight
 * and `perWebhookConcurrency` per webhook (delivery/slots.ts), make each attempt with the webhook as it is now
 * (delivery/attempt.ts), decide what follows (delivery/decide.ts) and record it (delivery/outcomes.ts). They are
 * woken when a change commits (the bus consumers of events/webhooks.ts, through its `Outbox` port), when another
 * instance announces deliveries (LISTEN/NOTIFY on PostgreSQL), by a timer at the next due time and by a poll on a
 * durable store (delivery/schedule.ts). This file only wires the parts. Nothing here throws into, or waits on, the
 * caller.
 */
export class WebhookDispatcher {
  private readonly outbox: DeliveryLog;
  private readonly c: DeliveryContext;
  private readonly staging: Staging;
  private readonly fresh: FreshWebhooks;
  private readonly slots: Slots;
  private readonly claims: Claims;
  private readonly schedule: Schedule;
  private readonly shutdown: ShutdownParts;

  constructor(options: DispatcherOptions) {
    const s = resolveOptions(options);
    const outbox = (this.outbox = options.outbox);
    outbox.bound?.(s.historyPerWebhook);
    const work = new WorkInHand();
    const timers = options.scheduler ?? realTimers;
    const c: DeliveryContext = {
      s,
      outbox,
      owner: randomUUID(),
      timers,
      work,
      observer: options.observer,
      tracing: options.tracing,
      closed: false,
    };
    this.c = c;
    const prechecks = new Prechecks();
    this.staging = new Staging(c, prechecks);
    this.fresh = new FreshWebhooks(async (id) => options.current(id));
    const wake = (asOf?: number, lookAhead?: boolean) => this.claims.wake(asOf, lookAhead);
    this.schedule = new Schedule(c, wake);
    const now = () => this.schedule.now();
    this.slots = new Slots(c, { now, run: (flight) => attempt(a, flight), wake: () => wake() });
    this.claims = new Claims(c, this.slots, this.fresh, {
      now: (asOf) => this.schedule.now(asOf),
      wakeUpAt: (at) => this.schedule.wakeUpAt(at),
    });
    const abort = new AbortController();
    // Each attempt in flight listens for the shutdown (send.ts), and `concurrency` may be in flight: past Node's
    // default of 10 listeners it would print a (false) leak warning.
    setMaxListeners(s.concurrency + 1, abort.signal);
    const agent =
      s.dispatcher ??
      createGuardedAgent({ allowPrivate: s.allowPrivate, lookup: s.lookup, connectTimeoutMs: s.timeoutMs });
    const cut: string[] = [];
    const a: AttemptContext = {
      s,
      outbox,
      owner: c.owner,
      timers,
      work,
      observer: c.observer,
      tracing: c.tracing,
      get closed() {
        return c.closed;
      },
      agent,
      shutdown: abort.signal,
      prechecks,
      fresh: this.fresh,
      slots: this.slots,
      writer: new OutcomeWriter(c),
      cut,
      wakeUpAt: (at, from) => this.schedule.wakeUpAt(at, from),
    };
    const ownAgent = s.dispatcher ? undefined : agent;
    this.shutdown = { schedule: this.schedule, slots: this.slots, cut, abort: () => abort.abort(), ownAgent };
    work.hold(this.schedule.start());
  }

  // What the consumers on the event bus call (the `Outbox` port of events/webhooks.ts, wired by the entry).

  stage(log: DeliveryLog, target: DeliveryTarget, event: OutboundEvent, options?: { force?: boolean }) {
    return this.staging.stage(log, target, event, options);
  }

  recorded(records: readonly DeliveryRecord[]): void {
    for (const record of records) notify(this.c, record);
  }

  wake(): void {
    this.claims.wake();
  }

  announce(): void {
    this.schedule.announce();
  }

  /** Drops what is kept of a deleted webhook where the log is bounded per webhook (memory). */
  forget(webhookId: string): void {
    this.c.work.hold(
      this.outbox
        .forget(webhookId)
        .catch((err: unknown) => this.c.s.log.error({ err, webhookId }, 'webhook delivery log could not be dropped')),
    );
  }

  changed(webhookId: string): void {
    this.fresh.changed(webhookId);
  }

  // What the webhooks resource calls (resources/webhooks/deliveries.ts).

  /** Queues `event` for `target` now, outside any change, and answers its first attempt's record. */
  async send(target: DeliveryTarget, event: OutboundEvent, options: { force?: boolean } = {}): Promise<DeliveryRecord> {
    const record = await this.stage(this.outbox, target, event, options);
    if (record.status !== 'pending') notify(this.c, record);
    this.wake();
    return record;
  }

  /** Writes into `log` a new delivery of the event of each of `old` (see `Staging.again`); none once closed. */
  restage(log: DeliveryLog, old: readonly StoredDelivery[]): Promise<DeliveryRecord[]> {
    return this.c.closed ? Promise.resolve([]) : this.staging.again(log, old);
  }

  // The rest.

  /** Attempts started whose outcome is not written yet. */
  get inFlight(): number {
    return this.slots.inFlight;
  }

  /**
   * Resolves once nothing is being staged, claimed, sent or in hand (an `onGone` callback), and nothing due is left
   * unclaimed for want of a pass. Retries waiting for their time do not count: they are the scheduler's.
   */
  async idle(): Promise<void> {
    const { work } = this.c;
    while (this.slots.inFlight > 0 || work.size > 0) {
      await Promise.all([...work.all(), ...Array.from({ length: this.slots.inFlight }, () => this.slots.settledOne())]);
    }
  }

  /** See `shutDown` (delivery/shutdown.ts). */
  close(graceMs: number): Promise<{ left: number | undefined }> {
    return shutDown(this.c, this.shutdown, graceMs);
  }
}
