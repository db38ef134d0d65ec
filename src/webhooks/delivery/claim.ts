import { setTimeout as delay } from 'node:timers/promises';
import { iso } from '../../model/time.ts';
import type { CurrentWebhook } from '../../store/outbox.ts';
import { gatherWait, type DeliveryContext } from './context.ts';
import type { FreshWebhooks } from './fresh.ts';
import type { Slots } from './slots.ts';

/** A lease outlasts the attempt's timeout by this much: waiting for a slot, signing, the settle write. */
const LEASE_MARGIN_MS = 5_000;

/** What a claim pass calls on besides the slots: the clock as the wake-up timers see it, and the wake-up timer. */
export interface ClaimHooks {
  /** The clock, or `asOf` or the instant the last wake-up timer fired for when later (epoch ms). */
  now(asOf?: number): number;
  wakeUpAt(at: number): void;
}

/**
 * Claim passes: one at a time, those asked for meanwhile coalesced into the next one, and on a durable store
 * `gatherMs` apart, so that under load one pass claims what many wake-ups asked for.
 */
export class Claims {
  /** A claim pass running (or waiting out `gatherMs` to begin). */
  private passing: Promise<void> | undefined;
  /** When the last claim pass began (`performance.now()`): see `gatherWait`. */
  private lastPassAt = -Infinity;
  /** Whether another pass was asked for meanwhile (and as of when), and whether it is to look ahead. */
  private again: number | undefined;
  private againLookAhead = false;

  constructor(
    private readonly c: DeliveryContext,
    private readonly slots: Slots,
    private readonly fresh: FreshWebhooks,
    private readonly hooks: ClaimHooks,
  ) {}

  /**
   * Asks for a claim pass now (a change committed, another instance announced deliveries, a slot came free, a
   * retry is due). `asOf`: claim what is due by then, even if the clock says earlier (a timer set for it fired).
   * `lookAhead`: then also find when the next delivery not yet due is, and set a wake-up for it: asked by the
   * start, the poll and the wake-up timer. The other wake-ups concern deliveries due now, and a retry this process
   * schedules sets its own wake-up, so they spare the database that query.
   */
  wake(asOf?: number, lookAhead = false): void {
    if (this.c.closed) return;
    if (this.passing) {
      this.again = Math.max(this.again ?? -Infinity, asOf ?? -Infinity);
      this.againLookAhead ||= lookAhead;
      return;
    }
    let pass: Promise<void>;
    const wait = gatherWait(this.c, this.lastPassAt);
    if (wait > 0) {
      // A pass right after the last one (changes and answers coming faster than claims): this one waits out the
      // rest of the gap, taking the wake-ups that come meanwhile, and claims their rows together.
      this.again = asOf ?? -Infinity;
      this.againLookAhead = lookAhead;
      pass = delay(wait);
    } else {
      this.lastPassAt = performance.now();
      // Traces on: the pass, and the attempts it starts, are not part of the trace of whoever woke it (a request).
      const { tracing } = this.c;
      pass = tracing ? tracing.detached(() => this.pass(asOf, lookAhead)) : this.pass(asOf, lookAhead);
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
    this.c.work.hold(pass);
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
    const { c, slots } = this;
    const answered = slots.takeAnswered();
    const share = c.s.perWebhookConcurrency;
    const holds = (webhookId: string) => share + Math.max(share, 2 * (answered.get(webhookId) ?? 0));
    try {
      for (;;) {
        if (c.closed) return;
        const room = slots.room();
        if (room <= 0) break;
        const now = new Date(this.hooks.now(asOf));
        const claimed = await c.outbox.claim({
          now: iso(now),
          leaseUntil: iso(new Date(now.getTime() + c.s.timeoutMs + LEASE_MARGIN_MS)),
          owner: c.owner,
          limit: room,
          perWebhook: 2 * share,
          room: new Map(
            [...new Set([...slots.held.keys(), ...answered.keys()])].map((id) => [
              id,
              holds(id) - (slots.held.get(id) ?? 0),
            ]),
          ),
        });
        // The webhook as it is now: as the claim read it (SQL) when it found it, or read here, once for the
        // deliveries to one webhook claimed together (`read` tells a deleted webhook from one the store does not
        // keep).
        const hooks = new Map<string, Promise<CurrentWebhook | undefined>>();
        claimed.sort((a, b) => (a.dueAt < b.dueAt ? -1 : a.dueAt > b.dueAt ? 1 : 0));
        const readAt = performance.now();
        for (const { webhook, ...row } of claimed) {
          let hook = hooks.get(row.webhookId);
          if (!hook) {
            hook = webhook ? Promise.resolve(webhook) : this.fresh.read(row.webhookId);
            hooks.set(row.webhookId, hook);
          }
          slots.add(row, hook, readAt, this.fresh.seen(row.webhookId));
        }
        slots.startReady();
        if (claimed.length < room) break;
      }
      // What is due already but was not claimed waits for a slot (its release wakes us) or was added meanwhile (its
      // wake asks for another pass); what is due later gets a wake-up at its time.
      if (!lookAhead) return;
      const next = await c.outbox.nextDue(iso(new Date(this.hooks.now(asOf))));
      if (next === null) return;
      // Due by the time the answer came (rows added meanwhile, under a steady flow of changes): a plain pass claims
      // them. A wake-up would look ahead again and find the next ones just added, one query after another.
      const at = Date.parse(next);
      if (at <= this.hooks.now()) this.wake(at);
      else this.hooks.wakeUpAt(at);
    } catch (err) {
      c.s.log.error({ err }, 'webhook deliveries could not be claimed');
    }
  }
}
