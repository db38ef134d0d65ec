import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { iso } from '../model/time.ts';
import { MemoryDeliveryLog } from '../store/memory/deliveries.ts';
import type { Page } from '../model/list.ts';
import { resolveOptions, type CurrentWebhook, type DispatcherOptions as Options, type Settings } from './options.ts';
import { recordOf, type DeliveryLog, type DeliveryQuery, type Outcome, type StoredDelivery } from './outbox.ts';
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

/** A claimed attempt, from its claim until its outcome is written. */
interface InFlight {
  readonly row: StoredDelivery;
  /**
   * The webhook as it was read for the deliveries to it claimed together, with when (`performance.now()`) and the
   * webhook's `changes` count then: read again when the attempt starts later than `FRESH_MS` after, or after a change
   * to the webhook committed here (see `refresh`).
   */
  hook: Promise<CurrentWebhook | undefined>;
  readAt: number;
  seen: number;
  /** Whether it has given back its slot (its request is over, or was never made). */
  freed: boolean;
}

/** An outcome waiting to be written, with what its writing causes and whom to tell. */
interface Unwritten extends Outcome {
  readonly written: { resolve: (kept: boolean) => void; reject: (err: unknown) => void };
}

const DROP_LOG_INTERVAL_MS = 10_000;
/** URLs whose precheck is remembered (forgotten all at once past this many). */
const PRECHECKS_KEPT = 1_000;
/** A lease outlasts the attempt's timeout by this much: waiting for a slot, signing, the settle write. */
const LEASE_MARGIN_MS = 5_000;
/**
 * A row claimed ahead is started only while its lease has the attempt's timeout and this much left; past that
 * (it waited behind a receiver that became slow) it is given back to the outbox instead.
 */
const LEASE_START_MARGIN_MS = 1_000;
/** At close, how long the bookkeeping under way and after the attempts may take (see `close`). */
const BOOKKEEPING_MS = 1_000;
/**
 * How long a webhook read with a claim serves the attempts claimed with it. A row claimed ahead can wait seconds for
 * a slot (behind a slow receiver); past this, its attempt reads the webhook again, so that a URL changed or a
 * webhook switched off or deleted on another instance stops the attempts that start after the change. A change
 * committed in this process is seen at once (`changed`).
 */
const FRESH_MS = 50;
/** How often a durable store's old attempt records are pruned. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Delivers events to webhooks in the background, from an outbox (outbox.ts): each delivery is a row written with
 * the change that caused it; workers claim due rows, at most `concurrency` in flight and `perWebhookConcurrency`
 * per webhook (so a receiver that hangs holds only its own share), make the attempt with the webhook as it is now,
 * record it, and add the next attempt of a failed one, due when the retry schedule says. The dispatcher is woken
 * at once when a change commits (in-process) or is announced (LISTEN/NOTIFY on PostgreSQL), by a timer at the next
 * due time, and by a poll on a durable store as a backstop. Nothing here throws into, or waits on, the caller.
 */
export class WebhookDispatcher {
  private readonly s: Settings;
  private readonly outbox: DeliveryLog;
  private announcing = false;
  private readonly agent: Dispatcher;
  private readonly owner = randomUUID();
  private readonly prechecked = new Map<string, AttemptResult | null>();
  private readonly bodies = new WeakMap<OutboundEvent, string>();
  /** Attempts cut short by the shutdown, to give back to the outbox. */
  private readonly cut: string[] = [];
  private readonly shutdown = new AbortController();
  private readonly timers: Scheduler;
  private readonly observer: DeliveryObserver | undefined;
  /** Targets given to `enqueue`, for the default `current`. */
  private readonly known = new Map<string, DeliveryTarget>();
  /** Attempts started whose outcome is not written yet (their request may be over). */
  private readonly inFlight = new Map<string, InFlight>();
  /**
   * Claimed ahead, in the order claimed, waiting for a slot: a claim keeps these and the slots taken within twice
   * `concurrency`.
   */
  private ready: InFlight[] = [];
  /** Requests under way (the slots taken), in all and per webhook. */
  private sending = 0;
  private readonly sendingTo = new Map<string, number>();
  /** Changes to each webhook committed in this process (`changed`): a read before one is stale. */
  private readonly changes = new Map<string, number>();
  /** The last read of each webhook made for an attempt starting late, shared by those starting within `FRESH_MS`. */
  private readonly reread = new Map<string, { at: number; seen: number; hook: Promise<CurrentWebhook | undefined> }>();
  /** Rows held per webhook, sending or ready: what a claim counts against a webhook's share. */
  private readonly held = new Map<string, number>();
  /** Answers per webhook since the last claim pass began (timeouts aside): how fast each receiver takes its rows. */
  private answered = new Map<string, number>();
  /**
   * Outcomes waiting to be written, and whether a write is under way or waiting out `gatherMs`: one statement for
   * all that wait meanwhile.
   */
  private unwritten: Unwritten[] = [];
  private writing = false;
  /** Work in hand outside the attempts: staging, claim passes, `onGone` callbacks; {@link idle} waits for it. */
  private readonly inHand = new Set<Promise<void>>();
  /** The next wake-up on `timers`, at an instant (epoch ms). */
  private wakeAt: { at: number; timer: unknown } | undefined;
  private poll: NodeJS.Timeout | undefined;
  private prune: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  /**
   * A claim pass running (or waiting out `gatherMs` to begin), and whether another was asked for meanwhile (and as
   * of when).
   */
  private passing: Promise<void> | undefined;
  /** When the last claim pass and the last outcome write began (`performance.now()`): see {@link gatherWait}. */
  private lastPassAt = -Infinity;
  private lastWriteAt = -Infinity;
  private again: number | undefined;
  private againLookAhead = false;
  /** The latest instant a wake-up timer fired for: what is due by then is due, whatever the clock says. */
  private firedUpTo = -Infinity;
  private droppedSinceLog = 0;
  private lastDropLog = -Infinity;
  private closed = false;

  constructor(options: DispatcherOptions) {
    this.s = resolveOptions(options);
    this.timers = options.scheduler ?? realTimers;
    this.observer = options.observer;
    this.outbox = this.s.outbox ?? new MemoryDeliveryLog(this.s.historyPerWebhook);
    if (this.outbox instanceof MemoryDeliveryLog) this.outbox.bound(this.s.historyPerWebhook);
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
    this.hold(this.start());
  }

  /** Listens for other instances' deliveries, prunes and polls (durable stores), and makes a first pass. */
  private async start(): Promise<void> {
    if (this.outbox.durable) {
      try {
        const unlisten = await this.outbox.listen?.(() => this.wake());
        if (this.closed) await unlisten?.();
        else this.unlisten = unlisten;
      } catch (err) {
        this.s.log.warn({ err }, 'webhook deliveries: not listening for other instances (polling instead)');
      }
      if (this.closed) return;
      this.poll = setInterval(() => this.wake(undefined, true), this.s.pollMs);
      this.poll.unref();
      this.prune = setInterval(() => this.hold(this.pruneOld()), PRUNE_INTERVAL_MS);
      this.prune.unref();
      this.hold(this.pruneOld());
    }
    this.wake(undefined, true);
  }

  /**
   * Writes the first attempt of `event` to `target` into `log`: the transaction's own (a change's deliveries commit
   * with it) or the outbox. In memory, a full outbox records the attempt as failed `queue full` instead.
   */
  async stage(
    log: DeliveryLog,
    target: DeliveryTarget,
    event: OutboundEvent,
    options: { force?: boolean } = {},
  ): Promise<DeliveryRecord> {
    let payload = '';
    let unusable: string | undefined;
    try {
      payload = this.bodyOf(event);
    } catch (err) {
      // Cannot happen with the service's own records; final, since no retry would fare better.
      this.s.log.error({ err, webhookId: target.id, eventId: event.id }, 'webhook payload could not be serialized');
      unusable = `could not be signed: ${describeError(err)}`;
    }
    const row = this.newRow(target.id, event.id, event.type, payload, 1, this.s.clock.now());
    row.force = options.force ?? false;
    if (unusable !== undefined) {
      Object.assign(row, {
        status: 'failed',
        error: unusable,
        completedAt: row.createdAt,
        stopReason: 'undeliverable',
      });
    }
    // A target that no attempt can reach (an unusable URL, a reserved name: the seeded webhooks) gets its one,
    // final attempt recorded now, with the webhook as it is now, instead of waiting for a worker to find so.
    const final = unusable === undefined ? this.precheck(target.url) : null;
    if (final) {
      Object.assign(row, {
        status: 'failed',
        error: final.error,
        durationMs: final.durationMs,
        completedAt: row.createdAt,
        url: target.url,
        queuedMs: 0,
        stopReason: 'undeliverable',
      });
    }
    // In memory the check and the add happen in one turn (the memory log's `add` writes before it yields), so
    // deliveries staged together cannot all see room for one more.
    if (log instanceof MemoryDeliveryLog && log.waitingNow() >= this.s.maxQueue) {
      Object.assign(row, { status: 'failed', error: 'queue full', completedAt: row.createdAt });
      this.warnDropped(target.id, event.id, event.type);
    }
    await log.add([row]);
    return recordOf(row);
  }

  /** Tells the observer of attempts recorded as final when staged in a change that has now committed. */
  recorded(records: readonly DeliveryRecord[]): void {
    for (const record of records) this.notify(record);
  }

  /** Queues `event` for `target` now, outside any change. Never throws, never waits. */
  enqueue(target: DeliveryTarget, event: OutboundEvent, options: { force?: boolean } = {}): void {
    if (this.closed) {
      return this.s.log.warn(
        { webhookId: target.id, eventId: event.id },
        'webhook dispatcher closed: delivery not queued',
      );
    }
    this.known.set(target.id, target);
    this.hold(
      this.stage(this.outbox, target, event, options).then(
        (record) => {
          if (record.status !== 'pending') this.notify(record);
          this.wake();
        },
        (err: unknown) =>
          this.s.log.error({ err, webhookId: target.id, eventId: event.id }, 'webhook delivery could not be queued'),
      ),
    );
  }

  /** Queues `event` for `target` and answers its first attempt's record. */
  async send(target: DeliveryTarget, event: OutboundEvent, options: { force?: boolean } = {}): Promise<DeliveryRecord> {
    this.known.set(target.id, target);
    const record = await this.stage(this.outbox, target, event, options);
    if (record.status !== 'pending') this.notify(record);
    this.wake();
    return record;
  }

  /** Attempt records of a webhook, newest first. */
  async deliveries(webhookId: string, query?: DeliveryQuery): Promise<DeliveryRecord[]> {
    return (await this.outbox.list(webhookId, query)).map(recordOf);
  }

  /** A page of a webhook's attempt records, newest first (`DeliveryLog.page`). */
  async deliveryPage(webhookId: string, query: DeliveryQuery): Promise<Page<DeliveryRecord>> {
    const page = await this.outbox.page(webhookId, query);
    return { ...page, items: page.items.map(recordOf) };
  }

  /**
   * Sends a recorded delivery's event again (same `webhook-id`) as a new delivery, with its own retries, to the
   * webhook as it is when the attempt is made (active or not). `undefined` when there is no such record (or the
   * dispatcher is closed).
   */
  async redeliver(webhookId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    if (this.closed) return undefined;
    const old = await this.outbox.find(webhookId, deliveryId);
    if (!old) return undefined;
    const row = this.newRow(webhookId, old.eventId, old.eventType, old.payload, 1, this.s.clock.now());
    row.force = true;
    await this.outbox.add([row]);
    this.wake();
    return recordOf(row);
  }

  /**
   * Redelivers every event whose delivery to the webhook ended failed (no later attempt succeeded, no retry
   * pending) among the attempts made since `since`. Answers the new first attempts. One call at a time per webhook,
   * here and on every instance sharing the outbox: a second call made meanwhile finds the first one's new attempts
   * pending, and redelivers nothing twice.
   */
  async redeliverFailed(webhookId: string, since: string): Promise<DeliveryRecord[]> {
    const out = await this.outbox.exclusively(webhookId, (log) => this.redeliverFailedIn(log, webhookId, since));
    if (out.length > 0) this.wake(); // once committed
    return out;
  }

  private async redeliverFailedIn(log: DeliveryLog, webhookId: string, since: string): Promise<DeliveryRecord[]> {
    if (this.closed) return [];
    const rows = await log.list(webhookId, { since });
    const latest = new Map<string, StoredDelivery>();
    for (const row of rows) if (!latest.has(row.eventId)) latest.set(row.eventId, row); // newest first
    const out: DeliveryRecord[] = [];
    const again: StoredDelivery[] = [];
    for (const old of [...latest.values()].reverse()) {
      if (old.status !== 'failed' && old.status !== 'refused') continue;
      const row = this.newRow(webhookId, old.eventId, old.eventType, old.payload, 1, this.s.clock.now());
      row.force = true;
      again.push(row);
      out.push(recordOf(row));
    }
    if (again.length > 0) await log.add(again);
    return out;
  }

  /** Drops what is kept of a deleted webhook where the log is bounded per webhook (memory). */
  forget(webhookId: string): void {
    this.known.delete(webhookId);
    this.hold(
      this.outbox
        .forget(webhookId)
        .catch((err: unknown) => this.s.log.error({ err, webhookId }, 'webhook delivery log could not be dropped')),
    );
  }

  /**
   * Tells the other instances that deliveries were added (a change that staged some has committed): one
   * announcement for every change committed in one turn of the event loop.
   */
  announce(): void {
    if (this.announcing || !this.outbox.announce) return;
    this.announcing = true;
    setImmediate(() => {
      this.announcing = false;
      if (this.closed) return;
      this.hold(
        this.outbox.announce!().catch((err: unknown) =>
          this.s.log.warn({ err }, 'webhook deliveries: other instances not told of new deliveries (they poll)'),
        ),
      );
    });
  }

  /**
   * Asks for a claim pass now (a change committed, another instance announced deliveries, a slot came free, a
   * retry is due). `asOf`: claim what is due by then, even if the clock says earlier (a timer set for it fired).
   * `lookAhead`: then also find when the next delivery not yet due is, and set a wake-up for it: asked by the
   * start, the poll and the wake-up timer. The other wake-ups concern deliveries due now, and a retry this process
   * schedules sets its own wake-up, so they spare the database that query.
   */
  wake(asOf?: number, lookAhead = false): void {
    if (this.closed) return;
    if (this.passing) {
      this.again = Math.max(this.again ?? -Infinity, asOf ?? -Infinity);
      this.againLookAhead ||= lookAhead;
      return;
    }
    let pass: Promise<void>;
    const wait = this.gatherWait(this.lastPassAt);
    if (wait > 0) {
      // A pass right after the last one (changes and answers coming faster than claims): this one waits out the
      // rest of the gap, taking the wake-ups that come meanwhile, and claims their rows together.
      this.again = asOf ?? -Infinity;
      this.againLookAhead = lookAhead;
      pass = delay(wait);
    } else {
      this.lastPassAt = performance.now();
      pass = this.pass(asOf, lookAhead);
    }
    pass = pass.finally(() => {
      this.passing = undefined;
      if (this.again !== undefined) {
        const next = this.again;
        const nextLookAhead = this.againLookAhead;
        this.again = undefined;
        this.againLookAhead = false;
        this.wake(next === -Infinity ? undefined : next, nextLookAhead);
      }
    });
    this.passing = pass;
    this.hold(pass);
  }

  /**
   * Resolves once nothing is being staged, claimed, sent or in hand (an `onGone` callback), and nothing due is left
   * unclaimed for want of a pass. Retries waiting for their time do not count: they are the scheduler's.
   */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0 || this.inHand.size > 0) {
      await Promise.all([...this.inHand, ...[...this.inFlight.values()].map(() => this.settledOne())]);
    }
  }

  /** Deliveries waiting (due or not, in flight included) and in flight in this process. */
  async stats(): Promise<{ pending: number; inFlight: number }> {
    return { pending: await this.outbox.pending(), inFlight: this.inFlight.size };
  }

  /**
   * Stops claiming, lets attempts in flight finish (their outcomes written) for up to `graceMs`, then aborts them:
   * each one cut short is given back to the outbox, still pending and due at once, for the next start or another
   * instance. Answers how many were left so (with the memory store, every pending delivery: it goes with the
   * process; undefined when the store did not answer in time to count them).
   *
   * The rest of what is under way (a claim, a delivery being queued, the pruning) and the steps after the attempts
   * (giving rows back, the count) are only bookkeeping: they get `BOOKKEEPING_MS` past the attempts, no more, so that
   * a database that stopped answering does not hold the stop until its statement timeout. What they leave undone is
   * safe: rows claimed and not given back wait for their lease to run out, then any instance takes them.
   */
  async close(graceMs: number): Promise<{ left: number | undefined }> {
    if (this.closed) return { left: 0 };
    this.closed = true;
    // The grace period starts now, whatever the steps below wait for.
    let graceTimer: unknown;
    const graceOver = new Promise<void>((resolve) => (graceTimer = this.timers.setTimeout(resolve, graceMs)));
    clearInterval(this.poll);
    clearInterval(this.prune);
    if (this.wakeAt) this.timers.clearTimeout(this.wakeAt.timer);
    this.wakeAt = undefined;
    await this.unlisten?.().catch(() => {});
    await Promise.race([this.allSettled(), graceOver]);
    this.timers.clearTimeout(graceTimer);
    if (this.inFlight.size > 0) {
      this.s.log.warn(
        { count: this.inFlight.size },
        'webhook requests still in flight after the grace period: aborting, left for retry',
      );
      this.shutdown.abort();
      await this.allSettled();
    }
    let bookkeepingTimer: unknown;
    const bookkeepingOver = new Promise<undefined>(
      (resolve) => (bookkeepingTimer = this.timers.setTimeout(() => resolve(undefined), BOOKKEEPING_MS)),
    );
    const inTime = <T>(work: Promise<T>) => Promise.race([work, bookkeepingOver]);
    await inTime(Promise.all(this.inHand));
    // Rows claimed ahead and not started go back to the outbox, with the attempts cut short.
    for (const flight of this.ready) this.cut.push(flight.row.id);
    this.ready = [];
    if (this.cut.length > 0) await inTime(this.outbox.release(this.cut, this.owner).catch(() => {}));
    // Nothing to count when the store is gone or does not answer.
    const left = await inTime(this.outbox.pending().catch(() => undefined));
    this.timers.clearTimeout(bookkeepingTimer);
    if (left !== undefined && left > 0) {
      const where = this.outbox.durable ? 'left in the outbox for retry' : 'dropped with the memory store';
      this.s.log.warn({ count: left }, `webhook deliveries not yet made at shutdown: ${where}`);
    }
    if (!this.s.dispatcher) await this.agent.destroy().catch(() => {});
    return { left };
  }

  /**
   * How long a claim pass or an outcome write that would begin now waits, the last one having begun at `since`
   * (`performance.now()`): on a durable store, what comes within `gatherMs` of the last one goes in one statement
   * (options.ts). Alone, a pass or a write goes at once.
   */
  private gatherWait(since: number): number {
    return this.outbox.durable ? since + this.s.gatherMs - performance.now() : 0;
  }

  /** Resolves when nothing is in flight. */
  private async allSettled(): Promise<void> {
    while (this.inFlight.size > 0) await this.settledOne();
  }

  private settledWaiters: (() => void)[] = [];
  /** Resolves when the next attempt in flight settles. */
  private settledOne(): Promise<void> {
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /**
   * Claims what is due and starts what a slot is free for; then sets the next wake-up. A claim takes, besides the
   * free slots, rows ahead (`concurrency` more in all): a slot freed by an answer goes to the next row at once,
   * instead of after a claim's round trip, and a claim under load takes several rows at a time instead of one per
   * freed slot. Ahead of a webhook's share, a claim takes as many rows again, or twice what its receiver answered
   * since the last pass when that is more: a receiver that answers fast has the rows it will take before the next
   * pass (passes are `gatherMs` apart under load), where a fixed number would cap its rate at that number a gap; one
   * that hangs answers nothing and keeps twice its share.
   */
  private async pass(asOf: number | undefined, lookAhead: boolean): Promise<void> {
    const answered = this.answered;
    this.answered = new Map();
    const share = this.s.perWebhookConcurrency;
    const holds = (webhookId: string) => share + Math.max(share, 2 * (answered.get(webhookId) ?? 0));
    try {
      for (;;) {
        if (this.closed) return;
        const room = 2 * this.s.concurrency - this.sending - this.ready.length;
        if (room <= 0) break;
        const now = new Date(this.now(asOf));
        const claimed = await this.outbox.claim({
          now: iso(now),
          leaseUntil: iso(new Date(now.getTime() + this.s.timeoutMs + LEASE_MARGIN_MS)),
          owner: this.owner,
          limit: room,
          perWebhook: 2 * share,
          room: new Map(
            [...new Set([...this.held.keys(), ...answered.keys()])].map((id) => [
              id,
              holds(id) - (this.held.get(id) ?? 0),
            ]),
          ),
        });
        // The webhook as it is now: as the claim read it (SQL) when it found it, or read here, once for the
        // deliveries to one webhook claimed together (`current` tells a deleted webhook from one the store does not
        // keep, such as a target given to `enqueue`).
        const hooks = new Map<string, Promise<CurrentWebhook | undefined>>();
        claimed.sort((a, b) => (a.dueAt < b.dueAt ? -1 : a.dueAt > b.dueAt ? 1 : 0));
        const readAt = performance.now();
        for (const { webhook, ...row } of claimed) {
          let hook = hooks.get(row.webhookId);
          if (!hook) {
            hook = webhook ? Promise.resolve(webhook) : this.current(row.webhookId);
            hooks.set(row.webhookId, hook);
          }
          this.ready.push({ row, hook, readAt, seen: this.changes.get(row.webhookId) ?? 0, freed: false });
          count(this.held, row.webhookId, 1);
        }
        this.startReady();
        if (claimed.length < room) break;
      }
      // What is due already but was not claimed waits for a slot (its release wakes us) or was added meanwhile (its
      // wake asks for another pass); what is due later gets a wake-up at its time.
      if (!lookAhead) return;
      const next = await this.outbox.nextDue(iso(new Date(this.now(asOf))));
      if (next === null) return;
      // Due by the time the answer came (rows added meanwhile, under a steady flow of changes): a plain pass claims
      // them. A wake-up would look ahead again and find the next ones just added, one query after another.
      const at = Date.parse(next);
      if (at <= this.now()) this.wake(at);
      else this.wakeUpAt(at);
    } catch (err) {
      this.s.log.error({ err }, 'webhook deliveries could not be claimed');
    }
  }

  /**
   * Starts the ready rows, in the order claimed, that a slot (of all, and of their webhook) is free for. One whose
   * lease no longer covers an attempt (it waited behind a receiver that became slow) is given back instead, so an
   * attempt never outlasts its lease and another instance never makes it at the same time.
   */
  private startReady(): void {
    if (this.closed) return;
    const now = this.now();
    const stale: string[] = [];
    for (let i = 0; i < this.ready.length && this.sending < this.s.concurrency;) {
      const flight = this.ready[i]!;
      const { id, webhookId, leaseUntil } = flight.row;
      if ((this.sendingTo.get(webhookId) ?? 0) >= this.s.perWebhookConcurrency) {
        i++;
        continue;
      }
      this.ready.splice(i, 1);
      if (Date.parse(leaseUntil!) - now < this.s.timeoutMs + LEASE_START_MARGIN_MS) {
        count(this.held, webhookId, -1);
        stale.push(id);
      } else {
        this.begin(flight);
      }
    }
    if (stale.length === 0) return;
    this.hold(
      this.outbox.release(stale, this.owner).then(
        () => this.wake(),
        (err: unknown) => this.s.log.warn({ err }, 'webhook deliveries could not be given back (their lease runs out)'),
      ),
    );
  }

  /** The clock, or the instant the last wake-up timer fired for when that is later (epoch ms). */
  private now(asOf = -Infinity): number {
    return Math.max(this.s.clock.now().getTime(), asOf, this.firedUpTo);
  }

  /** Sets the wake-up timer for `at` unless one is set for no later. */
  private wakeUpAt(at: number, now = this.now()): void {
    if (this.closed) return;
    if (this.wakeAt && this.wakeAt.at <= at) return;
    if (this.wakeAt) this.timers.clearTimeout(this.wakeAt.timer);
    const timer = this.timers.setTimeout(
      () => {
        if (this.wakeAt?.timer === timer) this.wakeAt = undefined;
        this.firedUpTo = Math.max(this.firedUpTo, at);
        this.wake(at, true);
      },
      Math.max(0, at - now),
    );
    this.wakeAt = { at, timer };
  }

  /** Starts a ready row's attempt in a free slot. */
  private begin(flight: InFlight): void {
    const { row } = flight;
    this.refresh(flight);
    this.inFlight.set(row.id, flight);
    this.sending++;
    count(this.sendingTo, row.webhookId, 1);
    void this.run(flight).finally(() => {
      this.free(flight);
      this.inFlight.delete(row.id);
      for (const wake of this.settledWaiters.splice(0)) wake();
    });
  }

  /**
   * Gives back an attempt's slot once its request is over (or was never to be made), before its outcome is written:
   * the next ready row takes the slot at once, and a pass claims more. `answered`: counted towards the rows its
   * webhook is claimed ahead (not a timeout: a receiver that hangs gains nothing ahead).
   */
  private free(flight: InFlight, answered = true): void {
    if (flight.freed) return;
    flight.freed = true;
    const { webhookId } = flight.row;
    if (answered) count(this.answered, webhookId, 1);
    this.sending--;
    count(this.sendingTo, webhookId, -1);
    count(this.held, webhookId, -1);
    this.startReady();
    this.wake();
  }

  /** One attempt, from reading the webhook to recording the outcome. Never rejects. */
  private async run(flight: InFlight): Promise<void> {
    const { row } = flight;
    try {
      const hook = await flight.hook;
      const started = this.s.clock.now();
      const queuedMs = Math.max(0, started.getTime() - Date.parse(row.dueAt));
      if (!hook || (!hook.active && !row.force)) {
        this.free(flight);
        const reason = hook ? 'cancelled: webhook inactive' : 'cancelled: webhook deleted';
        this.s.log.info({ webhookId: row.webhookId, eventId: row.eventId }, `webhook delivery ${reason}`);
        return await this.record({
          ...row,
          status: 'failed',
          error: reason,
          stopReason: reason,
          queuedMs,
          completedAt: iso(started),
        });
      }
      const result = this.precheck(hook.url) ?? (await this.attempt(row, hook));
      this.free(flight, result.outcome !== 'timeout');
      if (result.outcome === 'aborted' && this.closed) return void this.cut.push(row.id); // given back at close
      await this.settle(flight, hook, result, queuedMs);
    } catch (err) {
      this.s.log.error({ err, webhookId: row.webhookId, eventId: row.eventId }, 'webhook delivery bookkeeping failed');
    }
  }

  /**
   * A webhook changed in a change committed in this process (a URL, `active`, a delete): attempts starting from
   * now read it again.
   */
  changed(webhookId: string): void {
    count(this.changes, webhookId, 1);
    this.reread.delete(webhookId);
  }

  /**
   * Reads the webhook again for an attempt starting more than `FRESH_MS` after its claim read it, or after a change
   * to it here; one read serves the attempts to the webhook that start within `FRESH_MS` of it.
   */
  private refresh(flight: InFlight): void {
    const { webhookId } = flight.row;
    const now = performance.now();
    const seen = this.changes.get(webhookId) ?? 0;
    if (now - flight.readAt <= FRESH_MS && flight.seen === seen) return;
    let last = this.reread.get(webhookId);
    if (!last || now - last.at > FRESH_MS || last.seen !== seen) {
      last = { at: now, seen, hook: this.current(webhookId) };
      this.reread.set(webhookId, last);
      if (this.reread.size > PRECHECKS_KEPT) this.reread.clear();
    }
    Object.assign(flight, { hook: last.hook, readAt: last.at, seen });
  }

  /** The webhook as it is now. */
  private async current(webhookId: string): Promise<CurrentWebhook | undefined> {
    if (this.s.current) return this.s.current(webhookId);
    const target = this.known.get(webhookId);
    if (!target) return undefined;
    let active = true;
    try {
      if (this.s.isActive) active = await this.s.isActive(webhookId);
    } catch (err) {
      this.s.log.error({ err, webhookId }, 'webhook isActive check failed: sending anyway');
    }
    return { ...target, active };
  }

  /**
   * Writes an attempt's outcome (and the attempt that follows), with the others that come while a write is under
   * way; then what the outcome causes, then tells the observer.
   */
  private async record(done: StoredDelivery, next?: StoredDelivery, then?: () => Promise<void>): Promise<void> {
    const kept = await new Promise<boolean>((resolve, reject) => {
      this.unwritten.push({ done, next, written: { resolve, reject } });
      this.writeOutcomes();
    });
    if (!kept) {
      this.s.log.warn(
        { webhookId: done.webhookId, eventId: done.eventId, deliveryId: done.id },
        'webhook delivery lease lost (the attempt outlasted it): outcome not recorded',
      );
      return;
    }
    if (next) this.wakeUpAt(Date.parse(next.dueAt), Date.parse(done.completedAt!));
    await then?.(); // what the outcome causes (a 410 switching the webhook off), before the observer hears of it
    this.notify(recordOf(done));
  }

  /**
   * Writes the outcomes waiting, in one statement, unless a write is under way or (a durable store) began less than
   * `gatherMs` ago: then they wait for it, with those that come meanwhile. Under load a write carries many
   * outcomes; alone, one goes at once.
   */
  private writeOutcomes(): void {
    if (this.writing || this.unwritten.length === 0) return;
    const wait = this.gatherWait(this.lastWriteAt);
    if (wait > 0) {
      this.writing = true;
      void delay(wait).then(() => {
        this.writing = false;
        this.writeOutcomes();
      });
      return;
    }
    this.lastWriteAt = performance.now();
    const batch = this.unwritten;
    this.unwritten = [];
    this.writing = true;
    this.outbox
      .settle(batch, this.owner)
      .then(
        (kept) => {
          for (const o of batch) o.written.resolve(kept.has(o.done.id));
        },
        (err: unknown) => {
          for (const o of batch) o.written.reject(err);
        },
      )
      .finally(() => {
        this.writing = false;
        this.writeOutcomes();
      });
  }

  private newRow(
    webhookId: string,
    eventId: string,
    eventType: string,
    payload: string,
    attempt: number,
    at: Date,
  ): StoredDelivery & { force: boolean } {
    return {
      id: this.s.ids('dlv'),
      webhookId,
      eventId,
      eventType,
      attempt,
      status: 'pending',
      responseStatus: null,
      error: null,
      durationMs: null,
      createdAt: iso(at),
      completedAt: null,
      nextAttemptAt: null,
      url: null,
      queuedMs: null,
      stopReason: null,
      payload,
      dueAt: iso(at),
      force: false,
      leaseUntil: null,
      leasedBy: null,
    };
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

  private async attempt(row: StoredDelivery, hook: DeliveryTarget): Promise<AttemptResult> {
    const seconds = Math.floor(this.s.clock.now().getTime() / 1000);
    let body: string;
    let headers: Record<string, string>;
    try {
      body = row.payload;
      headers = webhookHeaders(signingKey(hook.secret), row.eventId, seconds, body);
    } catch (err) {
      // Cannot happen with the service's own secrets and records; final, since no retry would fare better.
      this.s.log.error({ err, webhookId: row.webhookId, eventId: row.eventId }, 'webhook delivery could not be signed');
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
      url: hook.url,
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

  /** The payload of an event, made when first queued (and shared by its deliveries to several webhooks). */
  private bodyOf(event: OutboundEvent): string {
    let body = this.bodies.get(event);
    if (body === undefined) this.bodies.set(event, (body = JSON.stringify(eventBody(event))));
    return body;
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

  /** Records an attempt's result and what comes next: nothing, or the next attempt, due when the schedule says. */
  private async settle(flight: InFlight, hook: CurrentWebhook, result: AttemptResult, queuedMs: number): Promise<void> {
    const { row } = flight;
    const { responseStatus, error, durationMs } = result;
    const now = this.s.clock.now();
    const log = { webhookId: row.webhookId, eventId: row.eventId, attempt: row.attempt, status: responseStatus, error };
    const done: StoredDelivery = {
      ...row,
      status: 'failed',
      responseStatus,
      error,
      durationMs,
      completedAt: iso(now),
      nextAttemptAt: null,
      url: hook.url,
      queuedMs,
      stopReason: null,
    };
    if (result.outcome === 'ok') {
      done.status = 'succeeded';
      this.s.log.debug(log, 'webhook delivery succeeded');
      return this.record(done);
    }
    if (result.outcome === 'refused') {
      Object.assign(done, { status: 'refused', stopReason: 'refused' });
      this.s.log.warn(log, 'webhook delivery refused');
      return this.record(done);
    }
    if (result.outcome === 'invalid') return this.record({ ...done, stopReason: 'undeliverable' });
    if (responseStatus === 410) {
      this.s.log.info(log, 'webhook receiver answered 410 Gone: no retry');
      done.stopReason = 'gone (410)';
      const { onGone } = this.s;
      return this.record(done, undefined, async () => {
        if (!onGone) return;
        await Promise.resolve()
          .then(() => onGone(row.webhookId, hook.url))
          .catch((err: unknown) =>
            this.s.log.error({ err, webhookId: row.webhookId }, 'webhook onGone callback failed'),
          );
      });
    }
    const delay = delayBeforeRetry(row.attempt, result.retryAfter, now, this.s);
    if (delay === null) {
      this.s.log.warn(log, 'webhook delivery failed: retries exhausted');
      done.stopReason = 'exhausted';
      return this.record(done);
    }
    const due = new Date(now.getTime() + delay);
    done.nextAttemptAt = iso(due);
    const next = this.newRow(row.webhookId, row.eventId, row.eventType, row.payload, row.attempt + 1, now);
    // What was asked for by hand (a ping, a redelivery) is made once whether the webhook is active or not; its
    // retries, like any, stop once the webhook is switched off.
    next.force = false;
    next.dueAt = iso(due);
    this.s.log.debug({ ...log, delayMs: delay }, 'webhook delivery failed: retry scheduled');
    return this.record(done, next);
  }

  private async pruneOld(): Promise<void> {
    try {
      const before = iso(new Date(this.s.clock.now().getTime() - this.s.historyDays * DAY_MS));
      const n = await this.outbox.prune(before);
      if (n > 0) this.s.log.info({ count: n, before }, 'webhook delivery log: old attempts pruned');
    } catch (err) {
      this.s.log.warn({ err }, 'webhook delivery log could not be pruned');
    }
  }
}

/** Adds `by` to a count kept per key, dropping the key at zero. */
function count(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
