-- Write transactions run side by side (SERIALIZABLE, retried on a conflict) instead of one at a time, so nothing
-- every write touches may be a single row: two transactions updating the same row conflict, and one is run again.
-- The activity log's one-row count (migration 002) goes; its total is kept with every table's, in parts that
-- writers insert (migration 005, `record_totals`).
DROP TRIGGER activity_log_total_insert ON activity_log;
DROP TRIGGER activity_log_total_delete ON activity_log;
DROP TRIGGER activity_log_total_truncate ON activity_log;
DROP FUNCTION activity_log_total_follow();
DROP TABLE activity_log_total;
