import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Link,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import type { Outbox } from '../events/webhooks.ts';
import type { DeliveryRecord } from '../model/delivery.ts';

/** Events whose request is remembered for the spans of their deliveries, at most (the oldest forgotten first). */
const REMEMBERED = 10_000;

/**
 * A span per webhook delivery attempt, from its start to its outcome, linked to the span of the request whose change
 * caused it when that request ran in this process (its trace is remembered by event id as the change commits:
 * `caused`). An attempt made by another instance, or after a restart, has no link.
 */
export function deliverySpans(tracer: Tracer) {
  const open = new Map<string, Span>();
  const causes = new Map<string, SpanContext>();
  return {
    /** Remembers the request whose change produced the outbound event `eventId` (the active span, if any). */
    caused(eventId: string): void {
      const span = trace.getSpan(context.active());
      if (!span) return;
      if (causes.size >= REMEMBERED) causes.delete(causes.keys().next().value!);
      causes.set(eventId, span.spanContext());
    },
    attempted(row: Pick<DeliveryRecord, 'id' | 'webhookId' | 'eventId' | 'eventType' | 'attempt'>): void {
      const cause = causes.get(row.eventId);
      const links: Link[] = cause ? [{ context: cause }] : [];
      const span = tracer.startSpan('webhook delivery', {
        kind: SpanKind.CLIENT,
        // Its own trace: the workers may run in the context of whichever request woke them.
        root: true,
        links,
        attributes: {
          'webhook.id': row.webhookId,
          'webhook.event.id': row.eventId,
          'webhook.event.type': row.eventType,
          'webhook.delivery.id': row.id,
          'webhook.delivery.attempt': row.attempt,
        },
      });
      open.set(row.id, span);
    },
    settled(record: DeliveryRecord): void {
      const span = open.get(record.id);
      if (!span) return;
      open.delete(record.id);
      span.setAttribute('webhook.delivery.status', record.status);
      if (record.responseStatus !== null) span.setAttribute('http.response.status_code', record.responseStatus);
      if (record.status !== 'succeeded')
        span.setStatus({ code: SpanStatusCode.ERROR, message: record.error ?? record.status });
      span.end();
    },
  };
}

/** `outbox`, telling `caused` of each outbound event as its deliveries are staged, in its change's transaction. */
export function tracedOutbox(outbox: Outbox, caused: (eventId: string) => void): Outbox {
  return {
    stage: (log, target, event) => {
      caused(event.id);
      return outbox.stage(log, target, event);
    },
    recorded: (records) => outbox.recorded(records),
    wake: () => outbox.wake(),
    announce: () => outbox.announce(),
    forget: (webhookId) => outbox.forget(webhookId),
    changed: (webhookId) => outbox.changed(webhookId),
  };
}
