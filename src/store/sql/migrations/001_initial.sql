-- The service's records, one table per kind, one column per field. Every table has `seq`: the creation order its
-- lists follow (an update keeps it). Enumerations are CHECK constraints with the values of src/resources/*/schema.ts;
-- foreign keys carry the cascades of the contract (a project takes its tasks, milestones and comments; a task its
-- comments and time entries; a deleted team leaves its projects without one).

CREATE TABLE teams (
  id text PRIMARY KEY,
  name text NOT NULL,
  description text NOT NULL,
  members jsonb NOT NULL CHECK (jsonb_typeof(members) = 'array'),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE
);

CREATE TABLE projects (
  id text PRIMARY KEY,
  name text NOT NULL,
  description text NOT NULL,
  status text NOT NULL CHECK (status IN ('planned', 'active', 'completed')),
  team_id text REFERENCES teams (id) ON DELETE SET NULL,
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE
);
CREATE INDEX projects_status ON projects (status, seq);
CREATE INDEX projects_team_id ON projects (team_id, seq);

CREATE TABLE tasks (
  id text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  title text NOT NULL,
  description text NOT NULL,
  status text NOT NULL CHECK (status IN ('todo', 'in_progress', 'done')),
  priority text NOT NULL CHECK (priority IN ('low', 'medium', 'high')),
  assignee text,
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE
);
CREATE INDEX tasks_project_id ON tasks (project_id, seq);
CREATE INDEX tasks_assignee ON tasks (assignee, seq);
CREATE INDEX tasks_status ON tasks (status, seq);

-- A comment's target is a task or a project. The two generated columns name it in the column for its kind, so
-- that each has a real foreign key and the target's delete takes the comment with it.
CREATE TABLE comments (
  id text PRIMARY KEY,
  target_type text NOT NULL CHECK (target_type IN ('task', 'project')),
  target_id text NOT NULL,
  author text NOT NULL,
  body text NOT NULL,
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  task_id text GENERATED ALWAYS AS (CASE WHEN target_type = 'task' THEN target_id END) STORED
    REFERENCES tasks (id) ON DELETE CASCADE,
  project_id text GENERATED ALWAYS AS (CASE WHEN target_type = 'project' THEN target_id END) STORED
    REFERENCES projects (id) ON DELETE CASCADE
);
CREATE INDEX comments_target_id ON comments (target_id, seq);
CREATE INDEX comments_target_type ON comments (target_type, seq);
CREATE INDEX comments_author ON comments (author, seq);
CREATE INDEX comments_task_id ON comments (task_id) WHERE task_id IS NOT NULL;
CREATE INDEX comments_project_id ON comments (project_id) WHERE project_id IS NOT NULL;

CREATE TABLE milestones (
  id text PRIMARY KEY,
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  title text NOT NULL,
  description text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'in_progress', 'reached')),
  due_date date,
  reached_at timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE
);
CREATE INDEX milestones_project_id ON milestones (project_id, seq);
CREATE INDEX milestones_status ON milestones (status, seq);

CREATE TABLE time_entries (
  id text PRIMARY KEY,
  task_id text NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  username text NOT NULL,
  hours numeric NOT NULL CHECK (hours > 0 AND hours <= 24),
  description text NOT NULL,
  date date NOT NULL,
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE
);
CREATE INDEX time_entries_task_id ON time_entries (task_id, seq);
CREATE INDEX time_entries_username ON time_entries (username, seq);
CREATE INDEX time_entries_date ON time_entries (date, seq);

CREATE TABLE webhooks (
  id text PRIMARY KEY,
  url text NOT NULL,
  events text[] NOT NULL CHECK (events <@ ARRAY[
    'project.created', 'project.updated', 'project.deleted', 'task.created', 'task.updated', 'task.deleted',
    'comment.created', 'comment.updated', 'comment.deleted', 'milestone.reached', 'sprint.started',
    'sprint.completed', '*'
  ]::text[]),
  active boolean NOT NULL,
  description text NOT NULL,
  created_at timestamptz(3) NOT NULL,
  updated_at timestamptz(3) NOT NULL,
  secret text NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE
);
CREATE INDEX webhooks_events ON webhooks USING gin (events);
CREATE INDEX webhooks_active ON webhooks (active, seq);

CREATE TABLE notifications (
  id text PRIMARY KEY,
  username text NOT NULL,
  type text NOT NULL CHECK (type IN ('task_assigned', 'comment_added', 'milestone_reached', 'project_updated')),
  message text NOT NULL,
  resource_type text CHECK (resource_type IN ('task', 'project', 'milestone', 'comment')),
  resource_id text,
  read boolean NOT NULL,
  created_at timestamptz(3) NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE
);
CREATE INDEX notifications_username ON notifications (username, read, seq);
CREATE INDEX notifications_type ON notifications (type, seq);
CREATE INDEX notifications_read ON notifications (read, seq);

-- Append-only; read newest first: by time, then by append order (`seq`) among entries of the same millisecond.
CREATE TABLE activity_log (
  id text PRIMARY KEY,
  action text NOT NULL,
  actor text NOT NULL,
  resource_type text NOT NULL,
  resource_id text NOT NULL,
  summary text NOT NULL,
  metadata jsonb NOT NULL CHECK (jsonb_typeof(metadata) = 'object'),
  occurred_at timestamptz(3) NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE
);
CREATE INDEX activity_log_newest ON activity_log (occurred_at, seq);
CREATE INDEX activity_log_action ON activity_log (action, occurred_at, seq);
CREATE INDEX activity_log_actor ON activity_log (actor, occurred_at, seq);
CREATE INDEX activity_log_resource_type ON activity_log (resource_type, occurred_at, seq);
CREATE INDEX activity_log_resource_id ON activity_log (resource_id, occurred_at, seq);

-- Facts about the store itself: `seeded` once the sample records have been loaded.
CREATE TABLE store_state (
  key text PRIMARY KEY,
  value text NOT NULL
);
