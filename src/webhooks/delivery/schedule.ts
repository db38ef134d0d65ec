import { iso } from '../../model/time.ts';
import type { DeliveryContext } from './context.ts';

/** How often a durable store's old attempt records are pruned. */
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A claim pass: see `Claims.wake`. */
export type Wake = (asOf?: number, lookAhead?: boolean) => void;

/**
 * When the workers look at the outbox besides the wake-ups of this process: the wake-up timer at the next due time,
 * the notifications of other instances (LISTEN), a poll as a backstop and the hourly pruning (durable stores); and
 * the announcements this process makes to the others (NOTIFY).
 */
export class Schedule {
  /** The next wake-up on the timers, at an instant (epoch ms). */
  private wakeAt: { at: number; timer: unknown } | undefined;
  /** The latest instant a wake-up timer fired for: what is due by then is due, whatever the clock says. */
  private firedUpTo = -Infinity;
  private poll: NodeJS.Timeout | undefined;
  private prune: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private announcing = false;

  constructor(
    private readonly c: DeliveryContext,
    private readonly wake: Wake,
  ) {}

  /** The clock, or `asOf` or the instant the last wake-up timer fired for when that is later (epoch ms). */
  now(asOf = -Infinity): number {
    return Math.max(this.c.s.clock.now().getTime(), asOf, this.firedUpTo);
  }

  /** Listens for other instances' deliveries, prunes and polls (durable stores), and makes a first pass. */
  async start(): Promise<void> {
    const { c } = this;
    if (c.outbox.durable) {
      try {
        const unlisten = await c.outbox.listen?.(() => this.wake());
        if (c.closed) await unlisten?.();
        else this.unlisten = unlisten;
      } catch (err) {
        c.s.log.warn({ err }, 'webhook deliveries: not listening for other instances (polling instead)');
      }
      if (c.closed) return;
      this.poll = setInterval(() => this.wake(undefined, true), c.s.pollMs);
      this.poll.unref();
      this.prune = setInterval(() => c.work.hold(this.pruneOld()), PRUNE_INTERVAL_MS);
      this.prune.unref();
      c.work.hold(this.pruneOld());
    }
    this.wake(undefined, true);
  }

  /** Sets the wake-up timer for `at` unless one is set for no later. */
  wakeUpAt(at: number, now = this.now()): void {
    const { c } = this;
    if (c.closed) return;
    if (this.wakeAt && this.wakeAt.at <= at) return;
    if (this.wakeAt) c.timers.clearTimeout(this.wakeAt.timer);
    const timer = c.timers.setTimeout(
      () => {
        if (this.wakeAt?.timer === timer) this.wakeAt = undefined;
        this.firedUpTo = Math.max(this.firedUpTo, at);
        this.wake(at, true);
      },
      Math.max(0, at - now),
    );
    this.wakeAt = { at, timer };
  }

  /**
   * Tells the other instances that deliveries were added (a change that staged some has committed): one
   * announcement for every change committed in one turn of the event loop.
   */
  announce(): void {
    const { c } = this;
    if (this.announcing || !c.outbox.announce) return;
    this.announcing = true;
    setImmediate(() => {
      this.announcing = false;
      if (c.closed) return;
      c.work.hold(
        c.outbox.announce!().catch((err: unknown) =>
          c.s.log.warn({ err }, 'webhook deliveries: other instances not told of new deliveries (they poll)'),
        ),
      );
    });
  }

  /** Stops the timers, the poll, the pruning and the listening. */
  async stop(): Promise<void> {
    clearInterval(this.poll);
    clearInterval(this.prune);
    if (this.wakeAt) this.c.timers.clearTimeout(this.wakeAt.timer);
    this.wakeAt = undefined;
    await this.unlisten?.().catch(() => {});
  }

  private async pruneOld(): Promise<void> {
    const { c } = this;
    try {
      const before = iso(new Date(c.s.clock.now().getTime() - c.s.historyDays * DAY_MS));
      const n = await c.outbox.prune(before);
      if (n > 0) c.s.log.info({ count: n, before }, 'webhook delivery log: old attempts pruned');
    } catch (err) {
      c.s.log.warn({ err }, 'webhook delivery log could not be pruned');
    }
  }
}
