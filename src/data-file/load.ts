import type { TSchema } from 'typebox';
import { newSecret } from '../resources/webhooks/rules.ts';
import type { Collections } from '../store/store.ts';
import { COLLECTION_DEFS, COLLECTIONS, type CollectionName } from './format.ts';
import { readDataFile } from './read.ts';

/** How many records of each collection were loaded. */
export type LoadCounts = Record<CollectionName, number>;

export interface LoadOptions {
  /** Makes the secret of a webhook the file gives none (default: `whsec_` + 12 random alphanumerics). */
  newSecret?: () => string;
}

type Row = Record<string, unknown>;

/**
 * Inserts the records of a data file through an open transaction, dependencies first (`COLLECTIONS` order)
 * whatever the file's order, keeping ids, timestamps and the activity log's order (the file's). The file must have
 * passed `checkDataFile`: nothing is checked again here. Streamed: one pass over the file when its collections come
 * in loading order, else one per collection it holds, never the whole file in memory.
 */
export async function loadDataFile(tx: Collections, path: string, options: LoadOptions = {}): Promise<LoadCounts> {
  const counts = Object.fromEntries(COLLECTIONS.map((c) => [c, 0])) as LoadCounts;
  const order = await fileOrder(path);
  const passes = inLoadingOrder(order)
    ? [new Set(order)]
    : COLLECTIONS.filter((c) => order.includes(c)).map((c) => new Set([c]));
  for (const only of passes) {
    for await (const { collection, record } of readDataFile(path, { only })) {
      await insert(tx, collection, prepare(collection, record as Row, options));
      counts[collection]++;
    }
  }
  return counts;
}

/** The collections of the file in the order they come (a collection named twice, twice), read without a record. */
async function fileOrder(path: string): Promise<CollectionName[]> {
  const order: CollectionName[] = [];
  for await (const _ of readDataFile(path, { only: new Set(), onCollection: (c) => order.push(c) }));
  return order;
}

const inLoadingOrder = (order: readonly CollectionName[]) =>
  order.every((c, i) => i === 0 || COLLECTIONS.indexOf(order[i - 1]!) < COLLECTIONS.indexOf(c));

function prepare(collection: CollectionName, record: Row, options: LoadOptions): Row {
  const row = normalizeInstants(collection, record);
  if (collection === 'webhooks' && typeof row.secret !== 'string') row.secret = (options.newSecret ?? newSecret)();
  return row;
}

/**
 * Instants as the API writes them (`toISOString()`: UTC, milliseconds), whatever ISO 8601 form the file used
 * (`2026-11-22T10:00:00Z`, an offset): every store then keeps and answers the same text.
 */
function normalizeInstants(collection: CollectionName, record: Row): Row {
  const row = { ...record };
  for (const field of INSTANTS[collection]) {
    const value = row[field];
    if (typeof value === 'string') row[field] = new Date(value).toISOString();
  }
  return row;
}

const INSTANTS = Object.fromEntries(COLLECTIONS.map((c) => [c, instantFields(COLLECTION_DEFS[c].schema)])) as Record<
  CollectionName,
  string[]
>;

/** The top-level fields of a record schema that hold an instant (`format: date-time`, nullable or not). */
function instantFields(schema: TSchema): string[] {
  const properties = (schema as { properties?: Record<string, { format?: string }> }).properties ?? {};
  return Object.entries(properties)
    .filter(([, p]) => p.format === 'date-time')
    .map(([name]) => name);
}

async function insert(tx: Collections, collection: CollectionName, row: Row): Promise<void> {
  const store = COLLECTION_DEFS[collection].store;
  if (store === 'activity') return tx.activity.append(row as never);
  await (tx[store] as { insert(r: unknown): Promise<void> }).insert(row);
}
