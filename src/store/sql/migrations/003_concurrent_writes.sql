-- Write transactions run side by side (SERIALIZABLE, retried on a conflict) instead of one at a time, so nothing
-- every write touches may be a single row: two transactions updating the same row conflict, and one is run again.
-- The activity log's count (migration 002) becomes a sum of parts: each statement that adds or removes entries
-- inserts one part (inserts never conflict), and readers fold the parts back into one now and then.
DROP TRIGGER activity_log_total_insert ON activity_log;
DROP TRIGGER activity_log_total_delete ON activity_log;
DROP TRIGGER activity_log_total_truncate ON activity_log;
DROP FUNCTION activity_log_total_follow();

CREATE TABLE activity_log_count (n bigint NOT NULL);
INSERT INTO activity_log_count (n) SELECT n FROM activity_log_total;
DROP TABLE activity_log_total;

-- The total, whatever the number of parts.
CREATE VIEW activity_log_total AS SELECT coalesce(sum(n), 0)::bigint AS n, count(*)::int AS parts FROM activity_log_count;

CREATE FUNCTION activity_log_count_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO activity_log_count (n) SELECT count(*) FROM changed;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO activity_log_count (n) SELECT -count(*) FROM changed;
  ELSE
    DELETE FROM activity_log_count;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER activity_log_count_insert AFTER INSERT ON activity_log
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION activity_log_count_follow();
CREATE TRIGGER activity_log_count_delete AFTER DELETE ON activity_log
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION activity_log_count_follow();
CREATE TRIGGER activity_log_count_truncate AFTER TRUNCATE ON activity_log
  FOR EACH STATEMENT EXECUTE FUNCTION activity_log_count_follow();
