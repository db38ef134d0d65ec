import type { StreamEntry, StreamLog } from '../types.ts';
import { addRows } from './batch.ts';
import type { SqlClient } from './driver.ts';

/** The channel on which each transaction that wrote events announces its last position, at its commit. */
export const STREAM_CHANNEL = 'pm_stream_events';

/** A position in the table: the writing transaction's id, then the row's number in it. */
export interface SqlPosition {
  readonly xid: bigint;
  readonly seq: bigint;
}

/** One row as the stream reads it. */
export interface StreamRow extends SqlPosition {
  readonly type: string;
  readonly projectId: string | null;
  readonly body: string;
}

/** Positions come out as text (bigint and xid8 exceed a JavaScript number), named apart from the columns. */
interface RawRow {
  xid_text: string;
  seq_text: string;
  type: string;
  project_id: string | null;
  body: string;
}
const rowOf = (r: RawRow): StreamRow => ({
  xid: BigInt(r.xid_text),
  seq: BigInt(r.seq_text),
  type: r.type,
  projectId: r.project_id,
  body: r.body,
});

/**
 * Appends in the open transaction (`db` is its connection), with the transaction's other new rows (batch.ts). The
 * other instances hear of it once it has committed (SqlSource notifies STREAM_CHANNEL then): a NOTIFY inside the
 * transaction would make every writing transaction take PostgreSQL's one notification lock through its COMMIT, one
 * at a time.
 */
export class SqlStreamLog implements StreamLog {
  constructor(private readonly db: SqlClient) {}

  async append(entries: readonly StreamEntry[]): Promise<void> {
    await addRows(this.db, {
      head: 'INSERT INTO stream_events (type, project_id, body) VALUES',
      tuple: '($1::text, $2::text, $3::text)',
      rows: entries.map((e) => [e.type, e.projectId, e.body]),
    });
  }
}

/** The `store_state` key noting that stream events were pruned (removed again when the store is reset). */
export const PRUNED = 'stream_pruned';

/** Rows are read only from transactions older than every running one: all of those have committed or failed. */
const SETTLED = 'xid < pg_snapshot_xmin(pg_current_snapshot())';

/**
 * What the stream reads of the table, outside any transaction. Every read answers only settled rows (see the
 * migration), in position order, so a reader that goes on from the last position it took misses nothing.
 */
export class StreamLogReader {
  constructor(private readonly db: SqlClient) {}

  /** The last settled position, or undefined when the table holds none. */
  async head(): Promise<SqlPosition | undefined> {
    const [row] = await this.db.query<RawRow>(
      `SELECT xid::text AS xid_text, seq::text AS seq_text, type, project_id, body FROM stream_events ` +
        `WHERE ${SETTLED} ORDER BY xid DESC, seq DESC LIMIT 1`,
    );
    return row && rowOf(row);
  }

  /**
   * Settled rows after `after` (all of them when undefined), at most `limit`, and whether rows after it are
   * already visible but not yet settled (a transaction older than theirs is still running: read again shortly).
   */
  async after(
    after: SqlPosition | undefined,
    limit: number,
    upTo?: SqlPosition,
  ): Promise<{ rows: StreamRow[]; unsettled: boolean }> {
    const params: unknown[] = [limit];
    let where = 'true';
    if (after) {
      params.push(after.xid.toString(), after.seq.toString());
      where = `(xid, seq) > ($2::xid8, $3::bigint)`;
    }
    if (upTo) {
      params.push(upTo.xid.toString(), upTo.seq.toString());
      where += ` AND (xid, seq) <= ($${params.length - 1}::xid8, $${params.length}::bigint)`;
    }
    const rows = await this.db.query<RawRow & { settled: boolean }>(
      `SELECT xid::text AS xid_text, seq::text AS seq_text, type, project_id, body, ${SETTLED} AS settled ` +
        `FROM stream_events WHERE ${where} ORDER BY xid, seq LIMIT $1`,
      params,
    );
    const settled = rows.filter((r) => r.settled);
    // Positions order by xid first: an unsettled row comes after every settled one, so the settled form a prefix.
    return { rows: settled.map(rowOf), unsettled: settled.length < rows.length };
  }

  /**
   * Whether the table still holds `position`, and if not, whether it is older than every row kept. The position
   * before any event (`0-0`, given out while the table was empty) is kept while no row was ever pruned: every event
   * after it is still there. With every row pruned (a service idle for longer than the retention), a position of a
   * transaction that has begun (below the snapshot's `xmax`) is an old one.
   */
  async locate(position: SqlPosition): Promise<'kept' | 'expired' | 'unknown'> {
    if (position.xid === 0n && position.seq === 0n) {
      const [row] = await this.db.query<{ pruned: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM store_state WHERE key = '${PRUNED}') AS pruned`,
      );
      return row!.pruned ? 'expired' : 'kept';
    }
    const [row] = await this.db.query<{ kept: boolean; expired: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM stream_events WHERE xid = $1::xid8 AND seq = $2::bigint) AS kept, ` +
        `COALESCE((SELECT (xid, seq) > ($1::xid8, $2::bigint) FROM stream_events ORDER BY xid, seq LIMIT 1), ` +
        `EXISTS (SELECT 1 FROM store_state WHERE key = '${PRUNED}') ` +
        `AND $1::xid8 < pg_snapshot_xmax(pg_current_snapshot())) AS expired`,
      [position.xid.toString(), position.seq.toString()],
    );
    return row!.kept ? 'kept' : row!.expired ? 'expired' : 'unknown';
  }

  /**
   * Deletes the rows written more than `ageMs` ago (by the database's clock); answers how many went. Notes that some
   * went (`store_state`), so that the position before any event is no longer one to resume from.
   */
  async prune(ageMs: number): Promise<number> {
    const rows = await this.db.query<{ n: string }>(
      `WITH gone AS (DELETE FROM stream_events WHERE created_at < now() - $1 * interval '1 millisecond' RETURNING 1), ` +
        `noted AS (INSERT INTO store_state (key, value) SELECT '${PRUNED}', now()::text WHERE EXISTS (SELECT 1 FROM gone) ` +
        `ON CONFLICT (key) DO UPDATE SET value = excluded.value) ` +
        `SELECT count(*)::text AS n FROM gone`,
      [ageMs],
    );
    return Number(rows[0]!.n);
  }
}
