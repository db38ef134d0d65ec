import { AllOf, AnyOf, type Conditions, type Filter, type ListQuery, type Page } from '../model/list.ts';
import { notFound, validationError } from '../errors.ts';
import type { EventBus, Unit } from '../events/bus.ts';
import type { DomainEvent } from '../events/types.ts';
import { defaultsOf, withDefaults } from '../schemas/common.ts';
import type { Collections, Store } from '../store/store.ts';
import { type Collection } from '../store/types.ts';
import type { RequestContext } from './context.ts';
import { assertExpectedVersion } from './etag.ts';
import { changedFields, merge, type ResourceDef, type Stamped } from './rules.ts';
import { iso, nextTimestamp, type Clock } from '../model/time.ts';
import { type IdGenerator } from '../model/ids.ts';

/**
 * What a service is built on. `K` names the collections it reads outside a change (its own); its changes are made
 * in `store.transaction`, whose collections the rules and the in-transaction consumers read and write.
 */
export interface ServiceDeps<K extends keyof Collections = keyof Collections> {
  readonly store: Pick<Store, K | 'transaction'>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly events: EventBus;
}

/** The store filter of a list's exact conditions: each a value, or `AnyOf` its values; several, `AllOf` them. */
export function exactFilter<T>(conditions: Conditions): Filter<T> {
  const filter: Record<string, unknown> = {};
  for (const [field, each] of Object.entries(conditions)) {
    filter[field] = AllOf.of(each.map((values) => (values.length === 1 ? values[0] : AnyOf.of(values))));
  }
  return filter as Filter<T>;
}

/**
 * Filters combined: every condition of each must hold. A field with a condition in several (`date=…` and
 * `date[gte]=…`) takes them all (`AllOf`), never only the last one.
 */
export function allOf<T>(...filters: (Filter<T> | undefined)[]): Filter<T> {
  const combined: Record<string, unknown[]> = {};
  for (const filter of filters) {
    for (const [field, condition] of Object.entries(filter ?? {})) {
      if (condition === undefined) continue;
      const parts = condition instanceof AllOf ? condition.conditions : [condition];
      (combined[field] ??= []).push(...parts);
    }
  }
  const filter: Record<string, unknown> = {};
  for (const [field, conditions] of Object.entries(combined)) filter[field] = AllOf.of(conditions);
  return filter as Filter<T>;
}

/**
 * The service of one resource: create, read, update and delete by its `ResourceDef`. `T` is the record as
 * stored, `C` and `U` the create and update bodies, `V` what leaves the service of a record (its `view`).
 * A resource with operations of its own extends this class in its `service.ts`.
 */
export class ResourceService<
  T extends Stamped,
  C extends object = object,
  U extends object = object,
  V = T,
  K extends keyof Collections = keyof Collections,
> {
  private readonly defaults: Readonly<Record<string, unknown>>;

  constructor(
    protected readonly def: ResourceDef<T, C, U, V>,
    protected readonly deps: ServiceDeps<K>,
  ) {
    this.defaults = defaultsOf(def.createSchema);
  }

  /** The resource's collection in `store` (a transaction's, or the store read outside one). */
  protected collectionIn(store: Pick<Collections, K>): Collection<T> {
    // The rules name the collection of their records (`names.storeKey`); TypeScript cannot relate a key chosen at
    // run time to the record type `T`.
    return store[this.def.names.storeKey as K] as unknown as Collection<T>;
  }

  /** What of a record leaves the service. */
  protected view(record: T): V {
    // Without a `view`, what leaves is the record itself: `V` is `T` (its default), which the types cannot tell.
    return this.def.view ? this.def.view(record) : (record as unknown as V);
  }

  /** The record as stored: for the service's own rules, never for a response. */
  protected async stored(id: string): Promise<T> {
    const record = await this.collectionIn(this.deps.store).get(id);
    if (!record) throw notFound(this.def.names.label, id);
    return record;
  }

  async get(id: string): Promise<V> {
    return this.view(await this.stored(id));
  }

  async list(filter: Filter<T> = {}): Promise<V[]> {
    const records = await this.collectionIn(this.deps.store).list(filter);
    return records.map((record) => this.view(record));
  }

  /**
   * A page of the list: the exact conditions (each field any of its values, `filterOf`) and the rest of the
   * query's conditions, all of which must hold (`allOf`), with its search, order and cut.
   */
  async page(conditions: Conditions, query: ListQuery<T> = {}): Promise<Page<V>> {
    const filter = allOf(this.filterOf(conditions), query.filter);
    const page = await this.collectionIn(this.deps.store).query({ ...query, filter });
    return { ...page, items: page.items.map((record) => this.view(record)) };
  }

  /** The store filter of exact conditions (`exactFilter`). A resource may read a field its own way. */
  protected filterOf(conditions: Conditions): Filter<T> {
    return exactFilter(conditions);
  }

  /** Creates a record and returns it as stored: the one answer that may carry what `view` leaves out. */
  create(input: C, ctx: RequestContext = {}): Promise<T> {
    return this.deps.events.transaction(this.deps.store, (unit) => this.createIn(unit, input, ctx));
  }

  /** Creates a record in the open transaction of `unit`, as part of the change being made there. */
  async createIn(unit: Unit, input: C, ctx: RequestContext = {}): Promise<T> {
    const now = iso(this.deps.clock.now());
    const fields = this.def.build(withDefaults(this.defaults, input) as C, now);
    // `build` makes every field but these: together they are a `T`, which a spread of an `Omit<T, …>` cannot show.
    const record = {
      id: this.deps.ids(this.def.idPrefix),
      ...fields,
      createdAt: now,
      ...(this.def.updatedAt !== false ? { updatedAt: now } : {}),
    } as unknown as T;
    await this.assertValid(record, unit.tx);
    await this.collectionIn(unit.tx).insert(record);
    await unit.publish(this.event('created', record, undefined, ctx));
    return record;
  }

  /**
   * Applies an update body. `updatedAt` is always refreshed (strictly later); an update that changes no
   * field stores nothing else and publishes no event.
   */
  async update(id: string, input: U, ctx: RequestContext = {}): Promise<V> {
    const apply = this.def.apply;
    if (!apply) throw new Error(`${this.def.names.label} has no update`);
    if (apply === 'merge') return this.view(await this.change(id, ctx, (previous) => merge(previous, input)));
    if (apply === 'replace') {
      const rebuilt = (previous: T, now: string) => ({
        ...previous,
        // A resource that replaces takes the same body to create and to replace: its `U` is its `C`.
        ...this.def.build(withDefaults(this.defaults, input) as unknown as C, now),
      });
      return this.view(await this.change(id, ctx, rebuilt));
    }
    return this.view(await this.change(id, ctx, (previous, now) => apply(previous, input, now)));
  }

  /** Writes `next(previous)` to the record `id` as one change: checked, stamped and published. */
  protected change(id: string, ctx: RequestContext, next: (previous: T, now: string) => T): Promise<T> {
    return this.deps.events.transaction(this.deps.store, async (unit) => {
      const collection = this.collectionIn(unit.tx);
      const previous = await collection.get(id);
      if (!previous) throw notFound(this.def.names.label, id);
      assertExpectedVersion(ctx.expectedVersions, previous);
      let record = next(previous, iso(this.deps.clock.now()));
      const changed = changedFields(previous, record);
      if (changed.length > 0) await this.assertValid(record, unit.tx, previous);
      if (this.def.updatedAt !== false) {
        record = { ...record, updatedAt: nextTimestamp(this.deps.clock, previous.updatedAt!) };
      }
      await collection.replace(record);
      if (changed.length > 0) await unit.publish(this.event('updated', record, previous, ctx, changed));
      return record;
    });
  }

  /**
   * Deletes a record and what depends on it (the rules' `cascade`). Each record the cascade changed is published
   * first, as a change of its own by the same actor with `cascadeOf` naming this record, then this record's delete.
   */
  async remove(id: string, ctx: RequestContext = {}): Promise<V> {
    const cascade = { cascade: this.def.cascade !== undefined };
    const record = await this.deps.events.transaction(
      this.deps.store,
      async (unit) => {
        const collection = this.collectionIn(unit.tx);
        const record = await collection.get(id);
        if (!record) throw notFound(this.def.names.label, id);
        assertExpectedVersion(ctx.expectedVersions, record);
        const actor = this.actorOf(record, ctx);
        for (const c of (await this.def.cascade?.(record, unit.tx, iso(this.deps.clock.now()))) ?? []) {
          await unit.publish({
            id: this.deps.ids('evt'),
            type: `${c.resourceType}.${c.kind}`,
            resourceType: c.resourceType,
            kind: c.kind,
            // Published as stored: no kind a cascade reaches has a `view`.
            record: c.record,
            previous: c.previous,
            ...(c.changed ? { changed: c.changed, previousValues: valuesBefore(c.previous, c.changed) } : {}),
            actor,
            at: iso(this.deps.clock.now()),
            cascadeOf: record.id,
            cascadeOfType: this.def.names.type,
          });
        }
        await collection.delete(id);
        await unit.publish(this.event('deleted', record, record, ctx));
        return record;
      },
      cascade,
    );
    return this.view(record);
  }

  private async assertValid(record: T, tx: Collections, previous?: T): Promise<void> {
    const problems = (await this.def.check?.(record, tx, previous)) ?? [];
    if (problems.length > 0) throw validationError(problems);
  }

  /** Who a change is by: the request's actor, else the rules' default for the record, else `system`. */
  private actorOf(record: T, ctx: RequestContext): string {
    return ctx.actor ?? this.def.defaultActor?.(record) ?? 'system';
  }

  private event(
    kind: DomainEvent['kind'],
    record: T,
    previous: T | undefined,
    ctx: RequestContext,
    changed?: string[],
  ): DomainEvent {
    const before = previous && this.view(previous);
    return {
      id: this.deps.ids('evt'),
      type: `${this.def.names.type}.${kind}`,
      resourceType: this.def.names.type,
      kind,
      record: this.view(record),
      ...(kind === 'created' ? {} : { previous: before }),
      ...(changed && before ? { changed, previousValues: valuesBefore(before, changed) } : {}),
      actor: this.actorOf(record, ctx),
      at: iso(this.deps.clock.now()),
    };
  }
}

/**
 * What an update's event carries as `previousValues`: each changed field with its value before the update (a field
 * the record did not have, as null), and no other field. Made here once, for updates and cascaded detaches alike.
 */
function valuesBefore(previous: object, changed: readonly string[]): Record<string, unknown> {
  const before = previous as Record<string, unknown>;
  return Object.fromEntries(changed.map((field) => [field, before[field] ?? null]));
}
