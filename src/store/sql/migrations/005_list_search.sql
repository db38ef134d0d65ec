-- Lists that scale: search (`q`), ordering and exact totals.

-- `q` is a case-insensitive substring test (ILIKE '%term%') on each kind's text fields: trigram GIN indexes serve
-- it, one per field (the planner combines them with a bitmap OR), so a rare term reads its few rows, not the table.
-- The extension is created once per database; its operator class is named with the schema it lives in, so that
-- the indexes are made whatever the search path (several schemas of one database may hold the tables).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
DO $$
DECLARE
  ops text := (SELECT quote_ident(n.nspname) || '.gin_trgm_ops' FROM pg_extension e
    JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm');
  i text[];
BEGIN
  FOREACH i SLICE 1 IN ARRAY ARRAY[
    ['projects', 'name'], ['projects', 'description'], ['tasks', 'title'], ['tasks', 'description'],
    ['teams', 'name'], ['teams', 'description'], ['comments', 'body'], ['milestones', 'title'],
    ['milestones', 'description'], ['time_entries', 'description'], ['webhooks', 'url'],
    ['webhooks', 'description'], ['notifications', 'message'], ['activity_log', 'action'],
    ['activity_log', 'summary']]
  LOOP
    EXECUTE format('CREATE INDEX %I ON %I USING gin (%I %s)', i[1] || '_' || i[2] || '_trgm', i[1], i[2], ops);
  END LOOP;
END
$$;

-- Orders a sync or a board asks for on the large tables: what changed since (`updatedAt[gte]`, `sort=updatedAt`),
-- and a project's tasks by priority (the expression the store orders enumerations by).
CREATE INDEX tasks_updated_at ON tasks (updated_at, seq);
CREATE INDEX tasks_created_at ON tasks (created_at, seq);
CREATE INDEX tasks_project_priority ON tasks
  (project_id, array_position(ARRAY['low', 'medium', 'high']::text[], priority), seq);
CREATE INDEX projects_updated_at ON projects (updated_at, seq);
CREATE INDEX comments_updated_at ON comments (updated_at, seq);
CREATE INDEX milestones_updated_at ON milestones (updated_at, seq);
CREATE INDEX time_entries_updated_at ON time_entries (updated_at, seq);

-- How many records each table holds, for a list's total without a condition (`X-Total-Count` of `GET /api/tasks`):
-- counting every row grows with the table. Triggers append one row per statement with its change (+n or -n), so
-- concurrent writers never update the same row; the total is the sum of a table's rows. Every 128th row, the
-- trigger folds the rows into one per table (one statement: rows of transactions not yet committed are left for the
-- next fold), so a sum reads at most a few hundred small rows. Under SERIALIZABLE write transactions only a fold
-- reads what others write: one write statement in 128 may then meet a serialization failure and be retried.
CREATE TABLE record_totals (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  table_name text NOT NULL,
  n bigint NOT NULL
);
INSERT INTO record_totals (table_name, n)
  SELECT 'projects', count(*) FROM projects UNION ALL
  SELECT 'tasks', count(*) FROM tasks UNION ALL
  SELECT 'teams', count(*) FROM teams UNION ALL
  SELECT 'comments', count(*) FROM comments UNION ALL
  SELECT 'milestones', count(*) FROM milestones UNION ALL
  SELECT 'time_entries', count(*) FROM time_entries UNION ALL
  SELECT 'webhooks', count(*) FROM webhooks UNION ALL
  SELECT 'notifications', count(*) FROM notifications UNION ALL
  SELECT 'activity_log', count(*) FROM activity_log;

CREATE FUNCTION record_totals_follow() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta bigint;
  added bigint;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM record_totals WHERE table_name = TG_TABLE_NAME;
    RETURN NULL;
  END IF;
  SELECT count(*) INTO delta FROM changed;
  IF delta = 0 THEN
    RETURN NULL;
  END IF;
  INSERT INTO record_totals (table_name, n) VALUES (TG_TABLE_NAME, CASE WHEN TG_OP = 'INSERT' THEN delta ELSE -delta END)
    RETURNING id INTO added;
  IF added % 128 = 0 THEN
    WITH gone AS (DELETE FROM record_totals RETURNING table_name, n)
    INSERT INTO record_totals (table_name, n) SELECT table_name, sum(n) FROM gone GROUP BY table_name;
  END IF;
  RETURN NULL;
END
$$;

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['projects', 'tasks', 'teams', 'comments', 'milestones', 'time_entries', 'webhooks',
    'notifications', 'activity_log']
  LOOP
    EXECUTE format('CREATE TRIGGER %1$s_total_insert AFTER INSERT ON %1$s REFERENCING NEW TABLE AS changed '
      'FOR EACH STATEMENT EXECUTE FUNCTION record_totals_follow()', t);
    EXECUTE format('CREATE TRIGGER %1$s_total_delete AFTER DELETE ON %1$s REFERENCING OLD TABLE AS changed '
      'FOR EACH STATEMENT EXECUTE FUNCTION record_totals_follow()', t);
    EXECUTE format('CREATE TRIGGER %1$s_total_truncate AFTER TRUNCATE ON %1$s '
      'FOR EACH STATEMENT EXECUTE FUNCTION record_totals_follow()', t);
  END LOOP;
END
$$;
