import {
  type ListSpec,
  type Conditions,
  PositionError,
  Range,
  type Cut,
  type ListQuery,
  type Page,
  type Position,
  type SortKey,
} from '../model/list.ts';
import { Type, type TObject, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isBetweenMilliseconds, isCalendarDate, parseInstant } from '../model/time.ts';
import { validationError, type ErrorDetail } from '../errors.ts';
import { Nullable, Query } from '../schemas/common.ts';
import { fitsKind, type ValueKind } from '../model/position.ts';
import { badCursor, decodeCursor, encodeCursor, queryDigest } from './cursor.ts';
import { sendInParts } from './list-parts.ts';

/** The `limit` parameter of a list. */
export const PageLimit = Type.Integer({
  minimum: 1,
  maximum: 1000,
  description: 'Page size (1–1000): at most this many records, and `nextCursor` in the answer',
});

/** The `cursor` parameter: the previous page's `nextCursor`, sent with the same filters and `also`. */
export const PageCursor = (also?: string) =>
  Type.String({
    minLength: 1,
    maxLength: 4096,
    description: `The \`nextCursor\` of the previous page, sent with the same filters${also ? `, ${also}` : ''}`,
  });

/** Annotations for the document: `sort` and `field[in]` are comma-separated lists of these values. */
export const SORT_VALUES = 'x-sort-values';
export const ANY_OF_ITEMS = 'x-any-of-items';

const OPERATORS = ['gte', 'gt', 'lte', 'lt'] as const;
const OPERATOR_WORDS = { gte: 'at or after', gt: 'after', lte: 'at or before', lt: 'before' } as const;
/** Parameters of a list that are not exact-match filters. */
const NOT_FILTERS = new Set(['limit', 'since', 'until', 'cursor', 'sort', 'q']);
const MAX_ANY_OF = 100;

/** The exact-match filters of a query schema: every parameter but the paging and window ones. */
const exactFilters = (base: TObject) => Object.keys(base.properties).filter((k) => !NOT_FILTERS.has(k));

/**
 * What `readList` looks for in a list's query, named once per list rather than at each request: each exact filter
 * with its `field[in]`, and each field with ranges with its kind and its four `field[op]` parameters.
 */
interface QueryNames {
  readonly exact: readonly { readonly field: string; readonly anyOf: string }[];
  readonly ranges: readonly {
    readonly field: string;
    readonly kind: ListSpec['ranges'][string];
    readonly ops: readonly { readonly op: (typeof OPERATORS)[number]; readonly name: string }[];
  }[];
}
const queryNames = new WeakMap<TObject, { readonly spec: ListSpec; readonly names: QueryNames }>();

function namesOf(base: TObject, spec: ListSpec): QueryNames {
  const known = queryNames.get(base);
  if (known?.spec === spec) return known.names;
  const names: QueryNames = {
    exact: exactFilters(base).map((field) => ({ field, anyOf: `${field}[in]` })),
    ranges: Object.entries(spec.ranges).map(([field, kind]) => ({
      field,
      kind,
      ops: OPERATORS.map((op) => ({ op, name: `${field}[${op}]` })),
    })),
  };
  queryNames.set(base, { spec, names });
  return names;
}

/** A list's query schema: its own filters, then `field[in]`, the range operators, `limit`, `cursor`, `sort` and `q`. */
export function listQuery(base: TObject, spec: ListSpec, defaultOrder = 'creation order, oldest first'): TObject {
  const props: Record<string, TSchema> = { ...base.properties };
  for (const field of exactFilters(base)) {
    const { description: _d, ...item } = base.properties[field] as TSchema & { description?: string };
    props[`${field}[in]`] = Type.Optional(
      Type.String({
        minLength: 1,
        description: `Any of these values of \`${field}\`, comma-separated (at most ${MAX_ANY_OF})`,
        [ANY_OF_ITEMS]: item,
      }),
    );
  }
  for (const [field, kind] of Object.entries(spec.ranges)) {
    for (const op of OPERATORS) {
      const description = `\`${field}\` ${OPERATOR_WORDS[op]} this ${kind === 'number' ? 'number' : kind === 'date' ? 'date (`YYYY-MM-DD`)' : 'instant (ISO 8601; a date alone is midnight UTC, or its end for `lte`)'}`;
      props[`${field}[${op}]`] = Type.Optional(
        kind === 'number'
          ? Type.Number({ description })
          : Type.String({ format: kind === 'date' ? 'date' : 'iso-instant', description }),
      );
    }
  }
  props.limit ??= Type.Optional(PageLimit);
  const searched = spec.search.length > 0;
  props.cursor = Type.Optional(PageCursor(searched ? '`q` and `sort`' : '`sort`'));
  const sortable = Object.keys(spec.sort);
  props.sort = Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 500,
      description:
        `Order, comma-separated fields, \`-\` for descending: ${sortable.map((f) => `\`${f}\``).join(', ')}. ` +
        'Enumerations follow their progression; missing values come last; ties keep creation order. ' +
        `Default: ${defaultOrder}.`,
      [SORT_VALUES]: sortable.flatMap((f) => [f, `-${f}`]),
    }),
  );
  if (searched) {
    props.q = Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: `Search: every word must occur, ignoring case, in ${spec.search.map((f) => `\`${f}\``).join(' or ')}`,
      }),
    );
  }
  return Query(props);
}

/** A list request read: its exact conditions (`Conditions`), and the rest of the store's query. */
export interface ListRequest {
  readonly conditions: Conditions;
  readonly query: ListQuery<object>;
  /** `limit` or `cursor` was sent: one page is read. */
  readonly paged: boolean;
  /** The answer carries `nextCursor`: `cursor` was sent, or `limit` where the document has none. */
  readonly showsCursor: boolean;
  readonly digest: () => string;
}

/**
 * Reads a validated list query; a 400 naming each parameter whose value the schema could not judge. `path`: the
 * list's own, to which its cursors are bound with the query.
 */
export function readList(raw: object, base: TObject, spec: ListSpec, path: string): ListRequest {
  const query = raw as Record<string, unknown>;
  const problems: ErrorDetail[] = [];
  const conditions: Record<string, (readonly unknown[])[]> = {};
  const names = namesOf(base, spec);
  for (const { field, anyOf } of names.exact) {
    const one = query[field];
    const list = query[anyOf];
    const each: (readonly unknown[])[] = one === undefined ? [] : [[one]];
    if (typeof list === 'string') {
      const read = readAnyOf(list, base.properties[field] as ItemSchema);
      if (typeof read === 'string') problems.push({ field: anyOf, message: read });
      else each.push(read);
    }
    if (each.length > 0) conditions[field] = each;
  }
  const filter: Record<string, Range> = {};
  for (const { field, kind, ops } of names.ranges) {
    let bounds: Record<string, string | number> | undefined;
    for (const { op, name } of ops) {
      const value = query[name];
      if (value === undefined) continue;
      bounds ??= {};
      if (kind !== 'instant') {
        bounds[op] = value as string | number;
        continue;
      }
      // Stores keep milliseconds: an instant within one (`.0001`) is after it, so `at or after` it is after that
      // millisecond and `before` it is at or before that millisecond; `after` and `at or before` hold as they are.
      const text = String(value);
      const within = isBetweenMilliseconds(text);
      const kept = within && op === 'gte' ? 'gt' : within && op === 'lt' ? 'lte' : op;
      const at = new Date(parseInstant(text, op === 'lte')).toISOString();
      // With `gt` or `lte` sent too, the bound that holds of fewer instants (as stored, they compare as text).
      const other = bounds[kept] as string | undefined;
      bounds[kept] = other === undefined || (kept === 'gt' ? at > other : at < other) ? at : other;
    }
    if (bounds) filter[field] = new Range(bounds);
  }
  const sort = query.sort === undefined ? undefined : readSort(String(query.sort), spec, problems);
  let search: ListQuery<object>['search'];
  if (typeof query.q === 'string' && spec.search.length > 0) {
    const terms = query.q.split(/\s+/).filter((t) => t !== '');
    if (terms.length === 0) problems.push({ field: 'q', message: 'must hold a word, not only spaces' });
    search = { terms, fields: spec.search as never[] };
  }
  if (problems.length > 0) throw validationError(problems);
  const { after, limit, paged, showsCursor, digest } = readPaging(query, path, spec.documentLimit);
  if (after && sort) checkPosition(after, sort, spec);
  return { conditions, query: { filter, search, sort, after, limit }, paged, showsCursor, digest };
}

/**
 * Checks the sort values of a cursor's position, each against its key's kind (an enumeration's value, the kind of a
 * field with ranges, else text): the seal only shows the service's key was used, and that key is no secret, so a
 * position is input like any other. A 400 naming `cursor` for a value its key cannot have. What follows the values
 * (where ties are broken) is each store's, which checks it.
 */
function checkPosition(position: Position, sort: readonly SortKey[], spec: ListSpec): void {
  const fits = sort.every((k, i) => {
    const kind: ValueKind = k.progression ? 'enum' : (spec.ranges[k.field] ?? 'text');
    return i < position.length && fitsKind(kind, position[i], k.progression);
  });
  if (!fits) throw badCursor();
}

/** Where a list request's page starts and how long it is: what every list reads the same way. */
export interface Paging {
  /** The position of the `cursor` sent, checked against the query it was given for. */
  readonly after?: Position;
  readonly limit?: number;
  /** `limit` or `cursor` was sent: one page is read. */
  readonly paged: boolean;
  /** The answer carries `nextCursor`: `cursor` was sent, or `limit` where the document has none. */
  readonly showsCursor: boolean;
  /** What the list's cursors are bound to: a digest of its path and query (but `limit` and `cursor`). */
  readonly digest: () => string;
}

/**
 * The `limit` and `cursor` of a validated list query; a 400 naming `cursor` when it is not one this list gave for
 * this query. `path`: the list's own (with its ids), to which its cursors are bound with the query. For a list
 * that has no other parameter of {@link readList} (a webhook's deliveries).
 */
export function readPaging(raw: object, path: string, documentLimit = false): Paging {
  const query = raw as Record<string, unknown>;
  // Taken when a cursor is read or written, not for the lists that need neither (most unpaged ones).
  let taken: string | undefined;
  const digest = () => (taken ??= queryDigest(path, query));
  const after = typeof query.cursor === 'string' ? decodeCursor(query.cursor, digest()) : undefined;
  const limit = query.limit as number | undefined;
  const paged = limit !== undefined || after !== undefined;
  return { after, limit, paged, showsCursor: after !== undefined || (paged && !documentLimit), digest };
}

/** The schema of an exact filter, with what `[in]` reads of it. */
type ItemSchema = TSchema & { readonly type?: unknown; readonly enum?: readonly unknown[]; readonly format?: string };

/** The values of `field[in]`, each checked by the field's own filter's schema; a message when one is not. */
function readAnyOf(list: string, item: ItemSchema): unknown[] | string {
  const parts = list.split(',');
  if (parts.length > MAX_ANY_OF) return `must list at most ${MAX_ANY_OF} values`;
  if (parts.includes('')) return 'must be values separated by single commas, none empty';
  // Query text read as the field's type, as the validator reads the filter itself: `true` and `false` for a boolean.
  const values = item.type === 'boolean' ? parts.map((p) => (p === 'true' ? true : p === 'false' ? false : p)) : parts;
  for (const [i, value] of values.entries()) {
    const problem = problemOf(item, value);
    if (problem) return `must be a comma-separated list of values of the filter: \`${parts[i]}\` ${problem}`;
  }
  return values;
}

/** Why `value` is not one the filter of schema `item` takes, or undefined when it is. */
function problemOf(item: ItemSchema, value: unknown): string | undefined {
  // TypeBox's `date` takes the year 0000, which no store keeps: as the validator does, years 0001 to 9999 only.
  if (item.format === 'date' && !(typeof value === 'string' && isCalendarDate(value))) {
    return 'is not a calendar date (YYYY-MM-DD)';
  }
  const [error] = Value.Errors(item, value);
  if (!error) return undefined;
  const allowed = item.enum?.filter((v) => v !== null);
  return allowed ? `is not one of ${allowed.join(', ')}` : error.message;
}

function readSort(value: string, spec: ListSpec, problems: ErrorDetail[]): SortKey[] | undefined {
  const keys: SortKey[] = [];
  const fields = Object.keys(spec.sort);
  for (const part of value.split(',')) {
    const descending = part.startsWith('-');
    const field = descending ? part.slice(1) : part;
    if (!Object.hasOwn(spec.sort, field)) {
      problems.push({
        field: 'sort',
        message: `${part === '' || field === '' ? 'an empty field' : `\`${field}\``} is not sortable: use ${fields.join(', ')}, each optionally with a leading -`,
      });
      return undefined;
    }
    if (keys.some((k) => k.field === field)) {
      problems.push({ field: 'sort', message: `names \`${field}\` twice` });
      return undefined;
    }
    const progression = spec.sort[field];
    keys.push({ field, ...(descending ? { descending } : {}), ...(progression ? { progression } : {}) });
  }
  return keys;
}

/** Runs the store query of a list; a position the store cannot read is a bad `cursor`. */
async function pageOf<T>(run: () => Promise<Page<T>>): Promise<Page<T>> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof PositionError) throw badCursor();
    throw error;
  }
}

/**
 * The headers and envelope of a page: `X-Total-Count` always; `Link: <…>; rel="next"` (the request's path and
 * query, with the next cursor) when there is a next page; `nextCursor` in the body when the client pages.
 */
function sendPage<B extends object>(
  request: FastifyRequest,
  reply: FastifyReply,
  list: Pick<Paging, 'showsCursor' | 'digest'>,
  page: { total: number; next: Position | null },
  body: B,
): B & { nextCursor?: string | null } {
  reply.header('x-total-count', String(page.total));
  const cursor = page.next && encodeCursor(list.digest(), page.next);
  if (cursor) reply.header('link', `<${withCursor(request.url, cursor)}>; rel="next"`);
  return list.showsCursor ? { ...body, nextCursor: cursor ?? null } : body;
}

function withCursor(url: string, cursor: string): string {
  const at = url.indexOf('?');
  const params = new URLSearchParams(at < 0 ? '' : url.slice(at + 1));
  params.set('cursor', cursor);
  return `${at < 0 ? url : url.slice(0, at)}?${params.toString()}`;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** How many records an unpaged list reads at a time (`Store.listPart`); null: all at once. */
    listPart: number | null;
  }
}

/**
 * Answers a list. Paged (`limit` or `cursor`), or on a store that reads lists whole: the page `read` answers for the
 * request's own cut, as `sendPage` sends it. Unpaged on a store that reads lists in parts (`listPart`): every match,
 * in one answer, as the interface document asks, read a part at a time. When the first part holds every match (one
 * statement: `X-Total-Count` and `count` agree), the answer is sent as any other; otherwise it is written as it is
 * read, so the service holds at most two parts however many records match. `X-Total-Count` is then counted as the
 * answer begins, and `count`, after `data`, is the records written: they differ only when records were added or
 * removed during the walk. `envelope` makes the body of some records.
 */
export async function sendList<T, B extends object>(
  request: FastifyRequest,
  reply: FastifyReply,
  list: Pick<ListRequest, 'paged' | 'showsCursor' | 'digest' | 'query'>,
  read: (cut: Cut) => Promise<Page<T>>,
  envelope: (items: T[], count: number, total: number) => B,
): Promise<B & { nextCursor?: string | null }> {
  const part = request.server.listPart;
  const ownCut = { after: list.query.after, limit: list.query.limit };
  if (list.paged || part === null) {
    const page = await pageOf(() => read(ownCut));
    return sendPage(request, reply, list, page, envelope(page.items, page.items.length, page.total));
  }
  // A first part that holds every match needs no count: its length is the total.
  const first = await read({ limit: part, skipTotal: true });
  if (first.next === null) {
    const whole = { ...first, total: first.items.length };
    return sendPage(request, reply, list, whole, envelope(whole.items, whole.total, whole.total));
  }
  const { total } = await read({ limit: 1 }); // one record and the count of every match
  reply.header('x-total-count', String(total));
  return sendInParts(reply, first, part, read, (items, count) => envelope(items, count, total));
}

/** The headers of a collection's answer, for the document. */
export const PAGE_HEADERS = {
  'x-total-count': {
    type: 'integer',
    description: 'How many records match the filters and `q`, whatever the page',
  },
  link: {
    type: 'string',
    description: 'When there is a next page: `<path?query&cursor=…>; rel="next"` (RFC 8288)',
  },
} as const;

/** `nextCursor`, present when `sentWith` was sent (see `Paging.showsCursor`). */
export const nextCursorOf = (sentWith: string) =>
  Type.Optional(
    Nullable(
      Type.String({
        description: `Present when ${sentWith} is sent: the \`cursor\` of the next page, or null on the last`,
      }),
    ),
  );

export const NextCursor = nextCursorOf('`limit` or `cursor`');
