import type { StreamEntry } from '../store/types.ts';
import { compare, deliveryOf, type Delivery, type Position, type Reset, type StreamSource } from './source.ts';

const at = (n: bigint): Position => ({ hi: n, lo: 0n });

/**
 * The events of the memory store: numbered as each change commits, the last `capacity` kept in a ring for clients
 * that resume. Numbers start at the start time in microseconds, so that the positions of an earlier run of the
 * service are older than any of this one (a client coming back after a restart is told to reset, never handed
 * other events under its old position).
 */
export class MemorySource implements StreamSource {
  private readonly ring: (Delivery | undefined)[];
  /** Position of the newest event; the ring holds (last - count, last]. */
  private last: bigint;
  /** Position before this run's first event: one below it is of an earlier run (or none at all). */
  private readonly first: bigint;
  private count = 0;
  private emit: (batch: readonly Delivery[]) => void = () => {};

  constructor(
    private readonly capacity: number,
    startMs: number,
  ) {
    this.ring = new Array<Delivery | undefined>(capacity);
    this.last = BigInt(startMs) * 1000n;
    this.first = this.last;
  }

  async start(emit: (batch: readonly Delivery[]) => void): Promise<void> {
    this.emit = emit;
  }

  head(): Position {
    return at(this.last);
  }

  format(position: Position): string {
    return position.hi.toString();
  }

  parse(text: string): Position | undefined {
    return /^\d{1,19}$/.test(text) ? at(BigInt(text)) : undefined;
  }

  committed(entries: readonly StreamEntry[]): void {
    if (entries.length === 0) return;
    const batch = entries.map((entry) => {
      this.last++;
      const delivery = deliveryOf(entry, at(this.last), this.last.toString());
      this.ring[Number(this.last % BigInt(this.capacity))] = delivery;
      this.count = Math.min(this.count + 1, this.capacity);
      return delivery;
    });
    this.emit(batch);
  }

  async replay(
    after: Position,
    upTo: Position,
    page: (batch: readonly Delivery[]) => Promise<void>,
  ): Promise<Reset | void> {
    if (after.lo !== 0n || compare(after, this.head()) > 0 || after.hi < this.first) return { reset: 'unknown' };
    const oldest = this.last - BigInt(this.count); // the position just before the oldest kept
    if (after.hi < oldest) return { reset: 'expired' };
    // Taken at once (references, at most `capacity`): the ring may move on while the pages are written.
    const events: Delivery[] = [];
    for (let p = after.hi + 1n; p <= upTo.hi; p++) events.push(this.ring[Number(p % BigInt(this.capacity))]!);
    for (let i = 0; i < events.length; i += 500) await page(events.slice(i, i + 500));
  }

  async close(): Promise<void> {}
}
