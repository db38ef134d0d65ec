import { isDeepStrictEqual } from 'node:util';
import type { TObject } from 'typebox';
import type { ErrorDetail } from '../errors.ts';
import type { ResourceType } from '../events/types.ts';
import type { Collections } from '../store/store.ts';
import type { Entity } from '../store/types.ts';
import type { KindNames } from './names.ts';

export type Stamped = Entity & { readonly createdAt: string; readonly updatedAt?: string };

/**
 * What makes one resource different from another: its names, how a body becomes a record, and its rules.
 * Everything else (404s, timestamps, change detection, events) is the generic service's.
 */
export interface ResourceDef<T extends Stamped, C extends object, U extends object, V = T> {
  /** Its kind: `resourceType`, the label in messages, the store's collection (`names.storeKey`). */
  readonly names: KindNames<ResourceType>;
  readonly idPrefix: string;
  /** Whether records carry `updatedAt`, set at create and refreshed by every update (default: they do). */
  readonly updatedAt?: boolean;
  /** The create body schema; its defaults are applied to every create, whoever calls the service. */
  readonly createSchema: TObject;
  /** A new record from a create body with its defaults filled; `id`, `createdAt` and `updatedAt` are the caller's. */
  build(input: C, now: string): Omit<T, 'id' | 'createdAt' | 'updatedAt'>;
  /**
   * How an update body applies. `'merge'`: the fields sent replace those of the record, the rest stay.
   * `'replace'`: the record is built anew from the body as on create (omitted fields take their defaults),
   * keeping `id` and `createdAt`. A function: returns the record after the body is applied (timestamps
   * excluded), for rules beyond a merge. Absent: the resource has no update.
   */
  readonly apply?: 'merge' | 'replace' | ((previous: T, input: U, now: string) => T);
  /** Problems with the references a new or changed record makes (a task's project must exist, …). */
  check?(record: T, tx: Collections, previous?: T): Promise<ErrorDetail[]>;
  /** Who a change is by when the request names no actor (a comment's author); else `system`. */
  readonly defaultActor?: (record: T) => string;
  /**
   * What of a record leaves the service (reads, updates, deletes, events), when not all of it may (a webhook's
   * secret). Only `create` returns the stored record. Absent: the record as stored.
   */
  readonly view?: (record: T) => V;
  /**
   * Deletes or detaches what depends on a record being deleted (`now`: the time of the delete), children before
   * parents, and answers each record it changed, in that order: each becomes an event of its own.
   */
  cascade?(record: T, tx: Collections, now: string): Promise<readonly Cascaded[]>;
}

/** A record a cascade deleted, or updated (a detach: `changed` names the fields). */
export interface Cascaded {
  readonly resourceType: ResourceType;
  readonly kind: 'deleted' | 'updated';
  /** The record after the change; for a delete, as it was. */
  readonly record: Stamped;
  readonly previous: Stamped;
  readonly changed?: readonly string[];
}

/**
 * A `check` that `field` names an existing record (found by `find`; `kind` names it in the message). A null
 * reference names nothing and passes; a reference an update left unchanged is not looked up again.
 */
export function reference<T extends object>(
  field: keyof T & string,
  kind: string | ((record: T) => string),
  find: (tx: Collections, id: string, record: T) => Promise<unknown>,
): (record: T, tx: Collections, previous?: T) => Promise<ErrorDetail[]> {
  return async (record, tx, previous) => {
    const id: unknown = record[field];
    if (typeof id !== 'string' || (previous && previous[field] === id)) return [];
    if (await find(tx, id, record)) return [];
    return [{ field, message: `${typeof kind === 'string' ? kind : kind(record)} '${id}' does not exist` }];
  };
}

/** The record with every field of `input` that was sent (not undefined) written over it. */
export function merge<T extends object>(record: T, input: object): T {
  const next: Record<string, unknown> = { ...(record as Record<string, unknown>) };
  for (const [key, value] of Object.entries(input)) if (value !== undefined) next[key] = value;
  return next as T;
}

/** Fields that are bookkeeping, not content: a change to them alone is no change. */
const BOOKKEEPING = new Set(['updatedAt']);

/** Names of the content fields whose values differ between two versions of a record. */
export function changedFields<T extends object>(before: T, after: T): string[] {
  if (before === after) return [];
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changed: string[] = [];
  for (const key of keys) {
    if (BOOKKEEPING.has(key)) continue;
    const a = (before as Record<string, unknown>)[key];
    const b = (after as Record<string, unknown>)[key];
    if (a !== b && !isDeepStrictEqual(a, b)) changed.push(key);
  }
  return changed;
}
