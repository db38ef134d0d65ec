-- The event stream's log: one row per event, written in the transaction of the change it reports.
-- Position: (xid, seq). `xid` is the writing transaction's id; `seq` orders the rows of one transaction. Writers run
-- concurrently, so neither a sequence nor `xid` alone follows commit order; readers only take rows whose transaction
-- is older than every transaction still running (`xid < pg_snapshot_xmin(pg_current_snapshot())`): nothing can
-- commit later with a smaller position than what they already took (src/store/sql/stream-log.ts).
CREATE TABLE stream_events (
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  type text NOT NULL,
  project_id text,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (xid, seq)
);
-- Retention: the oldest rows go first.
CREATE INDEX stream_events_created_at ON stream_events (created_at);
