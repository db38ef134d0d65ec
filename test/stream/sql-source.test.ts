/**
 * The durable stores' event source while its database does not answer: it tries again at its own pace, reports the
 * first failed read of a run and then seldom, says when reads go through again, and then delivers what was written
 * meanwhile. A driver stands in for the database, so the outage is the test's to start and end.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StoreUnavailableError } from '../../src/store/errors.ts';
import type { SqlClient, SqlDriver } from '../../src/store/sql/driver.ts';
import { SqlSource } from '../../src/stream/sql-source.ts';
import type { Delivery } from '../../src/stream/source.ts';
import { until } from '../helpers/until.ts';

/** A database with an empty event table, or none that answers while `down`; counts the reads of the table. */
class SwitchedDriver implements SqlDriver {
  readonly kind = 'embedded';
  down = false;
  reads = 0;
  /** Rows the next read finds (one event written while the database was away). */
  pending: Record<string, unknown>[] = [];

  async query<R extends object>(text: string): Promise<R[]> {
    if (/FROM stream_events WHERE/.test(text) && !/DESC/.test(text)) this.reads++;
    if (this.down) throw new StoreUnavailableError('the database is unavailable: connect ECONNREFUSED');
    if (/AS n FROM gone/.test(text)) return [{ n: '0' }] as R[]; // the pruning: nothing old enough
    if (!/FROM stream_events WHERE/.test(text) || /DESC/.test(text)) return [];
    const rows = this.pending;
    this.pending = [];
    return rows as R[];
  }
  async exec(): Promise<void> {}
  transaction<R>(work: (client: SqlClient) => Promise<R>): Promise<R> {
    return work(this);
  }
  async close(): Promise<void> {}
}

test('reads that fail are tried again and reported at most once per failureLogMs, then the source goes on', async (t) => {
  const driver = new SwitchedDriver();
  const reported: number[] = [];
  const recovered: number[] = [];
  const source = new SqlSource(driver, {
    retentionMs: 86_400_000,
    onError: (err) => assert.fail(String(err)),
    onReadFailing: (_err, failures) => reported.push(failures),
    onReadRecovered: (failures) => recovered.push(failures),
    failedRetryMs: 50,
    failureLogMs: 400,
  });
  const got: Delivery[] = [];
  await source.start((batch) => got.push(...batch));
  t.after(() => source.close());

  driver.down = true;
  driver.reads = 0;
  const began = performance.now();
  source.committed([]); // a read now, which fails
  await until('ten failed reads', () => driver.reads >= 10);
  // Reported once per failureLogMs at most, not once per failed read (however slow the machine made the reads).
  const allowed = 1 + Math.floor((performance.now() - began) / 400);
  assert.deepEqual(reported.slice(0, 1), [1]);
  assert.ok(reported.length <= allowed, `reported ${JSON.stringify(reported)} of ${driver.reads} failed reads`);
  // Reported again later in the run, with the count so far.
  await until('a second report of the run', () => reported.length >= 2);
  assert.ok(reported[1]! > 1, 'the second report counts the failures of the run');
  assert.deepEqual(recovered, []);
  const failedReads = driver.reads;

  // Back: the next try reads what was written meanwhile, and says how many reads had failed.
  driver.pending = [
    { xid_text: '900', seq_text: '1', type: 'task.created', project_id: 'proj_001', body: '{}', settled: true },
  ];
  driver.down = false;
  await until('the event written during the outage', () => got.length === 1);
  assert.equal(recovered.length, 1);
  assert.ok(recovered[0]! >= failedReads, `${recovered[0]} failures counted`);
  assert.equal(got[0]!.type, 'task.created');

  // A new outage is a new run: reported at once.
  driver.down = true;
  source.committed([]);
  await until('the next outage reported', () => reported.length === 3);
  assert.equal(reported[2], 1);
});
