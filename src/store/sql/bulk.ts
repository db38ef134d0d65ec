import type { Snapshot, SnapshotRecords } from '../store.ts';
import type { SqlClient } from './driver.ts';
import { PRUNED } from './stream-log.ts';
import { RECORD_TABLES, TABLES } from './tables.ts';
import { TableSql } from './table-sql.ts';

/** How many rows a snapshot's part holds: one `FETCH` each. */
const PART = 5_000;

/** Each kind's records in the order a snapshot reads them (store.ts `Snapshot.read`). */
const ORDER: Record<keyof SnapshotRecords, string> = {
  teams: 'seq',
  projects: 'seq',
  milestones: 'seq',
  tasks: 'seq',
  comments: 'seq',
  timeEntries: 'seq',
  webhooks: 'seq',
  notifications: 'seq',
  activity: 'occurred_at, seq',
  tokens: 'seq',
};

/**
 * The records of a `REPEATABLE READ, READ ONLY` transaction, read through a cursor a part at a time: one query
 * plan, no offset to skip, and every part from the transaction's one snapshot.
 */
export function snapshotOn(client: SqlClient): Snapshot {
  let cursors = 0;
  return {
    read: <K extends keyof SnapshotRecords>(kind: K) => ({
      async *[Symbol.asyncIterator]() {
        const sql = new TableSql(TABLES[kind]);
        const cursor = `snapshot_${++cursors}`;
        await client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${sql.select} ORDER BY ${ORDER[kind]}`);
        try {
          for (;;) {
            const rows = await client.query<SnapshotRecords[K]>(`FETCH FORWARD ${PART} FROM ${cursor}`);
            if (rows.length > 0) yield rows;
            if (rows.length < PART) break;
          }
        } finally {
          await client.query(`CLOSE ${cursor}`);
        }
      },
    }),
  };
}

/** Whether any table of records holds a row. */
export async function holdsRecords(client: SqlClient): Promise<boolean> {
  const [row] = await client.query<{ any: boolean }>(
    `SELECT ${RECORD_TABLES.map((t) => `EXISTS (SELECT 1 FROM ${t})`).join(' OR ')} AS any`,
  );
  return row!.any;
}

/**
 * Empties every table of records, the webhook deliveries and the event stream's log: a client resuming the stream
 * from before is told to start over (`stream.reset`), and every event from now on is kept.
 */
export async function emptyTables(client: SqlClient): Promise<void> {
  await client.query(`TRUNCATE ${RECORD_TABLES.join(', ')}, webhook_deliveries, stream_events RESTART IDENTITY`);
  await client.query('DELETE FROM store_state WHERE key = $1', [PRUNED]);
}

/** Notes that the store holds its records: a start loads no sample records into it. */
export async function markSeeded(client: SqlClient): Promise<void> {
  await client.query(
    `INSERT INTO store_state (key, value) VALUES ('seeded', $1) ON CONFLICT (key) DO UPDATE SET value = $1`,
    [new Date().toISOString()],
  );
}

/**
 * Runs `work` (a bulk load into `tables`) with their plain indexes (those that keep no constraint: the list orders,
 * the trigram indexes of `q`) dropped, then makes them again, in the transaction of `work`: built once over every
 * row, an index costs a fraction of what it costs kept up row by row (a GIN trigram index above all). The unique
 * indexes (ids, `seq`) stay, as the writes' checks need them. Nobody sees the tables without their indexes: dropping
 * one locks its table until the transaction ends.
 */
export async function withoutPlainIndexes<R>(client: SqlClient, work: () => Promise<R>): Promise<R> {
  const indexes = await client.query<{ name: string; definition: string }>(
    `SELECT quote_ident(n.nspname) || '.' || quote_ident(x.relname) AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i
       JOIN pg_class x ON x.oid = i.indexrelid
       JOIN pg_class t ON t.oid = i.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = current_schema() AND t.relname = ANY($1) AND NOT i.indisunique AND NOT i.indisprimary`,
    [RECORD_TABLES],
  );
  for (const { name } of indexes) await client.query(`DROP INDEX ${name}`);
  const result = await work();
  for (const { definition } of indexes) await client.query(definition);
  return result;
}
