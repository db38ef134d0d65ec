import { AllOf, AnyOf, PositionError, Range, type Position, type Search, type SortKey } from '../../model/list.ts';
import { fitsKind, isSeq, type ValueKind } from '../../model/position.ts';
import type { RowInsert } from './batch.ts';
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
