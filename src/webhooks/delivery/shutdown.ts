import type { Dispatcher } from 'undici';
import type { DeliveryContext } from './context.ts';
import type { Schedule } from './schedule.ts';
import type { Slots } from './slots.ts';

/** At close, how long the bookkeeping under way and after the attempts may take (see {@link shutDown}). */
const BOOKKEEPING_MS = 1_000;

/** What the shutdown stops: the schedule, the attempts in flight (through `abort`), the agent if it is ours. */
export interface ShutdownParts {
  readonly schedule: Schedule;
  readonly slots: Slots;
  /** Attempts cut short by the shutdown (attempt.ts), given back with the rows claimed ahead. */
  readonly cut: string[];
  /** Aborts the requests still under way. */
  abort(): void;
  /** The agent to destroy at the end: the dispatcher's own, not one it was given. */
  readonly ownAgent: Dispatcher | undefined;
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
export async function shutDown(
  c: DeliveryContext,
  p: ShutdownParts,
  graceMs: number,
): Promise<{ left: number | undefined }> {
  if (c.closed) return { left: 0 };
  c.closed = true;
  // The grace period starts now, whatever the steps below wait for.
  let graceTimer: unknown;
  const graceOver = new Promise<void>((resolve) => (graceTimer = c.timers.setTimeout(resolve, graceMs)));
  await p.schedule.stop();
  await Promise.race([p.slots.allSettled(), graceOver]);
  c.timers.clearTimeout(graceTimer);
  if (p.slots.inFlight > 0) {
    c.s.log.warn(
      { count: p.slots.inFlight },
      'webhook requests still in flight after the grace period: aborting, left for retry',
    );
    p.abort();
    await p.slots.allSettled();
  }
  let bookkeepingTimer: unknown;
  const bookkeepingOver = new Promise<undefined>(
    (resolve) => (bookkeepingTimer = c.timers.setTimeout(() => resolve(undefined), BOOKKEEPING_MS)),
  );
  const inTime = <T>(work: Promise<T>) => Promise.race([work, bookkeepingOver]);
  await inTime(Promise.all(c.work.all()));
  // Rows claimed ahead and not started go back to the outbox, with the attempts cut short.
  p.cut.push(...p.slots.takeReady());
  if (p.cut.length > 0) await inTime(c.outbox.release(p.cut, c.owner).catch(() => {}));
  // Nothing to count when the store is gone or does not answer.
  const left = await inTime(c.outbox.pending().catch(() => undefined));
  c.timers.clearTimeout(bookkeepingTimer);
  if (left !== undefined && left > 0) {
    const where = c.outbox.durable ? 'left in the outbox for retry' : 'dropped with the memory store';
    c.s.log.warn({ count: left }, `webhook deliveries not yet made at shutdown: ${where}`);
  }
  if (p.ownAgent) await p.ownAgent.destroy().catch(() => {});
  return { left };
}
