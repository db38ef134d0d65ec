-- API tokens (AUTH=token): who a token acts for, what it may do, and the SHA-256 of its value (hex), never the
-- value itself. A request's token is looked up by that hash.
CREATE TABLE tokens (
  id text PRIMARY KEY,
  username text NOT NULL,
  scopes text[] NOT NULL CHECK (cardinality(scopes) > 0 AND scopes <@ ARRAY['read', 'write', 'admin']::text[]),
  description text NOT NULL,
  expires_at timestamptz(3),
  created_at timestamptz(3) NOT NULL,
  last_used_at timestamptz(3),
  token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE
);
CREATE INDEX tokens_username ON tokens (username, seq);

-- Their number, kept like the other tables' (migration 005) for an unfiltered list's total.
CREATE TRIGGER tokens_total_insert AFTER INSERT ON tokens REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION record_totals_follow();
CREATE TRIGGER tokens_total_delete AFTER DELETE ON tokens REFERENCING OLD TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION record_totals_follow();
CREATE TRIGGER tokens_total_truncate AFTER TRUNCATE ON tokens
  FOR EACH STATEMENT EXECUTE FUNCTION record_totals_follow();
