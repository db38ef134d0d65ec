/**
 * The event stream on PostgreSQL: positions that follow commit order however transactions interleave (writers in
 * parallel on raw connections, a reader following them), and two service processes on one database whose clients
 * get every change made through either, under the same positions.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrate } from '../../src/store/sql/migrate.ts';
import { PgDriver } from '../../src/store/sql/pg.ts';
import { STREAM_CHANNEL, SqlStreamLog, StreamLogReader, type StreamRow } from '../../src/store/sql/stream-log.ts';
import { SqlSource } from '../../src/stream/sql-source.ts';
import { compare, type Delivery } from '../../src/stream/source.ts';
import { killAll, startServer, type ServerProcess } from '../helpers/server-process.ts';
import { testServer } from '../store/sql-harness.ts';
import { until } from '../helpers/until.ts';
import { SseReader } from '../stream/sse.ts';

const found = await testServer();
const skip = 'skip' in found ? found.skip : undefined;
if (skip) process.stdout.write(`# event stream on PostgreSQL skipped: ${skip}\n`);

async function database(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  if (!('server' in found)) throw new Error('no server');
  const server = found.server;
  t.after(() => server.dropAll());
  return server.database();
}

test(
  'a transaction that commits late with an older id is not skipped: rows go out in settled order',
  { skip },
  async (t) => {
    const url = await database(t);
    const driver = new PgDriver({ connectionString: url, poolSize: 20 });
    t.after(() => driver.close());
    await migrate(driver);
    const source = new SqlSource(driver, { retentionMs: 86_400_000, onError: (err) => assert.fail(String(err)) });
    const got: Delivery[] = [];
    await source.start((batch) => got.push(...batch));
    t.after(() => source.close());

    // The older transaction writes first (its row is in: it has its id) and commits last.
    let releaseOld!: () => void;
    const oldHolds = new Promise<void>((resolve) => (releaseOld = resolve));
    let oldWrote!: () => void;
    const wrote = new Promise<void>((resolve) => (oldWrote = resolve));
    const old = driver.transaction(async (c) => {
      await new SqlStreamLog(c).append([{ type: 'old', projectId: null, body: '{}' }]);
      oldWrote();
      await oldHolds;
    });
    try {
      await Promise.race([wrote, old]);
      await driver.transaction((c) => new SqlStreamLog(c).append([{ type: 'young', projectId: null, body: '{}' }]));
      source.committed([]);
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(
        got.map((d) => d.type),
        [],
        'the younger row waits for the older transaction',
      );
    } finally {
      // Also when an assertion failed: a transaction left open would keep the pool, and the file, from ending.
      releaseOld();
      await old;
    }
    source.committed([]);
    await until('both rows', () => got.length === 2);
    assert.deepEqual(
      got.map((d) => d.type),
      ['old', 'young'],
    );
  },
);

test('retention: rows past it are deleted, and their positions can no longer be resumed from', { skip }, async (t) => {
  const url = await database(t);
  const driver = new PgDriver({ connectionString: url });
  t.after(() => driver.close());
  await migrate(driver);
  for (const type of ['a', 'b', 'c']) {
    await driver.transaction((c) => new SqlStreamLog(c).append([{ type, projectId: null, body: '{}' }]));
  }
  const reader = new StreamLogReader(driver);
  // Rows are settled only once every older transaction on the server has ended, in any database (the snapshot's
  // xmin is the server's): another test's open transaction holds them back a moment, so read again as the stream does.
  let rows: StreamRow[] = [];
  await until('the three rows settled', async () => (rows = (await reader.after(undefined, 10)).rows).length === 3);
  assert.deepEqual(
    rows.map((r) => r.type),
    ['a', 'b', 'c'],
  );
  assert.equal(await reader.locate(rows[0]!), 'kept');
  const beforeAny = { xid: 0n, seq: 0n }; // what a reset gives while the table is empty
  assert.equal(await reader.locate(beforeAny), 'kept', 'nothing pruned yet: every event after it is there');
  assert.equal(await reader.prune(86_400_000), 0);
  assert.equal(await reader.locate(beforeAny), 'kept', 'a prune that removed nothing changes nothing');
  await driver.query(`UPDATE stream_events SET created_at = now() - interval '2 days' WHERE type = 'a'`);
  assert.equal(await reader.prune(86_400_000), 1);
  assert.equal(await reader.locate(rows[0]!), 'expired');
  assert.equal(await reader.locate(beforeAny), 'expired');
  assert.equal(await reader.locate({ xid: rows[2]!.xid + 1000n, seq: 1n }), 'unknown');
  // Every row past it (a service idle for longer than the retention): a position it gave out is still an old one.
  await driver.query(`UPDATE stream_events SET created_at = now() - interval '2 days'`);
  assert.equal(await reader.prune(86_400_000), 2);
  assert.equal(await reader.locate(rows[2]!), 'expired');
  assert.equal(await reader.locate(beforeAny), 'expired');
  assert.equal(await reader.locate({ xid: rows[2]!.xid + 1_000_000_000n, seq: 1n }), 'unknown', 'never given out');
});

test('writers in parallel, a reader following: every row once, positions only growing', { skip }, async (t) => {
  const url = await database(t);
  const driver = new PgDriver({ connectionString: url, poolSize: 20 });
  t.after(() => driver.close());
  await migrate(driver);
  const source = new SqlSource(driver, { retentionMs: 86_400_000, onError: (err) => assert.fail(String(err)) });
  const got: Delivery[] = [];
  await source.start((batch) => got.push(...batch));
  t.after(() => source.close());

  const writers = 16;
  const each = 25;
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < each; i++) {
        await driver.transaction(async (c) => {
          const log = new SqlStreamLog(c);
          await log.append([{ type: `w${w}`, projectId: null, body: String(i) }]);
          // Hold the transaction open a random while, so that commits interleave out of id order.
          await new Promise((r) => setTimeout(r, Math.random() * 8));
          await log.append([{ type: `w${w}`, projectId: null, body: `${i}b` }]);
        });
        // As an instance does once its change has committed (SqlSource.committed).
        await driver.query('SELECT pg_notify($1, $2)', [STREAM_CHANNEL, '']);
      }
    }),
  );
  await until('every row', () => got.length >= writers * each * 2);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(got.length, writers * each * 2);
  assert.equal(new Set(got.map((d) => d.id)).size, got.length, 'no row twice');
  for (let i = 1; i < got.length; i++) assert.ok(compare(got[i - 1]!.position, got[i]!.position) < 0);
  for (let w = 0; w < writers; w++) {
    const mine = got.filter((d) => d.type === `w${w}`).map((d) => d.body);
    assert.deepEqual(mine, Array.from({ length: each }, (_, i) => [String(i), `${i}b`]).flat(), `writer ${w} in order`);
  }
});

test(
  'two service processes on one database: a change through either reaches the clients of both',
  { skip },
  async (t) => {
    const url = await database(t);
    const servers: ServerProcess[] = [];
    t.after(() => servers.forEach((s) => killAll(s.child)));
    servers.push(await startServer([], { DATABASE_URL: url, LOG_LEVEL: 'info' }));
    servers.push(await startServer([], { DATABASE_URL: url, LOG_LEVEL: 'info' }));
    const [one, two] = servers as [ServerProcess, ServerProcess];
    const readers: SseReader[] = [];
    t.after(() => readers.forEach((r) => r.close()));
    const open = async (base: string, headers: Record<string, string> = {}) => {
      const reader = await SseReader.open(`${base}/api/stream?types=task.*`, headers);
      readers.push(reader);
      return reader;
    };
    const onOne = await open(one.baseUrl);
    const onTwo = await open(two.baseUrl);
    const post = (base: string, title: string) =>
      fetch(`${base}/api/tasks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ projectId: 'proj_001', title }),
      }).then((r) => assert.equal(r.status, 201));
    await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => post(one.baseUrl, `one ${i}`)),
      ...Array.from({ length: 10 }, (_, i) => post(two.baseUrl, `two ${i}`)),
    ]);
    await onOne.take(20, 10_000);
    await onTwo.take(20, 10_000);
    assert.deepEqual(
      onOne.events.map((e) => e.id),
      onTwo.events.map((e) => e.id),
      'the same events, the same order',
    );
    assert.deepEqual(
      new Set(onOne.events.map((e) => JSON.parse(e.data).data.title)),
      new Set([
        ...Array.from({ length: 10 }, (_, i) => `one ${i}`),
        ...Array.from({ length: 10 }, (_, i) => `two ${i}`),
      ]),
    );

    // A client of the first resumes on the second from the same position.
    const resumed = await open(two.baseUrl, { 'last-event-id': onOne.events[9]!.id! });
    await post(one.baseUrl, 'after');
    const events = await resumed.take(11, 10_000);
    assert.deepEqual(
      events.slice(0, 10).map((e) => e.id),
      onOne.events.slice(10, 20).map((e) => e.id),
    );
    assert.equal(JSON.parse(events[10]!.data).data.title, 'after');

    // SIGTERM with streams open: they end at once, the process exits well within its grace period, one access line
    // per stream closed.
    const started = Date.now();
    one.child.kill('SIGTERM');
    assert.equal(await one.exited, 0);
    assert.ok(Date.now() - started < 5_000, `stopped in ${Date.now() - started} ms`);
    await onOne.ended;
    const lines = one
      .output()
      .split('\n')
      .filter((l) => l.includes('"url":"/api/stream'));
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0]!, /"statusCode":200/);
  },
);
