import type { RequestContext } from '../../core/context.ts';
import { iso, parseInstant, parseInstantFrom } from '../../model/time.ts';
import { allOf, exactFilter, type ServiceDeps } from '../../core/resource-service.ts';
import { notFound } from '../../errors.ts';
import type { Collections } from '../../store/store.ts';
import type { ActivityQuery as ActivityStoreQuery } from '../../store/types.ts';
import type { Page } from '../../model/list.ts';
import type { ListRequest } from '../../http/list.ts';
import { defaultsOf, withDefaults } from '../../schemas/common.ts';
import { ActivityCreate, type ActivityQuery } from './schema.ts';
import { type ActivityEntry } from '../../model/activity.ts';

const defaults = defaultsOf(ActivityCreate);

/** The name an entry has in messages. */
export const ACTIVITY_LABEL = 'Activity log entry';

/** The append-only audit trail: entries are created, read and queried, never changed or deleted. */
export class ActivityLogService {
  constructor(private readonly deps: ServiceDeps<'activity'>) {}

  async get(id: string): Promise<ActivityEntry> {
    const entry = await this.deps.store.activity.get(id);
    if (!entry) throw notFound(ACTIVITY_LABEL, id);
    return entry;
  }

  /**
   * Newest first unless sorted, with `total` counting the matches before the position and `limit`. `list`: the
   * exact conditions (each field any of its values) and the rest of a list's query, when the request had them.
   */
  async query(q: ActivityQuery = {}, list?: Pick<ListRequest, 'conditions' | 'query'>): Promise<Page<ActivityEntry>> {
    // The exact conditions of a list request hold the plain filters of `q` too (`action=`), read with their `[in]`.
    const exact = list
      ? exactFilter<ActivityEntry>(list.conditions)
      : { action: q.action, actor: q.actor, resourceType: q.resourceType, resourceId: q.resourceId };
    return this.deps.store.activity.query({
      filter: allOf<ActivityEntry>(exact, list?.query.filter),
      since: q.since === undefined ? undefined : parseInstantFrom(q.since),
      until: q.until === undefined ? undefined : parseInstant(q.until, true),
      limit: q.limit,
      search: list?.query.search as ActivityStoreQuery['search'],
      sort: list?.query.sort,
      after: list?.query.after,
      skipTotal: list?.query.skipTotal,
    });
  }

  /**
   * Appends an entry posted through the interface and publishes it (`sprint.*` entries are webhook events), in one
   * transaction as every change.
   */
  append(input: ActivityCreate, ctx: RequestContext = {}): Promise<ActivityEntry> {
    return this.deps.events.transaction(this.deps.store, async (unit) => {
      const entry = await this.record(unit.tx, input);
      await unit.publish({
        id: this.deps.ids('evt'),
        type: 'activity.created',
        resourceType: 'activity',
        kind: 'created',
        record: entry,
        actor: ctx.actor ?? entry.actor,
        at: entry.timestamp,
      });
      return entry;
    });
  }

  /**
   * Appends an entry to the log of `tx` (the transaction of the change it is about); its `timestamp` is the
   * server's time.
   */
  async record(tx: Pick<Collections, 'activity'>, input: ActivityCreate): Promise<ActivityEntry> {
    const { action, actor, resourceType, resourceId, summary, metadata } = withDefaults(defaults, input);
    const entry: ActivityEntry = {
      id: this.deps.ids('act'),
      action,
      actor,
      resourceType,
      resourceId,
      summary: summary!,
      metadata: isEmpty(metadata!) ? NO_METADATA : metadata!,
      timestamp: iso(this.deps.clock.now()),
    };
    await tx.activity.append(entry);
    return entry;
  }
}

/** The metadata of most entries (a create, a delete): one shared, frozen empty object. */
const NO_METADATA: Record<string, unknown> = Object.freeze({});

function isEmpty(object: object): boolean {
  for (const _ in object) return false;
  return true;
}
