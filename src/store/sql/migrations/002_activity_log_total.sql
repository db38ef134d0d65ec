-- How many activity entries there are, kept by triggers: the activity log's `total` without a filter reads this one
-- row instead of counting every entry. Statement-level triggers, so a bulk insert updates it once.
CREATE TABLE activity_log_total (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  n bigint NOT NULL CHECK (n >= 0)
);
INSERT INTO activity_log_total (n) SELECT count(*) FROM activity_log;

-- One function for the three triggers: each names its rows `changed` (plpgsql plans only the branch it runs).
CREATE FUNCTION activity_log_total_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE activity_log_total SET n = n + (SELECT count(*) FROM changed);
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE activity_log_total SET n = n - (SELECT count(*) FROM changed);
  ELSE
    UPDATE activity_log_total SET n = 0;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER activity_log_total_insert AFTER INSERT ON activity_log
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION activity_log_total_follow();
CREATE TRIGGER activity_log_total_delete AFTER DELETE ON activity_log
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION activity_log_total_follow();
CREATE TRIGGER activity_log_total_truncate AFTER TRUNCATE ON activity_log
  FOR EACH STATEMENT EXECUTE FUNCTION activity_log_total_follow();
