/**
 * The list query model: what a list asks of a collection (exact conditions, ranges, search, sort keys, where a page
 * starts and how long it is) and what it answers (a page). The HTTP layer reads query strings into it
 * (src/http/list.ts); each store answers it (src/store/types.ts, `Collection.query`).
 */

/** How the values of a field with range operators read: ISO 8601 instants, `YYYY-MM-DD` dates, numbers. */
export type RangeKind = 'instant' | 'date' | 'number';

/**
 * What a collection's list offers beyond its exact-match filters (each of which also takes `field[in]`): the
 * fields `sort` takes (an enumeration with its progression), the fields with range operators, the fields `q`
 * searches. Data per resource, next to its query schema; the parameters and their documentation derive from it.
 */
export interface ListSpec {
  readonly sort: Readonly<Record<string, readonly string[] | null>>;
  readonly ranges: Readonly<Record<string, RangeKind>>;
  /** None: the list has no `q` (a webhook's deliveries, which hold no text of the user's). */
  readonly search: readonly string[];
  /**
   * `limit` is the interface document's own parameter of this list (the activity log): alone it keeps the
   * document's answer, so `nextCursor` comes only with `cursor` (the next page is in `Link` all the same).
   */
  readonly documentLimit?: boolean;
}

/**
 * The exact conditions of a list request: for each field, the conditions sent on it (`status=`, `status[in]=`),
 * every one of which must hold, each met by any one of its values.
 */
export type Conditions = Readonly<Record<string, readonly (readonly unknown[])[]>>;

/**
 * The values of a field that meet every one of its conditions: for a field of one value per record (a delivery's
 * `status`), where meeting each condition is being one of its values. Undefined when the field has none.
 */
export function valuesMeetingAll(conditions: Conditions, field: string): unknown[] | undefined {
  const each = conditions[field];
  if (!each) return undefined;
  return each.slice(1).reduce<unknown[]>((kept, values) => kept.filter((v) => values.includes(v)), [...each[0]!]);
}

/**
 * Exact-match conditions on a record's fields, all of which must hold:
 * - a value matches records whose field equals it (strings, numbers, booleans);
 * - `null` matches records whose field is null (an unassigned task, a project without a team);
 * - on an array field, a value matches records whose array holds it (a webhook subscribed to `task.created`);
 * - an `AnyOf` matches any one of its values, each as above (`new AnyOf('task.created', '*')`);
 * - a `Range` matches records whose field lies within its bounds (in `query` only; `list` and the set-based
 *   changes take exact conditions);
 * - an `AllOf` matches records that meet every one of its conditions, each as above (`date=…` and `date[gte]=…`);
 * - an undefined condition is ignored (a query parameter that was not sent);
 * - a condition on a field the records do not have matches nothing.
 */
export type Filter<T> = { readonly [K in keyof T]?: unknown };

/** A filter condition satisfied by any one of several values. */
export class AnyOf {
  readonly values: readonly unknown[];
  constructor(...values: unknown[]) {
    this.values = values;
  }

  /** Any one of `values`, however many (a spread of a long list would overflow the call stack). */
  static of(values: readonly unknown[]): AnyOf {
    const any = new AnyOf();
    (any as { values: readonly unknown[] }).values = values;
    return any;
  }
}

/** A filter condition satisfied when every one of several conditions (values, `AnyOf`, `Range`) is. */
export class AllOf {
  constructor(readonly conditions: readonly unknown[]) {}

  /** The conditions as one: the condition itself when there is one, else an `AllOf` of them all. */
  static of(conditions: readonly unknown[]): unknown {
    return conditions.length === 1 ? conditions[0] : new AllOf(conditions);
  }
}

/**
 * A condition on an ordered field (instants, `YYYY-MM-DD` dates, numbers): every bound given must hold. Instants
 * are given in `toISOString()` form, as records hold them, so that every kind of value compares as it is written.
 * A record whose field is null or missing is outside every range.
 */
export class Range {
  constructor(
    readonly bounds: { readonly gt?: Ordered; readonly gte?: Ordered; readonly lt?: Ordered; readonly lte?: Ordered },
  ) {}
}
export type Ordered = string | number;

/**
 * One key of a list's order. `progression`: the values of an enumeration in their order (`low`, `medium`, `high`);
 * other values by code point (strings, as PostgreSQL's `COLLATE "C"`) or as numbers. Records missing the field
 * (null) come after every other, whichever the direction.
 */
export interface SortKey {
  readonly field: string;
  readonly descending?: boolean;
  readonly progression?: readonly string[];
}

/**
 * Where a page ended: the values of the sort keys of its last record, then what each store orders ties by.
 * Opaque outside the store; a store refuses one it did not make with `PositionError`.
 */
export type Position = readonly unknown[];

/** A position a store cannot read (made by another store, or by hand). */
export class PositionError extends Error {
  constructor() {
    super('not a position of this list');
    this.name = 'PositionError';
  }
}

/** Text search: every term must occur, ignoring case, in at least one of the fields. */
export interface Search<T> {
  readonly terms: readonly string[];
  readonly fields: readonly (keyof T & string)[];
}

/**
 * A page of a list: the records matching `filter` (exact conditions, `AnyOf`, `Range`) and `search`, ordered by
 * `sort` then by creation order (ties keep it), after `after` (the `next` of the previous page, asked with the same
 * filter, search and sort), at most `limit` of them.
 */
export interface ListQuery<T> {
  readonly filter?: Filter<T>;
  readonly search?: Search<T>;
  readonly sort?: readonly SortKey[];
  readonly after?: Position;
  readonly limit?: number;
  /**
   * The caller does not need the total (the parts of an unpaged answer, read one after the other): the store may
   * leave it uncounted, and `total` is then the page's own length.
   */
  readonly skipTotal?: boolean;
}

/**
 * `total`: how many records match, whatever `after` and `limit` cut. `next`: where the following page starts, or
 * null when this page holds the last match. Keyset pagination: a record that matched throughout is seen exactly
 * once while its sort values do not change, whatever is added or removed meanwhile.
 */
export interface Page<T> {
  readonly items: T[];
  readonly total: number;
  readonly next: Position | null;
}

/** What a list reads besides its own query: where a page starts, how long it is, whether its total is wanted. */
export type Cut = Pick<ListQuery<object>, 'after' | 'limit' | 'skipTotal'>;
