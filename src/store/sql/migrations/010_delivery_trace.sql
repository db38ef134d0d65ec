-- The trace context of the request that caused a delivery (W3C `traceparent`), kept with each of its attempts when
-- traces are on, so that an attempt made after a restart or by another instance links to that request's span. Null
-- when traces were off. Nullable without a default: adding it rewrites nothing.
ALTER TABLE webhook_deliveries ADD COLUMN trace_parent text;
