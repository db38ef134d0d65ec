/**
 * An event as the world outside receives it, from the webhook deliveries and the event stream alike: the body is
 * `{ type, timestamp, data }`, plus `previous` for an update; the `id` is the `webhook-id` header. The events layer
 * makes them from the domain's changes (events/webhooks.ts); delivery and the stream only read them.
 */
export interface OutboundEvent {
  /** `evt_…`: the same on every attempt and redelivery, so receivers can deduplicate. */
  readonly id: string;
  readonly type: string;
  /** ISO 8601. */
  readonly timestamp: string;
  readonly data: unknown;
  /** For a `*.updated` event: the old values of exactly the fields that changed. */
  readonly previous?: Readonly<Record<string, unknown>>;
}

/**
 * The body of an event as a webhook receives it, as JSON: `{ type, timestamp, data }` and an update's `previous`. Made
 * here only, for the webhook deliveries and the event stream alike (one line: JSON.stringify escapes line breaks).
 */
export function eventJson(event: OutboundEvent): string {
  const { type, timestamp, data, previous } = event;
  return JSON.stringify(previous === undefined ? { type, timestamp, data } : { type, timestamp, data, previous });
}
