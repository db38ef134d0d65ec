import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { DeliveryRecord } from '../model/delivery.ts';
import type { StoredDelivery } from '../store/outbox.ts';

/** The carrier's key of the W3C trace context, as the propagator writes and reads it. */
const TRACEPARENT = 'traceparent';

/**
 * A span per webhook delivery attempt, from its start to its outcome, linked to the span of the request that caused
 * it. That request's trace context goes with the delivery's rows in the outbox (`traceParent`, asked of the
 * dispatcher as it stages a delivery, and copied to each retry), so the link holds for an attempt made by another
 * instance or after a restart. The context is written and read by the propagator registered with the API (the SDK
 * registers W3C Trace Context); one it cannot read (another propagator's) makes an attempt without a link.
 */
export function deliverySpans(tracer: Tracer) {
  const open = new Map<string, Span>();
  return {
    /**
     * The trace context of the request under way (its span's, W3C `traceparent`); none outside a request, nor for
     * one whose span is not recorded (its trace not sampled: nothing to link to).
     */
    traceParent(): string | undefined {
      const span = trace.getSpan(context.active());
      if (!span?.isRecording()) return undefined;
      const carrier: Record<string, string> = {};
      propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
      return carrier[TRACEPARENT];
    },
    /** Runs `work` in no trace: the workers' claims, attempts and writes are not part of the request that woke them. */
    detached<T>(work: () => T): T {
      return context.with(ROOT_CONTEXT, work);
    },
    attempted(
      row: Pick<StoredDelivery, 'id' | 'webhookId' | 'eventId' | 'eventType' | 'attempt' | 'traceParent'>,
    ): void {
      const links: Link[] = [];
      if (row.traceParent !== undefined) {
        const cause = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { [TRACEPARENT]: row.traceParent }));
        if (cause) links.push({ context: cause });
      }
      const span = tracer.startSpan('webhook delivery', {
        kind: SpanKind.CLIENT,
        // Its own trace, whatever context the attempt runs in.
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
