import { setTimeout as delay } from 'node:timers/promises';
import type { Outcome } from '../../store/outbox.ts';
import { gatherWait, type DeliveryContext } from './context.ts';

/** An outcome waiting to be written, and whom to tell. */
interface Unwritten extends Outcome {
  readonly written: { resolve: (kept: boolean) => void; reject: (err: unknown) => void };
}

/**
 * Writes attempts' outcomes in batches: one statement for all the outcomes that come while a write is under way or
 * (a durable store) within `gatherMs` of the last one began. Under load a write carries many outcomes; alone, one
 * goes at once.
 */
export class OutcomeWriter {
  private unwritten: Unwritten[] = [];
  /** Whether a write is under way, or waiting out `gatherMs`. */
  private writing = false;
  /** When the last write began (`performance.now()`). */
  private lastWriteAt = -Infinity;

  constructor(private readonly c: DeliveryContext) {}

  /**
   * Writes an attempt's outcome (and the attempt that follows it), with the others that come meanwhile. Resolves
   * to whether it was kept: false when this worker's lease on the row was lost (another worker claimed it).
   */
  write(outcome: Outcome): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.unwritten.push({ ...outcome, written: { resolve, reject } });
      this.flush();
    });
  }

  private flush(): void {
    if (this.writing || this.unwritten.length === 0) return;
    const wait = gatherWait(this.c, this.lastWriteAt);
    if (wait > 0) {
      this.writing = true;
      void delay(wait).then(() => {
        this.writing = false;
        this.flush();
      });
      return;
    }
    this.lastWriteAt = performance.now();
    const batch = this.unwritten;
    this.unwritten = [];
    this.writing = true;
    this.c.outbox
      .settle(batch, this.c.owner)
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
        this.flush();
      });
  }
}
