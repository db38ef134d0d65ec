import { performance } from 'node:perf_hooks';

/**
 * At or above this share of the time spent running (not waiting for I/O), the event loop is taken as saturated:
 * work such as requests is waiting behind the flushes.
 */
export const BUSY = 0.9;
/**
 * The least time, in ms, over which the share is judged: several flushes at the shortest intervals, so that one
 * slow turn (a garbage collection, a burst of requests) at normal load is not taken for saturation.
 */
export const WINDOW_MS = 100;
/** How much longer the next interval is after a busy window, and how much shorter after one that was not. */
const STEP = 1.5;

/** The event loop's time over a span, in ms: running, and waiting for I/O. */
export interface LoopTime {
  active: number;
  idle: number;
}

/**
 * How long the hub waits between flushes. Each write to a client costs about the same whatever it carries, so while
 * the event loop is saturated the interval grows (fewer writes, more events in each), up to `maxMs`, and once it is
 * not it shrinks back to `minMs`, where it stays at normal load. A `maxMs` at or below `minMs` keeps it at `minMs`.
 */
export class FlushPace {
  readonly minMs: number;
  readonly maxMs: number;
  private current: number;
  /** The loop's time observed since the interval was last judged. */
  private readonly seen: LoopTime = { active: 0, idle: 0 };

  constructor(minMs: number, maxMs: number) {
    this.minMs = minMs;
    this.maxMs = Math.max(minMs, maxMs);
    this.current = minMs;
  }

  /** Whether the interval can change at all (else the event loop need not be measured). */
  get adaptive(): boolean {
    return this.maxMs > this.minMs;
  }

  /** The interval before the next flush, in whole ms (0: at the end of the turn). */
  get ms(): number {
    return this.current;
  }

  /**
   * After a flush, the event loop's time since the previous one: answers the next interval, which changes one step
   * each time the time observed makes up `WINDOW_MS`, judged on the share of it spent running.
   */
  next(time: LoopTime): number {
    this.seen.active += time.active;
    this.seen.idle += time.idle;
    const total = this.seen.active + this.seen.idle;
    if (total < WINDOW_MS) return this.current;
    const busy = this.seen.active / total >= BUSY;
    this.seen.active = 0;
    this.seen.idle = 0;
    if (busy) {
      // At least 1 ms longer, so that an interval of 0 grows too.
      this.current = Math.min(this.maxMs, Math.max(this.current + 1, Math.round(this.current * STEP)));
    } else {
      this.current = Math.max(this.minMs, Math.floor(this.current / STEP));
    }
    return this.current;
  }
}

/** Answers, at each call, the event loop's time since the previous call (the first: since this one). */
export function loopTime(): () => LoopTime {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { active, idle } = performance.eventLoopUtilization(now, last);
    last = now;
    return { active, idle };
  };
}
