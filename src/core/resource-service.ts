import { isDeepStrictEqual } from 'node:util';
import type { TObject } from 'typebox';
import { notFound, validationError, type ErrorDetail } from '../errors.ts';
import { compact } from './compact.ts';
import { assertIfMatch } from './etag.ts';
import type { EventBus } from '../events/bus.ts';
import type { DomainEvent, RequestContext, ResourceType } from '../events/types.ts';
import { defaultsOf, withDefaults } from '../schemas/common.ts';
import type { Collections, Store } from '../store/store.ts';
import type { Collection, Entity, Filter } from '../store/types.ts';
import { iso, nextTimestamp, type Clock, type IdGenerator } from './runtime.ts';

export interface ServiceDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly events: EventBus;
}

type Stamped = Entity & { readonly createdAt: string; readonly updatedAt?: string };

/**
 * What makes one resource different from another: its collection, how a body becomes a record,
 * and its rules. Everything else (404s, timestamps, change detection, events) is the generic service's.
 */
export interface ResourceDef<T extends Stamped, C extends object, U extends object> {
  readonly type: ResourceType;
  /** Used in messages: "Task 'task_x' was not found". */
  readonly label: string;
  readonly idPrefix: string;
  /** Whether records carry `updatedAt` (set at create, refreshed by every update). */
  readonly updatedAt: boolean;
  readonly collection: (store: Collections) => Collection<T>;
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
  /** Who a change is by when the request names no `X-Actor` (a comment's author); else `system`. */
  readonly defaultActor?: (record: T) => string;
  /** What events carry of a record, when not all of it may leave the service (a webhook's secret). */
  readonly eventView?: (record: T) => unknown;
  /** Deletes or detaches what depends on a record being deleted. */
  cascade?(record: T, tx: Collections, now: string): Promise<void>;
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
    const id = record[field] as unknown as string | null;
    if (id === null || (previous && previous[field] === record[field])) return [];
    if (await find(tx, id, record)) return [];
    return [{ field, message: `${typeof kind === 'string' ? kind : kind(record)} '${id}' does not exist` }];
  };
}

/** Fields that are bookkeeping, not content: a change to them alone is no change. */
const BOOKKEEPING = new Set(['updatedAt']);

export class ResourceService<T extends Stamped, C extends object = object, U extends object = object> {
  private readonly defaults: Readonly<Record<string, unknown>>;
  /** Event types, made once: they end up in every activity entry (one string each otherwise). */
  private readonly eventTypes: Readonly<Record<DomainEvent['kind'], DomainEvent['type']>>;

  constructor(
    protected readonly def: ResourceDef<T, C, U>,
    protected readonly deps: ServiceDeps,
  ) {
    this.defaults = defaultsOf(def.createSchema);
    this.eventTypes = {
      created: `${def.type}.created`,
      updated: `${def.type}.updated`,
      deleted: `${def.type}.deleted`,
    };
  }

  protected get collection(): Collection<T> {
    return this.def.collection(this.deps.store);
  }

  async get(id: string): Promise<T> {
    const record = await this.collection.get(id);
    if (!record) throw notFound(this.def.label, id);
    return record;
  }

  async list(filter: Filter<T> = {}): Promise<T[]> {
    return this.collection.list(filter);
  }

  async create(input: C, ctx: RequestContext = {}): Promise<T> {
    const now = iso(this.deps.clock.now());
    const record = await this.deps.store.transaction(async (tx) => {
      const fields = this.def.build(withDefaults(this.defaults, input) as C, now);
      const record = compact({
        id: this.deps.ids(this.def.idPrefix),
        ...fields,
        createdAt: now,
        ...(this.def.updatedAt ? { updatedAt: now } : {}),
      }) as unknown as T;
      await this.assertValid(record, tx);
      await this.def.collection(tx).insert(record);
      return record;
    });
    await this.publish('created', record, undefined, ctx);
    return record;
  }

  /**
   * Applies an update body. `updatedAt` is always refreshed (strictly later); an update that changes no
   * field stores nothing else and publishes no event.
   */
  async update(id: string, input: U, ctx: RequestContext = {}): Promise<T> {
    const apply = this.def.apply;
    if (!apply) throw new Error(`${this.def.label} has no update`);
    if (apply === 'merge') return this.change(id, ctx, (previous) => merge(previous, input));
    if (apply === 'replace') {
      return this.change(id, ctx, (previous, now) => ({
        ...previous,
        ...this.def.build(withDefaults(this.defaults, input) as unknown as C, now),
      }));
    }
    return this.change(id, ctx, (previous, now) => apply(previous, input, now));
  }

  /** Writes `next(previous)` to the record `id` as one change: checked, stamped and published. */
  protected async change(id: string, ctx: RequestContext, next: (previous: T, now: string) => T): Promise<T> {
    const { record, previous, changed } = await this.deps.store.transaction(async (tx) => {
      const collection = this.def.collection(tx);
      const previous = await collection.get(id);
      if (!previous) throw notFound(this.def.label, id);
      assertIfMatch(ctx.ifMatch, previous);
      let record = next(previous, iso(this.deps.clock.now()));
      const changed = changedFields(previous, record);
      if (changed.length > 0) await this.assertValid(record, tx, previous);
      if (this.def.updatedAt) {
        record = { ...record, updatedAt: nextTimestamp(this.deps.clock, previous.updatedAt!) };
      }
      record = compact(record);
      await collection.replace(record);
      return { record, previous, changed };
    });
    if (changed.length > 0) await this.publish('updated', record, previous, ctx, changed);
    return record;
  }

  async remove(id: string, ctx: RequestContext = {}): Promise<T> {
    const record = await this.deps.store.transaction(async (tx) => {
      const record = await this.def.collection(tx).get(id);
      if (!record) throw notFound(this.def.label, id);
      assertIfMatch(ctx.ifMatch, record);
      await this.def.cascade?.(record, tx, iso(this.deps.clock.now()));
      await this.def.collection(tx).delete(id);
      return record;
    });
    await this.publish('deleted', record, record, ctx);
    return record;
  }

  private async assertValid(record: T, tx: Collections, previous?: T): Promise<void> {
    const problems = (await this.def.check?.(record, tx, previous)) ?? [];
    if (problems.length > 0) throw validationError(problems);
  }

  protected async publish(
    kind: DomainEvent['kind'],
    record: T,
    previous: T | undefined,
    ctx: RequestContext,
    changed?: string[],
  ): Promise<void> {
    const view = (r: T | undefined) => (r && this.def.eventView ? this.def.eventView(r) : r);
    await this.deps.events.publish([
      {
        id: this.deps.ids('evt'),
        type: this.eventTypes[kind],
        resourceType: this.def.type,
        kind,
        record: view(record),
        ...(kind === 'created' ? {} : { previous: view(previous) }),
        ...(changed ? { changed } : {}),
        actor: ctx.actor ?? this.def.defaultActor?.(record) ?? 'system',
        at: iso(this.deps.clock.now()),
      },
    ]);
  }
}

/** The record with every field of `input` that was sent (not undefined) written over it. */
export function merge<T extends object>(record: T, input: object): T {
  const next: Record<string, unknown> = { ...(record as Record<string, unknown>) };
  for (const [key, value] of Object.entries(input)) if (value !== undefined) next[key] = value;
  return next as T;
}

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
