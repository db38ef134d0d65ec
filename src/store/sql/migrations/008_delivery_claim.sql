-- What a delivery worker claims: for each webhook with pending rows, its first few due (at most its share of the
-- slots), so that passing over a webhook costs the same whatever its backlog. The claim walks the webhooks with
-- pending rows through this index (one probe each), then reads each one's first rows in due order.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, due_at, seq) WHERE status = 'pending';
