import type { Page } from '../../model/list.ts';
import type {
  Backlog,
  ClaimedDelivery,
  ClaimRequest,
  DeliveryLog,
  DeliveryQuery,
  Outcome,
  StoredDelivery,
} from '../outbox.ts';
import { DELIVERY_NEWEST_FIRST, deliveryFilter, readDeliveryPosition } from '../outbox.ts';
import { rowsWithTotal } from './collection.ts';
import { TableSql } from './table-sql.ts';
import { addRows, type RowInsert } from './batch.ts';
import type { SqlClient, SqlDriver } from './driver.ts';
import { LOCK } from './tables.ts';

/** The channel on which a transaction that adds deliveries announces them (delivered at its COMMIT). */
export const DELIVERIES_CHANNEL = 'pm_webhook_deliveries';

const stamp = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The select list that makes a row a `StoredDelivery`: same keys, timestamps in `toISOString()` form. */
function fields(alias = ''): string {
  const c = (column: string) => `${alias}${column}`;
  return [
    `${c('id')} AS id`,
    `${c('webhook_id')} AS "webhookId"`,
    `${c('event_id')} AS "eventId"`,
    `${c('event_type')} AS "eventType"`,
    `${c('attempt')} AS attempt`,
    `${c('status')} AS status`,
    `${c('response_status')} AS "responseStatus"`,
    `${c('error')} AS error`,
    `${c('duration_ms')} AS "durationMs"`,
    `${stamp(c('created_at'))} AS "createdAt"`,
    `${stamp(c('completed_at'))} AS "completedAt"`,
    `${stamp(c('next_attempt_at'))} AS "nextAttemptAt"`,
    `${c('url')} AS url`,
    `${c('queued_ms')} AS "queuedMs"`,
    `${c('stop_reason')} AS "stopReason"`,
    `${c('payload')} AS payload`,
    `${stamp(c('due_at'))} AS "dueAt"`,
    `${c('force')} AS force`,
    `${stamp(c('lease_until'))} AS "leaseUntil"`,
    `${c('leased_by')} AS "leasedBy"`,
  ].join(', ');
}
const FIELDS = fields();

/**
 * The fields the log is filtered and sorted by, as a table of the shared statements (collection.ts `TableSql`):
 * its conditions (`AnyOf`, `Range`), its `ORDER BY` and the rows after a position. Its other statements go unused.
 */
const LOG = new TableSql({
  name: 'webhook_deliveries',
  columns: [
    { field: 'id', column: 'id', type: 'text' },
    { field: 'status', column: 'status', type: 'text' },
    { field: 'eventType', column: 'event_type', type: 'text' },
    { field: 'createdAt', column: 'created_at', type: 'timestamptz' },
  ],
});

const COLUMNS = [
  ['id', 'text'],
  ['webhook_id', 'text'],
  ['event_id', 'text'],
  ['event_type', 'text'],
  ['attempt', 'int'],
  ['status', 'text'],
  ['response_status', 'int'],
  ['error', 'text'],
  ['duration_ms', 'int'],
  ['created_at', 'timestamptz'],
  ['completed_at', 'timestamptz'],
  ['next_attempt_at', 'timestamptz'],
  ['url', 'text'],
  ['queued_ms', 'int'],
  ['stop_reason', 'text'],
  ['payload', 'text'],
  ['due_at', 'timestamptz'],
  ['force', 'boolean'],
  ['lease_until', 'timestamptz'],
  ['leased_by', 'text'],
] as const;
const COLUMN_NAMES = COLUMNS.map(([c]) => c).join(', ');
/**
 * The columns of rows that carry a trace context too: only then is `trace_parent` written (traces off, the
 * statements are those without it).
 */
const TRACED_COLUMNS = [...COLUMNS, ['trace_parent', 'text']] as const;
const TRACED_COLUMN_NAMES = TRACED_COLUMNS.map(([c]) => c).join(', ');
/** The types of an outcome's columns, in the order `settle` sends them. */
const OUTCOME_TYPES = ['text', 'text', 'int', 'text', 'int', 'timestamptz', 'timestamptz', 'text', 'int', 'text'];

function values(r: StoredDelivery): unknown[] {
  return [
    r.id,
    r.webhookId,
    r.eventId,
    r.eventType,
    r.attempt,
    r.status,
    r.responseStatus,
    r.error,
    r.durationMs,
    r.createdAt,
    r.completedAt,
    r.nextAttemptAt,
    r.url,
    r.queuedMs,
    r.stopReason,
    r.payload,
    r.dueAt,
    r.force,
    r.leaseUntil,
    r.leasedBy,
  ];
}

/** The webhook of a claimed row, read by the claim (all null when the webhook is deleted). */
interface Hook {
  '@hookId': string | null;
  '@hookUrl': string | null;
  '@hookSecret': string | null;
  '@hookActive': boolean | null;
}

const TUPLE = `(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}`).join(', ')})`;
const TRACED_TUPLE = `(${TRACED_COLUMNS.map(([, type], i) => `$${i + 1}::${type}`).join(', ')})`;

/** The rows that add deliveries: with their trace contexts when one of them has one. */
function insert(rows: readonly StoredDelivery[]): RowInsert {
  if (!rows.some((r) => r.traceParent !== undefined)) {
    return { head: `INSERT INTO webhook_deliveries (${COLUMN_NAMES}) VALUES`, tuple: TUPLE, rows: rows.map(values) };
  }
  return {
    head: `INSERT INTO webhook_deliveries (${TRACED_COLUMN_NAMES}) VALUES`,
    tuple: TRACED_TUPLE,
    rows: rows.map((r) => [...values(r), r.traceParent ?? null]),
  };
}

/**
 * The outbox on PostgreSQL (a server or the embedded one), shared by every instance on the database.
 *
 * A worker of our own over `FOR UPDATE SKIP LOCKED` rather than pg-boss or graphile-worker: the row a job queue
 * would hold is the delivery log itself (one row per attempt, read by `GET …/deliveries`), the retry schedule is
 * the service's (jitter, `Retry-After`, the stored `next_attempt_at` followed exactly), the fairness rule is per
 * webhook, and the same code runs on the embedded PostgreSQL and in memory; a queue library would add its own
 * schema, its own worker loop and a second copy of each delivery, and does not run on PGlite.
 *
 * Claiming is one statement: the due, unleased pending rows, at most a webhook's `room` (or `perWebhook`) of each,
 * oldest due first, found webhook by webhook (migration 008: a webhook with a long backlog, a receiver that is
 * down, costs one index probe, not a pass over its rows), locked with `FOR UPDATE SKIP LOCKED` (two instances
 * never take the same row) and leased until `leaseUntil`; each candidate is locked and updated through the row
 * version the statement found (`ctid`), so that the claim reads only the rows it takes, however long the backlog of
 * a receiver that is down. A candidate another worker changed meanwhile is locked in its newest version and checked
 * again (PostgreSQL's recheck of the conditions for `FOR UPDATE`): taken only if still pending and unleased. A worker
 * that dies leaves its rows leased; once the lease runs out (the attempt timeout plus a margin) any instance claims
 * them again. Settling and giving back go by id and check the lease is still the worker's (only a pending row has a
 * holder), so an attempt is written once.
 *
 * The workers' own statements (claim, settle, release, the next due time, prune) go through the driver's
 * `background` connections when it has them: not in line behind the requests' transactions, and committed without
 * waiting for the disk (pg.ts). What a crash of the database server may lose of them is the outcome of the last
 * attempts and their leases: those deliveries are attempted again, as after a crash of the service (at least once).
 * Those connections plan each statement once, with only index walks to choose from (pg.ts): every statement here is
 * written so that the walk it was meant for is the plan left, whatever the table held when it was planned.
 */
export class SqlDeliveryLog implements DeliveryLog {
  readonly durable = true;
  /** Where the workers' statements go. */
  private readonly worker: SqlClient;

  constructor(
    private readonly db: SqlClient,
    private readonly driver?: SqlDriver,
  ) {
    this.worker = driver?.background ?? db;
  }

  async add(rows: readonly StoredDelivery[]): Promise<void> {
    await addRows(this.db, insert(rows));
  }

  /**
   * Tells the other instances' workers that deliveries were added, after the transaction that added them has
   * committed: a NOTIFY inside it would make every writing transaction take PostgreSQL's one notification lock
   * through its COMMIT, one at a time.
   */
  async announce(): Promise<void> {
    await this.driver?.notify?.(DELIVERIES_CHANNEL);
  }

  async exclusively<R>(webhookId: string, work: (log: DeliveryLog) => Promise<R>): Promise<R> {
    if (!this.driver) return work(this);
    return this.driver.transaction(async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK.webhooks, webhookId]);
      return work(new SqlDeliveryLog(client));
    });
  }

  async claim(r: ClaimRequest): Promise<ClaimedDelivery[]> {
    const room = [...r.room.entries()];
    const rows = await this.worker.query<StoredDelivery & Hook & { '@traceParent': string | null }>(
      `WITH RECURSIVE hooks AS (
         (SELECT webhook_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY webhook_id LIMIT 1)
         UNION ALL
         SELECT (SELECT d.webhook_id FROM webhook_deliveries d
                  WHERE d.status = 'pending' AND d.webhook_id > hooks.webhook_id ORDER BY d.webhook_id LIMIT 1)
           FROM hooks WHERE hooks.webhook_id IS NOT NULL
       ), candidates AS (
         SELECT c.ctid, c.due_at, c.seq FROM hooks
         LEFT JOIN unnest($4::text[], $5::int[]) AS room(webhook_id, n) ON room.webhook_id = hooks.webhook_id
         CROSS JOIN LATERAL (
           SELECT d.ctid, d.due_at, d.seq FROM webhook_deliveries d
            WHERE d.webhook_id = hooks.webhook_id AND d.status = 'pending' AND d.due_at <= $1::timestamptz
              AND (d.lease_until IS NULL OR d.lease_until <= $1::timestamptz)
            ORDER BY d.due_at, d.seq
            LIMIT greatest(coalesce(room.n, $3::int), 0)
         ) c
         WHERE hooks.webhook_id IS NOT NULL
         ORDER BY c.due_at, c.seq
         LIMIT $2::int
       ), locked AS (
         SELECT l.ctid, l.webhook_id FROM candidates c CROSS JOIN LATERAL (
           SELECT d.ctid, d.webhook_id FROM webhook_deliveries d
            WHERE d.ctid = c.ctid AND d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= $1::timestamptz)
              FOR UPDATE OF d SKIP LOCKED
         ) l
       )
       UPDATE webhook_deliveries d SET lease_until = $6::timestamptz, leased_by = $7::text
         FROM locked LEFT JOIN webhooks w ON w.id = locked.webhook_id
        WHERE d.ctid = locked.ctid
       RETURNING ${fields('d.')}, d.trace_parent AS "@traceParent", w.id AS "@hookId", w.url AS "@hookUrl",
                 w.secret AS "@hookSecret", w.active AS "@hookActive"`,
      [r.now, r.limit, r.perWebhook, room.map(([id]) => id), room.map(([, n]) => n), r.leaseUntil, r.owner],
    );
    return rows.map(
      ({
        '@traceParent': traceParent,
        '@hookId': id,
        '@hookUrl': url,
        '@hookSecret': secret,
        '@hookActive': active,
        ...row
      }) => ({
        ...row,
        ...(traceParent !== null && { traceParent }),
        webhook: id === null ? null : { id, url: url!, secret: secret!, active: active! },
      }),
    );
  }

  /**
   * One statement for every outcome, however many: the outcomes as arrays, one per column (`unnest`), so that the
   * text is the same whatever their number; the rows still leased to `owner` updated; the next attempts of those
   * (and only those) added by the same statement, so an outcome and its retry are written together or not at all.
   */
  async settle(outcomes: readonly Outcome[], owner: string): Promise<ReadonlySet<string>> {
    if (outcomes.length === 0) return new Set();
    const params: unknown[] = [owner];
    const arrays = (rows: readonly (readonly unknown[])[], types: readonly string[]) =>
      types.map((type, i) => `$${params.push(rows.map((row) => row[i]))}::${type}[]`).join(', ');
    const done = arrays(
      outcomes.map(({ done: d }) => [
        d.id,
        d.status,
        d.responseStatus,
        d.error,
        d.durationMs,
        d.completedAt,
        d.nextAttemptAt,
        d.url,
        d.queuedMs,
        d.stopReason,
      ]),
      OUTCOME_TYPES,
    );
    const retries = outcomes.filter((o): o is Required<Outcome> => o.next !== undefined);
    // The retries carry their delivery's trace context, if one of them has one (traces on).
    const withTrace = retries.some(({ next }) => next.traceParent !== undefined);
    const [columns, names] = withTrace ? [TRACED_COLUMNS, TRACED_COLUMN_NAMES] : [COLUMNS, COLUMN_NAMES];
    const added =
      retries.length === 0
        ? ''
        : `, added AS (
             INSERT INTO webhook_deliveries (${names})
             SELECT ${names} FROM unnest(${arrays(
               retries.map(({ done: d, next }) => [
                 d.id,
                 ...values(next),
                 ...(withTrace ? [next.traceParent ?? null] : []),
               ]),
               ['text', ...columns.map(([, type]) => type)],
             )}) AS n(after, ${names})
              WHERE n.after IN (SELECT id FROM settled)
           )`;
    const rows = await this.worker.query<{ id: string }>(
      `WITH done AS (
         SELECT * FROM unnest(${done}) AS o(id, status, response_status, error, duration_ms, completed_at,
                                            next_attempt_at, url, queued_ms, stop_reason)
       ), settled AS (
         UPDATE webhook_deliveries d SET status = o.status, response_status = o.response_status, error = o.error,
                duration_ms = o.duration_ms, completed_at = o.completed_at, next_attempt_at = o.next_attempt_at,
                url = o.url, queued_ms = o.queued_ms, stop_reason = o.stop_reason, lease_until = NULL,
                leased_by = NULL
           FROM done o
          WHERE d.id = o.id AND d.leased_by = $1
         RETURNING d.id
       )${added}
       SELECT id FROM settled`,
      params,
    );
    return new Set(rows.map((r) => r.id));
  }

  async release(ids: readonly string[], owner: string): Promise<void> {
    if (ids.length === 0) return;
    await this.worker.query(
      `UPDATE webhook_deliveries SET lease_until = NULL, leased_by = NULL
        WHERE id = ANY($1::text[]) AND leased_by = $2`,
      [ids, owner],
    );
  }

  async list(webhookId: string, q: DeliveryQuery = {}): Promise<StoredDelivery[]> {
    return (await this.page(webhookId, q)).items;
  }

  /**
   * Keyset pages in the order of `orderBy` (the shared one of every table), ties by `seq` descending: a position
   * is the last row's sort values and `seq`. Newest first (the default), the order and the rows after a position,
   * `(created_at, seq) < (…)`, are those of the index `(webhook_id, created_at DESC, seq DESC)` (migration 004);
   * another sort reads the webhook's matching rows and orders them (the log of one webhook, pruned by age).
   */
  async page(webhookId: string, q: DeliveryQuery): Promise<Page<StoredDelivery>> {
    const sort = q.sort ?? DELIVERY_NEWEST_FIRST;
    const params: unknown[] = [webhookId];
    const where = ['webhook_id = $1', ...LOG.where(deliveryFilter(q), params)];
    if (q.since !== undefined) where.push(`created_at >= $${params.push(q.since)}::timestamptz`);
    if (q.until !== undefined) where.push(`created_at <= $${params.push(q.until)}::timestamptz`);
    const counted = `SELECT count(*)::int AS n FROM webhook_deliveries WHERE ${where.join(' AND ')}`;
    const countParams = [...params];
    if (q.after) {
      readDeliveryPosition(q.after, sort); // its values, checked as the log writes them
      where.push(LOG.after(sort, q.after, params, true));
    }
    const limit = q.limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(q.limit)) + 1}`;
    const everything = q.limit === undefined && q.after === undefined;
    const { rows, total } = await rowsWithTotal<StoredDelivery & { '@seq': string }>(
      this.db,
      (total) =>
        `SELECT ${FIELDS}, seq::text AS "@seq"${total} FROM webhook_deliveries WHERE ${where.join(' AND ')}
          ORDER BY ${LOG.orderBy(sort, true)}${limit}`,
      params,
      everything || q.skipTotal ? undefined : { text: counted, params: countParams, first: q.after === undefined },
    );
    const more = q.limit !== undefined && rows.length > q.limit;
    if (more) rows.length = q.limit!;
    const last = rows[rows.length - 1] as Record<string, unknown> | undefined;
    const next = more && last ? [...sort.map((k) => last[k.field]), last['@seq']] : null;
    const items = rows.map(({ '@seq': _seq, ...row }) => row as StoredDelivery);
    return { items, total: total ?? rows.length, next };
  }

  async find(webhookId: string, deliveryId: string): Promise<StoredDelivery | undefined> {
    const [row] = await this.db.query<StoredDelivery>(
      `SELECT ${FIELDS} FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2`,
      [deliveryId, webhookId],
    );
    return row;
  }

  async nextDue(after: string): Promise<string | null> {
    // The first row in due order, not `min(due_at)`: the plan reads one entry of `webhook_deliveries_due`, not the
    // whole backlog of a receiver that is down.
    const [row] = await this.worker.query<{ at: string }>(
      `SELECT ${stamp('due_at')} AS at FROM webhook_deliveries
        WHERE status = 'pending' AND lease_until IS NULL AND due_at > $1::timestamptz
        ORDER BY due_at LIMIT 1`,
      [after],
    );
    return row?.at ?? null;
  }

  async pending(): Promise<number> {
    const [row] = await this.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`,
    );
    return row?.n ?? 0;
  }

  async backlog(now: string): Promise<Backlog> {
    const [row] = await this.db.query<{ due: number; waiting: number }>(
      `SELECT count(*) FILTER (WHERE due_at <= $1::timestamptz)::int AS due,
              count(*) FILTER (WHERE due_at > $1::timestamptz)::int AS waiting
         FROM webhook_deliveries WHERE status = 'pending'`,
      [now],
    );
    return { due: row?.due ?? 0, waiting: row?.waiting ?? 0 };
  }

  async prune(before: string): Promise<number> {
    const rows = await this.worker.query(
      `DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < $1::timestamptz RETURNING 1`,
      [before],
    );
    return rows.length;
  }

  async forget(): Promise<void> {
    // Kept by age, not per webhook: a deleted webhook's rows go when pruned; its pending ones are cancelled.
  }

  async listen(wake: () => void): Promise<() => Promise<void>> {
    if (!this.driver?.listen) return async () => {};
    // A reconnected listener may have missed notifications: wake then too.
    return this.driver.listen(DELIVERIES_CHANNEL, () => wake(), wake);
  }
}
