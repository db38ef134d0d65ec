import type { FastifyBaseLogger } from 'fastify';
import type { ChangeOptions, Collections, Store } from '../store/store.ts';
import type { DomainEvent } from './types.ts';

/** Follows what has committed: it can no longer change it, and never fails the request that caused it. */
export type Consumer = (event: DomainEvent) => void | Promise<void>;

/**
 * One open transaction and the changes made in it. What is written through `tx` commits with the change or not at
 * all; `publish` announces a change made in it.
 */
export interface Unit {
  readonly tx: Collections;
  /** Hands the event to the in-transaction consumers now, and to the others once the transaction has committed. */
  publish(event: DomainEvent): Promise<void>;
}

/**
 * Writes what a change causes, in the change's own transaction (activity entries, notifications), reading what it
 * needs through `unit.tx`. Throwing fails the change: nothing of it is kept.
 */
export type TransactionalConsumer = (event: DomainEvent, unit: Unit) => Promise<void>;

/**
 * Called as each transaction begins, before the change's own work: starts, through `unit.tx`, the reads its consumer
 * will need in it. Started then, they go to the database with the change's first statement, instead of a round trip
 * of their own in the middle of the change. Must not throw; a read that fails fails the transaction where it is used.
 */
export type TransactionStart = (unit: Unit) => void;

/**
 * Fans each change out to its consumers in two phases. A change is made in `transaction`: every event published
 * in it goes at once to the in-transaction consumers (`subscribeInTransaction`), whose writes join the transaction,
 * and is staged; when the transaction commits, the staged events are released to the after-commit consumers
 * (`subscribe`), in the order they were published. A transaction that fails releases nothing.
 *
 * An after-commit consumer that throws or rejects is logged and isolated: it never fails the request and never
 * stops the other consumers. `transaction` resolves once every consumer has finished with its events, so what they
 * do is visible to the caller's next request; slow work (webhook delivery) must be queued, not awaited.
 */
export class EventBus {
  private readonly transactional: { name: string; consume: TransactionalConsumer; begin?: TransactionStart }[] = [];
  private readonly consumers: { name: string; consume: Consumer }[] = [];

  constructor(private readonly log: FastifyBaseLogger) {}

  /** Adds a consumer of committed changes. */
  subscribe(name: string, consume: Consumer): void {
    this.consumers.push({ name, consume });
  }

  /** Adds a consumer that writes in each change's transaction; `begin`, what it reads ahead in each. */
  subscribeInTransaction(name: string, consume: TransactionalConsumer, begin?: TransactionStart): void {
    this.transactional.push({ name, consume, begin });
  }

  /** Runs `work` in one transaction of `store`; see the class. Answers what `work` answers. */
  async transaction<R>(
    store: Pick<Store, 'transaction'>,
    work: (unit: Unit) => Promise<R>,
    options?: ChangeOptions,
  ): Promise<R> {
    let staged: DomainEvent[] = [];
    const result = await store.transaction((tx) => {
      // A store may run `work` again after a conflict: only the last run's events committed.
      staged = [];
      const unit: Unit = {
        tx,
        publish: async (event) => {
          staged.push(event);
          for (const { consume } of this.transactional) await consume(event, unit);
        },
      };
      for (const { begin } of this.transactional) begin?.(unit);
      return work(unit);
    }, options);
    await this.release(staged);
    return result;
  }

  /** Hands committed events to the after-commit consumers. */
  private async release(events: readonly DomainEvent[]): Promise<void> {
    if (this.consumers.length === 0) return;
    for (const event of events) {
      for (const { name, consume } of this.consumers) {
        try {
          // Awaited only when it is work in progress: the consumers of the service return at once (they queue or
          // hand on), and an await of nothing would still cost each event a turn of the microtask queue.
          const done = consume(event);
          if (done !== undefined) await done;
        } catch (err) {
          this.log.error({ err, consumer: name, event: event.type, eventId: event.id }, 'event consumer failed');
        }
      }
    }
  }
}
