-- The webhook outbox and delivery log: one row per attempt. A change adds its first attempts in its own
-- transaction; workers of every instance claim the due pending rows (FOR UPDATE SKIP LOCKED, then a lease until
-- `lease_until`), make the attempts, settle them, and add the next attempt of a failed one, due at its
-- `next_attempt_at`. Settled rows are pruned by age (WEBHOOK_HISTORY_DAYS). No foreign key to webhooks: the log
-- of a deleted webhook's last attempts stays until pruned, and an attempt due for it is cancelled, saying why.
CREATE TABLE webhook_deliveries (
  seq bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  webhook_id text NOT NULL,
  event_id text NOT NULL,
  event_type text NOT NULL,
  attempt integer NOT NULL CHECK (attempt >= 1),
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'refused')),
  response_status integer,
  error text,
  duration_ms integer,
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  next_attempt_at timestamptz,
  url text,
  queued_ms integer,
  stop_reason text,
  payload text NOT NULL,
  due_at timestamptz NOT NULL,
  force boolean NOT NULL DEFAULT false,
  lease_until timestamptz,
  leased_by text
);
-- What the workers look for: pending rows by due time.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due_at) WHERE status = 'pending';
-- The delivery log of a webhook, newest first.
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, created_at DESC, seq DESC);
-- Pruning by age.
CREATE INDEX webhook_deliveries_age ON webhook_deliveries (created_at) WHERE status <> 'pending';
