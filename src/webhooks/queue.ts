import { realTimers, type Scheduler } from './types.ts';

/** A first-in first-out queue with O(1) push and shift (an array's `shift` copies). */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head]!;
    this.items[this.head++] = undefined as T; // let it be collected
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Takes out every item that matches, keeping the order of the rest. */
  removeWhere(matches: (item: T) => boolean): T[] {
    const removed: T[] = [];
    const kept: T[] = [];
    for (let i = this.head; i < this.items.length; i++) {
      const item = this.items[i]!;
      (matches(item) ? removed : kept).push(item);
    }
    this.items = kept;
    this.head = 0;
    return removed;
  }

  /** Empties the queue, returning what it held in order. */
  drain(): T[] {
    return this.removeWhere(() => true);
  }
}

/** Runs queued items through `work`, at most `concurrency` at a time, first in first out. */
export class WorkQueue<T> {
  private readonly waiting = new Fifo<T>();
  private readonly running = new Set<T>();
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    /** Must not reject: failures are the caller's to record. */
    private readonly work: (item: T) => Promise<void>,
    private readonly timers: Scheduler = realTimers,
  ) {}

  get queued(): number {
    return this.waiting.size;
  }

  get inFlight(): ReadonlySet<T> {
    return this.running;
  }

  push(item: T): void {
    this.waiting.push(item);
    this.pump();
  }

  /** Takes waiting items out (items already running are not touched). */
  removeWhere(matches: (item: T) => boolean): T[] {
    return this.waiting.removeWhere(matches);
  }

  drain(): T[] {
    return this.waiting.drain();
  }

  /** Resolves when nothing is running or waiting, or after `ms` (when given), whichever comes first. */
  idle(ms?: number): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : this.timers.setTimeout(resolve, ms);
      this.idleWaiters.push(() => {
        if (timer !== undefined) this.timers.clearTimeout(timer);
        resolve();
      });
    });
  }

  private pump(): void {
    while (this.running.size < this.concurrency && this.waiting.size > 0) {
      const item = this.waiting.shift()!;
      this.running.add(item);
      void this.work(item).finally(() => {
        this.running.delete(item);
        this.pump();
        // Nothing running after the pump: nothing is waiting either.
        if (this.running.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
      });
    }
  }
}
