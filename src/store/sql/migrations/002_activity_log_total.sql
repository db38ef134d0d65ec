-- How many activity entries there are, kept by triggers: the activity log's `total` without a filter reads this one
-- row instead of counting every entry. Statement-level triggers, so a bulk insert updates it once.
CREATE TABLE activity_log_total (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  n bigint NOT NULL CHECK (n >= 0)
);
INSERT INTO activity_log_total (n) SELECT count(*) FROM activity_log;

CREATE FUNCTION activity_log_total_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE activity_log_total SET n = n + (SELECT count(*) FROM added);
  RETURN NULL;
END
$$;
CREATE TRIGGER activity_log_total_insert AFTER INSERT ON activity_log
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION activity_log_total_added();

CREATE FUNCTION activity_log_total_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE activity_log_total SET n = n - (SELECT count(*) FROM removed);
  RETURN NULL;
END
$$;
CREATE TRIGGER activity_log_total_delete AFTER DELETE ON activity_log
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION activity_log_total_removed();

CREATE FUNCTION activity_log_total_emptied() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE activity_log_total SET n = 0;
  RETURN NULL;
END
$$;
CREATE TRIGGER activity_log_total_truncate AFTER TRUNCATE ON activity_log
  FOR EACH STATEMENT EXECUTE FUNCTION activity_log_total_emptied();
