import type { FastifyBaseLogger } from 'fastify';
import type { DomainEvent } from './types.ts';

export type Consumer = (event: DomainEvent) => void | Promise<void>;

/**
 * Fans each published event out to its consumers. A consumer that throws or rejects is logged and
 * isolated: it never fails the request that caused the event and never stops the other consumers.
 * `publish` resolves once every consumer has finished with the event, so what they write (activity,
 * notifications) is visible to the caller's next request; slow work (webhook delivery) must be queued
 * by its consumer, not awaited.
 */
export class EventBus {
  private readonly consumers: { name: string; consume: Consumer }[] = [];

  constructor(private readonly log: FastifyBaseLogger) {}

  subscribe(name: string, consume: Consumer): void {
    this.consumers.push({ name, consume });
  }

  async publish(events: readonly DomainEvent[]): Promise<void> {
    if (this.consumers.length === 0) return;
    for (const event of events) {
      for (const { name, consume } of this.consumers) {
        try {
          await consume(event);
        } catch (err) {
          this.log.error({ err, consumer: name, event: event.type, eventId: event.id }, 'event consumer failed');
        }
      }
    }
  }
}
