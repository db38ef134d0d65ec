import type { ActivityLog, ActivityQuery, ActivityRecord, Collection, Entity, Updated } from '../types.ts';
import {
  AllOf,
  AnyOf,
  PositionError,
  Range,
  type Filter,
  type ListQuery,
  type Page,
  type Position,
  type Search,
  type SortKey,
} from '../../model/list.ts';
import { fitsKind, isSeq, type ValueKind } from '../../model/position.ts';
import { addRows, readFrom, type RowInsert } from './batch.ts';
import type { SqlClient } from './driver.ts';
import { NULLABLE, parameter, selectExpression, toParameter, type Column, type Table } from './tables.ts';

/** The statements of one table, written once. */
export class TableSql {
  readonly select: string;
  readonly get: string;
  readonly count: string;
  /** `INSERT INTO <table> (<columns>) VALUES` and the tuple of one record (batch.ts `RowInsert`). */
  readonly insertHead: string;
  readonly insertTuple: string;
  readonly update: string;
  readonly delete: string;
  /** The select list that makes rows the records themselves. */
  readonly fields: string;
  private readonly byField: Map<string, Column>;
  private readonly nullable: ReadonlySet<string>;

  constructor(readonly table: Table) {
    const { name, columns } = table;
    this.byField = new Map(columns.map((c) => [c.field, c]));
    this.nullable = new Set(NULLABLE[name] ?? []);
    this.fields = columns.map(selectExpression).join(', ');
    this.select = `SELECT ${this.fields} FROM ${name}`;
    this.get = `${this.select} WHERE id = $1`;
    this.count = `SELECT count(*)::int AS n FROM ${name}`;
    this.insertHead = `INSERT INTO ${name} (${columns.map((c) => c.column).join(', ')}) VALUES`;
    this.insertTuple = `(${columns.map((c, i) => parameter(c, i + 1)).join(', ')})`;
    const rest = columns.filter((c) => c.field !== 'id');
    this.update =
      `UPDATE ${name} SET ${rest.map((c, i) => `${c.column} = ${parameter(c, i + 2)}`).join(', ')} ` +
      `WHERE id = $1 RETURNING 1`;
    this.delete = `DELETE FROM ${name} WHERE id = $1 RETURNING 1`;
  }

  /** The rows that add a record. */
  insert(record: object): RowInsert {
    const r = record as Record<string, unknown>;
    return {
      head: this.insertHead,
      tuple: this.insertTuple,
      rows: [this.table.columns.map((c) => toParameter(c, r[c.field]))],
    };
  }

  /** The parameters of `update` for a record: its id, then the other columns. */
  updateValues(record: object): unknown[] {
    const r = record as Record<string, unknown>;
    return [r.id, ...this.table.columns.filter((c) => c.field !== 'id').map((c) => toParameter(c, r[c.field]))];
  }

  /** The column of a field the records have; throws for any other. */
  column(field: string): Column {
    const c = this.byField.get(field);
    if (!c) throw new Error(`${this.table.name} has no field ${field}`);
    return c;
  }

  /**
   * The WHERE conditions of a filter (types.ts `Filter`), its parameters numbered from `params.length + 1`.
   * A field the records do not have matches nothing, as in memory.
   */
  where(filter: object, params: unknown[]): string[] {
    const conditions: string[] = [];
    for (const [field, value] of Object.entries(filter)) {
      if (value === undefined) continue;
      const c = this.byField.get(field);
      conditions.push(c ? condition(c, value, params) : 'FALSE');
    }
    return conditions;
  }

  /**
   * A search as conditions: each term, a case-insensitive substring (`ILIKE`, which the trigram indexes of
   * migration 005 serve), in one of the fields.
   */
  search(search: Search<object> | undefined, params: unknown[]): string[] {
    if (!search) return [];
    const columns = search.fields.map((f) => this.column(f).column);
    return search.terms.map((term) => {
      const n = params.push(`%${term.replace(/[\\%_]/g, '\\$&')}%`);
      return `(${columns.map((c) => `${c} ILIKE $${n}`).join(' OR ')})`;
    });
  }

  /** The ORDER BY of a sort, ties by creation (`seq`), ascending or (the activity log) descending. */
  orderBy(sort: readonly SortKey[], tieDescending = false): string {
    const keys = sort.map(
      (k) =>
        `${this.sortExpression(k)} ${k.descending ? 'DESC' : 'ASC'}${this.nullable.has(k.field) ? ' NULLS LAST' : ''}`,
    );
    return [...keys, `seq ${tieDescending ? 'DESC' : 'ASC'}`].join(', ');
  }

  /**
   * The condition of the rows after a position (`[...sort values, seq]`) in the order of `orderBy`: for the
   * first key that differs, a later value (or null, which comes last); ties by `seq`.
   */
  after(sort: readonly SortKey[], position: Position, params: unknown[], tieDescending = false): string {
    if (!Array.isArray(position) || position.length !== sort.length + 1) throw new PositionError();
    const seq = position[sort.length];
    if (!isSeq(seq) || sort.some((k, i) => !fitsKind(this.kindOf(k), position[i], k.progression))) {
      throw new PositionError();
    }
    // Keys that hold no null, all in the direction of the tie-break: one row comparison, which an index on the
    // same columns serves as a range (the newest-first log, a plain creation order).
    if (sort.every((k) => !this.nullable.has(k.field) && !!k.descending === tieDescending)) {
      const values = sort.map((k, i) => {
        const value = position[i];
        if (typeof value !== 'string' && typeof value !== 'number') throw new PositionError();
        return this.sortParameter(k, params.push(toParameter(this.column(k.field), value)));
      });
      const left = [...sort.map((k) => this.sortExpression(k)), 'seq'].join(', ');
      const right = [...values, `$${params.push(String(seq))}::bigint`].join(', ');
      return `(${left}) ${tieDescending ? '<' : '>'} (${right})`;
    }
    const equal: string[] = [];
    const branches: string[] = [];
    sort.forEach((k, i) => {
      const value = position[i];
      const e = this.sortExpression(k);
      if (value === null) {
        equal.push(`${e} IS NULL`);
        return;
      }
      if (typeof value !== 'string' && typeof value !== 'number') throw new PositionError();
      const p = this.sortParameter(k, params.push(toParameter(this.column(k.field), value)));
      const later = `${e} ${k.descending ? '<' : '>'} ${p}`;
      branches.push([...equal, this.nullable.has(k.field) ? `(${later} OR ${e} IS NULL)` : later].join(' AND '));
      equal.push(`${e} = ${p}`);
    });
    branches.push([...equal, `seq ${tieDescending ? '<' : '>'} $${params.push(String(seq))}::bigint`].join(' AND '));
    return `(${branches.map((b) => `(${b})`).join(' OR ')})`;
  }

  /** What the values of a key are, by its column: what a position's value for it must be. */
  private kindOf(k: SortKey): ValueKind {
    if (k.progression) return 'enum';
    return COLUMN_KINDS[this.column(k.field).type] ?? 'text';
  }

  /** What a key orders by: an enumeration by its progression, text by code point (as in memory). */
  private sortExpression(k: SortKey): string {
    const c = this.column(k.field);
    if (k.progression) return `array_position(${textArray(k.progression)}, ${c.column})`;
    return c.type === 'text' ? `(${c.column} COLLATE "C")` : c.column;
  }

  private sortParameter(k: SortKey, n: number): string {
    const c = this.column(k.field);
    if (k.progression) return `array_position(${textArray(k.progression)}, $${n}::text)`;
    return c.type === 'text' ? `($${n}::text COLLATE "C")` : parameter(c, n);
  }
}

/** The kinds of value of the columns a list can sort by. */
const COLUMN_KINDS: Partial<Record<Column['type'], ValueKind>> = {
  timestamptz: 'instant',
  date: 'date',
  numeric: 'number',
  text: 'text',
};

/** A list of known words (an enumeration's values, never a request's) as an SQL array literal. */
function textArray(values: readonly string[]): string {
  return `ARRAY[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')}]::text[]`;
}

/** A Range on a column: one comparison per bound. */
function rangeCondition(c: Column, range: Range, params: unknown[]): string {
  const parts = (['gt', 'gte', 'lt', 'lte'] as const)
    .filter((op) => range.bounds[op] !== undefined)
    .map((op) => {
      const p = parameter(c, params.push(toParameter(c, range.bounds[op])));
      return `${c.column} ${{ gt: '>', gte: '>=', lt: '<', lte: '<=' }[op]} ${p}`;
    });
  return parts.length === 0 ? `${c.column} IS NOT NULL` : `(${parts.join(' AND ')})`;
}

function condition(c: Column, value: unknown, params: unknown[]): string {
  // An object or a list of objects (a team's members, an entry's metadata) equals no value, as in memory.
  if (c.type === 'jsonb') return 'FALSE';
  if (value instanceof AllOf) {
    if (value.conditions.length === 0) return 'TRUE';
    return `(${value.conditions.map((v) => condition(c, v, params)).join(' AND ')})`;
  }
  if (value instanceof Range) return rangeCondition(c, value, params);
  const array = c.type === 'text[]';
  const element: Column['type'] = array ? 'text' : c.type;
  if (value instanceof AnyOf) {
    const values = value.values.filter((v) => v !== null && v !== undefined);
    const parts: string[] = [];
    if (values.length > 0) {
      params.push(values.map((v) => toParameter({ ...c, type: element }, v)));
      parts.push(
        array ? `${c.column} && $${params.length}::text[]` : `${c.column} = ANY($${params.length}::${element}[])`,
      );
    }
    if (values.length < value.values.length) parts.push(`${c.column} IS NULL`);
    return parts.length === 0 ? 'FALSE' : `(${parts.join(' OR ')})`;
  }
  if (value === null) return `${c.column} IS NULL`;
  if (array) {
    params.push(value);
    return `$${params.length}::text = ANY(${c.column})`;
  }
  params.push(toParameter(c, value));
  return `${c.column} = ${parameter(c, params.length)}`;
}

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
