import { performance } from 'node:perf_hooks';

/**
 * At or above this share of the time since the previous flush spent running (not waiting for I/O), the event loop
 * is taken as saturated: work such as requests is waiting behind the flushes.
 */
export const BUSY = 0.9;
/** How much longer the next interval is after a busy one, and how much shorter after one that was not. */
const STEP = 1.5;

/**
 * How long the hub waits between flushes. Each write to a client costs the same whatever it carries, so while the
 * event loop is saturated the interval grows (fewer writes, more events in each), up to `maxMs`, and once it is not
 * it shrinks back to `minMs`, where it stays at normal load. A `maxMs` at or below `minMs` keeps it at `minMs`.
 */
export class FlushPace {
  readonly minMs: number;
  readonly maxMs: number;
  private current: number;

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

  /** After a flush, the event loop's utilization (0–1) since the previous one: answers the next interval. */
  next(utilization: number): number {
    if (utilization >= BUSY) {
      // At least 1 ms longer, so that an interval of 0 grows too.
      this.current = Math.min(this.maxMs, Math.max(this.current + 1, Math.round(this.current * STEP)));
    } else {
      this.current = Math.max(this.minMs, Math.floor(this.current / STEP));
    }
    return this.current;
  }
}

/** Answers, at each call, the event loop's utilization (0–1) since the previous call (the first: since this one). */
export function loopUtilization(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    return utilization;
  };
}
