/**
 * The SQL stores' write batching (src/store/sql/batch.ts), without a database: which statements it makes of the rows
 * a transaction adds, and when it sends them. test/store/sql.ts runs it against PostgreSQL (a batch over the
 * statement's parameter limit, rows that reference rows of the same statement).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addRows, insertStatements, readFrom, WriteBatch, type RowInsert } from '../../src/store/sql/batch.ts';
import type { SqlClient } from '../../src/store/sql/driver.ts';

const projects = (...ids: string[]): RowInsert => ({
  head: 'INSERT INTO projects (id, name) VALUES',
  tuple: '($1::text, $2::text)',
  rows: ids.map((id) => [id, `Project ${id}`]),
});
const tasks = (...ids: string[]): RowInsert => ({
  head: 'INSERT INTO tasks (id) VALUES',
  tuple: '($1::text)',
  rows: ids.map((id) => [id]),
});

/** A connection that keeps the statements it is sent. */
function recording(): SqlClient & { sent: { text: string; params?: readonly unknown[] }[] } {
  const sent: { text: string; params?: readonly unknown[] }[] = [];
  return {
    sent,
    query: async (text, params) => {
      sent.push({ text, params });
      return [];
    },
    exec: async (text) => {
      sent.push({ text });
    },
  };
}

test('the rows of a change become one statement: one multi-row INSERT per table, the tables joined as CTEs', () => {
  const [statement, ...more] = insertStatements([projects('p1'), tasks('t1', 't2'), projects('p2')]);
  assert.equal(more.length, 0);
  assert.equal(
    statement!.text,
    'WITH w0 AS (INSERT INTO projects (id, name) VALUES ($1::text, $2::text), ($3::text, $4::text)) ' +
      'INSERT INTO tasks (id) VALUES ($5::text), ($6::text)',
  );
  assert.deepEqual(statement!.params, ['p1', 'Project p1', 'p2', 'Project p2', 't1', 't2']);
  assert.deepEqual(insertStatements([]), []);
});

test('a batch past the parameter limit is split, every row sent once and in order', () => {
  const ids = Array.from({ length: 20_000 }, (_, i) => `p${i}`); // 40,000 parameters
  const statements = insertStatements([projects(...ids)]);
  assert.ok(statements.length > 1);
  for (const { params } of statements) assert.ok(params.length <= 65_535);
  assert.deepEqual(
    statements.flatMap((s) => s.params.filter((_, i) => i % 2 === 0)),
    ids,
  );
  assert.match(statements[1]!.text, /^INSERT INTO projects \(id, name\) VALUES \(\$1::text, \$2::text\), /);
});

test('a transaction holds its rows back until a statement could read them, then sends them first', async () => {
  const db = recording();
  const batch = new WriteBatch(db);
  await addRows(batch, projects('p1'));
  await addRows(batch, tasks('t1'));
  assert.equal(db.sent.length, 0, 'nothing sent yet');
  // A read of another table does not see them: they stay held back.
  await readFrom(batch, ['teams'], 'SELECT 1 FROM teams');
  assert.deepEqual(
    db.sent.map((s) => s.text),
    ['SELECT 1 FROM teams'],
  );
  // A read of one of their tables sends them all first, in one statement.
  await readFrom(batch, ['tasks'], 'SELECT 1 FROM tasks');
  assert.equal(db.sent.length, 3);
  assert.match(db.sent[1]!.text, /^WITH w0 AS \(INSERT INTO projects .*\) INSERT INTO tasks /);
  assert.equal(db.sent[2]!.text, 'SELECT 1 FROM tasks');
  // Any other statement sends what is held back before it; the end of the work sends the rest.
  await addRows(batch, tasks('t2'));
  await batch.query('UPDATE projects SET name = $1', ['x']);
  await addRows(batch, tasks('t3'));
  await batch.flush();
  assert.deepEqual(
    db.sent.slice(3).map((s) => s.params),
    [['t2'], ['x'], ['t3']],
  );
});

test('outside a transaction, rows are added at once; no rows, no statement', async () => {
  const db = recording();
  await addRows(db, tasks());
  assert.equal(db.sent.length, 0);
  await addRows(db, tasks('t1'));
  assert.deepEqual(db.sent, [{ text: 'INSERT INTO tasks (id) VALUES ($1::text)', params: ['t1'] }]);
});
