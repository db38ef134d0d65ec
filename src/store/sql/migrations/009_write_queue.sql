-- The queue of write transactions that conflicted twice in a row (store.ts, `QUEUE_LOCK`): each locks this table
-- first, so that they run one after the other instead of colliding again (many writes to one record at once). A
-- table lock rather than an advisory one: `LOCK` takes no snapshot, so the transaction's snapshot comes after its
-- wait, and a transaction waiting holds back nobody's view of what has settled (the event stream's reads).
CREATE TABLE write_queue ();
