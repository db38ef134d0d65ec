import type { ActivityLog, ActivityQuery, ActivityRecord, Collection, Entity, Updated } from '../types.ts';
import { type Filter, type ListQuery, type Page, type Search, type SortKey } from '../../model/list.ts';
import { addRows, readFrom } from './batch.ts';
import type { SqlClient } from './driver.ts';
import { TableSql } from './table-sql.ts';
import { parameter, toParameter } from './tables.ts';

/** A collection in its table. `seq` keeps the creation order, which an UPDATE leaves alone. */
export class SqlCollection<T extends Entity> implements Collection<T> {
  constructor(
    private readonly db: SqlClient,
    private readonly sql: TableSql,
  ) {}

  async get(id: string): Promise<T | undefined> {
    return (await readFrom<T>(this.db, [this.sql.table.name], this.sql.get, [id]))[0];
  }

  async list(filter: Filter<T> = {}): Promise<T[]> {
    const params: unknown[] = [];
    const where = this.sql.where(filter, params);
    const text = `${this.sql.select}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq`;
    return readFrom<T>(this.db, [this.sql.table.name], text, params);
  }

  async count(): Promise<number> {
    return (await this.db.query<{ n: number }>(this.sql.count))[0]!.n;
  }

  /**
   * One statement for the page (one row more than `limit`, to know whether there is a next), and one for the
   * total: without any condition, the count triggers keep (migration 005), not a count of every row.
   */
  async query(q: ListQuery<T>): Promise<Page<T>> {
    const params: unknown[] = [];
    const sort = q.sort ?? [];
    const where = [...this.sql.where(q.filter ?? {}, params), ...this.sql.search(q.search as Search<object>, params)];
    const countParams = [...params];
    const countWhere = [...where];
    if (q.after) where.push(this.sql.after(sort, q.after, params));
    const { name } = this.sql.table;
    const limit = q.limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(q.limit)) + 1}`;
    const everything = q.limit === undefined && q.after === undefined;
    const { rows, total } = await rowsWithTotal<Sequenced<T>>(
      this.db,
      (total) =>
        `SELECT ${this.sql.fields}, seq AS "@seq"${total} FROM ${name}${whereClause(where)} ` +
        `ORDER BY ${this.sql.orderBy(sort)}${limit}`,
      params,
      everything || q.skipTotal
        ? undefined
        : { text: totalText(name, whereClause(countWhere)), params: countParams, first: q.after === undefined },
    );
    return pageOf(rows, q.limit, sort, total);
  }

  async insert(record: T): Promise<void> {
    await addRows(this.db, this.sql.insert(record));
  }

  async replace(record: T): Promise<void> {
    const rows = await this.db.query(this.sql.update, this.sql.updateValues(record));
    if (rows.length === 0) throw new Error(`no record ${record.id}`);
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.query(this.sql.delete, [id])).length > 0;
  }

  /** One statement: the rows deleted are returned and put in creation order. */
  async deleteWhere(filter: Filter<T>): Promise<T[]> {
    const params: unknown[] = [];
    const { name } = this.sql.table;
    const text =
      `WITH gone AS (DELETE FROM ${name}${whereClause(this.sql.where(filter, params))} RETURNING *) ` +
      `SELECT ${this.sql.fields} FROM gone ORDER BY seq`;
    return this.db.query<T>(text, params);
  }

  /**
   * One statement: the matching rows are read (and locked) and updated from the same snapshot, and both versions
   * of each come back, told apart by `@version` and ordered by creation (`@seq`), the version before first.
   */
  async updateWhere(filter: Filter<T>, changes: Partial<Omit<T, 'id'>>, updatedAt?: string): Promise<Updated<T>[]> {
    const params: unknown[] = [];
    const { name } = this.sql.table;
    const where = whereClause(this.sql.where(filter, params));
    const sets = Object.entries(changes)
      .filter(([field, value]) => field !== 'id' && value !== undefined)
      .map(([field, value]) => {
        const c = this.sql.column(field);
        return `${c.column} = ${parameter(c, params.push(toParameter(c, value)))}`;
      });
    if (updatedAt !== undefined) {
      const c = this.sql.column('updatedAt');
      sets.push(`${c.column} = GREATEST($${params.push(updatedAt)}::timestamptz, t.${c.column} + interval '1 ms')`);
    }
    if (sets.length === 0) return (await this.list(filter)).map((record) => ({ previous: record, record }));
    const text =
      `WITH previous AS (SELECT * FROM ${name}${where} FOR UPDATE), ` +
      `changed AS (UPDATE ${name} AS t SET ${sets.join(', ')} FROM previous WHERE t.id = previous.id RETURNING t.*) ` +
      `SELECT 'previous' AS "@version", seq AS "@seq", ${this.sql.fields} FROM previous ` +
      `UNION ALL SELECT 'record', seq, ${this.sql.fields} FROM changed ORDER BY 2, 1`;
    const rows = await this.db.query<Versioned<T>>(text, params);
    const updated: Updated<T>[] = [];
    for (let i = 0; i + 1 < rows.length; i += 2) {
      updated.push({ previous: recordOf(rows[i]!), record: recordOf(rows[i + 1]!) });
    }
    return updated;
  }
}

type Versioned<T> = T & { '@version': string; '@seq': unknown };
type Sequenced<T> = T & { '@seq': string | number };

/** The page of rows read with one more than `limit`: the records without `@seq`, and the next position. */
function pageOf<T>(rows: Sequenced<T>[], limit: number | undefined, sort: readonly SortKey[], total?: number): Page<T> {
  const more = limit !== undefined && rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const items = kept.map(({ '@seq': _seq, ...record }) => record as T);
  const last = kept[kept.length - 1];
  const next =
    more && last
      ? [...sort.map((k) => (last as Record<string, unknown>)[k.field] ?? null), String(last['@seq'])]
      : null;
  return { items, total: total ?? items.length, next };
}

/** A row of `updateWhere` without its bookkeeping columns: the record. */
function recordOf<T>(row: Versioned<T>): T {
  const { '@version': _version, '@seq': _seq, ...record } = row;
  return record as T;
}

const NEWEST_FIRST: readonly SortKey[] = [{ field: 'timestamp', descending: true }];

/**
 * How many rows of `table` match `clause` (a WHERE clause, or empty): without a condition, the sum of the parts
 * the triggers of migration 005 keep (`record_totals`), since counting every row grows with the table.
 */
const totalText = (table: string, clause: string) =>
  clause === ''
    ? `SELECT coalesce(sum(n), 0)::int AS n FROM record_totals WHERE table_name = '${table}'`
    : `SELECT count(*)::int AS n FROM ${table}${clause}`;

const whereClause = (conditions: string[]) => (conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '');

/**
 * A page's rows and the total its filters match, read in one statement so that both come from one snapshot: two
 * statements (on two connections) could count a row committed between them that the page does not show, or the
 * other way round. `page` makes the page's statement with `total` added to its select list (as `"@total"`), or
 * answers undefined for no rows at all; `total.params` are the first of `params`. A first page (`total.first`) without
 * a row has nothing to count; a later one without a row (past the last) reads the total alone. Without `total`, the
 * page alone.
 */
export async function rowsWithTotal<R extends object>(
  db: SqlClient,
  page: (total: string) => string | undefined,
  params: unknown[],
  total: { text: string; params: unknown[]; first: boolean } | undefined,
): Promise<{ rows: R[]; total: number | undefined }> {
  const text = page(total ? `, (${total.text}) AS "@total"` : '');
  const rows = text === undefined ? [] : await db.query<R & { '@total'?: number }>(text, params);
  if (!total) return { rows, total: undefined };
  if (rows.length === 0) {
    const none = text !== undefined && total.first;
    return { rows, total: none ? 0 : (await db.query<{ n: number }>(total.text, total.params))[0]!.n };
  }
  const n = rows[0]!['@total']!;
  for (const row of rows) delete row['@total'];
  return { rows, total: n };
}

/** The activity log in its table, read newest first: by time, then by append order (`seq`). */
export class SqlActivityLog<T extends ActivityRecord> implements ActivityLog<T> {
  constructor(
    private readonly db: SqlClient,
    private readonly sql: TableSql,
  ) {}

  async get(id: string): Promise<T | undefined> {
    return (await this.db.query<T>(this.sql.get, [id]))[0];
  }

  async append(entry: T): Promise<void> {
    await addRows(this.db, this.sql.insert(entry));
  }

  async count(): Promise<number> {
    return (await this.db.query<{ n: number }>(this.sql.count))[0]!.n;
  }

  /** Newest first (`occurred_at`, then `seq`) unless sorted otherwise; ties newest first always. */
  async query(q: ActivityQuery): Promise<Page<T>> {
    const params: unknown[] = [];
    const sort = q.sort ?? NEWEST_FIRST;
    const where = [...this.sql.where(q.filter, params), ...this.sql.search(q.search as Search<object>, params)];
    if (q.since !== undefined)
      where.push(`occurred_at >= $${params.push(new Date(q.since).toISOString())}::timestamptz`);
    if (q.until !== undefined)
      where.push(`occurred_at <= $${params.push(new Date(q.until).toISOString())}::timestamptz`);
    const countParams = [...params];
    const clause = whereClause(where);
    if (q.after) where.push(this.sql.after(sort, q.after, params, true));
    const limit = q.limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(q.limit)) + 1}`;
    const { rows, total } = await rowsWithTotal<Sequenced<T>>(
      this.db,
      (total) =>
        q.limit === 0
          ? undefined
          : `SELECT ${this.sql.fields}, seq AS "@seq"${total} FROM ${this.sql.table.name}${whereClause(where)} ` +
            `ORDER BY ${this.sql.orderBy(sort, true)}${limit}`,
      params,
      q.skipTotal
        ? undefined
        : { text: totalText(this.sql.table.name, clause), params: countParams, first: q.after === undefined },
    );
    return pageOf(rows, q.limit === 0 ? undefined : q.limit, sort, total);
  }
}
