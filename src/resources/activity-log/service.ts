import { iso, parseInstant } from '../../core/runtime.ts';
import type { ServiceDeps } from '../../core/resource-service.ts';
import { notFound } from '../../errors.ts';
import type { RequestContext } from '../../events/types.ts';
import { defaultsOf, withDefaults } from '../../schemas/common.ts';
import { ActivityCreate, type ActivityEntry, type ActivityQuery } from './schema.ts';

const defaults = defaultsOf(ActivityCreate);

/**
 * The same text, stored as one piece. A summary built by concatenation (`Created task '…'`) is held by V8 as a
 * tree of pieces, about 200 bytes instead of 70 for a short one; reading a character makes V8 flatten it in
 * place. Entries are kept for the life of the service, a million of them at scale.
 */
function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}

/** The append-only audit trail: entries are created, read and queried, never changed or deleted. */
export class ActivityLogService {
  constructor(private readonly deps: ServiceDeps) {}

  async get(id: string): Promise<ActivityEntry> {
    const entry = await this.deps.store.activity.get(id);
    if (!entry) throw notFound('Activity log entry', id);
    return entry;
  }

  /** Newest first, with `total` counting the matches before `limit`. */
  async query(q: ActivityQuery = {}): Promise<{ items: ActivityEntry[]; total: number }> {
    return this.deps.store.activity.query({
      filter: { action: q.action, actor: q.actor, resourceType: q.resourceType, resourceId: q.resourceId },
      since: q.since === undefined ? undefined : parseInstant(q.since),
      until: q.until === undefined ? undefined : parseInstant(q.until, true),
      limit: q.limit,
    });
  }

  /** Appends an entry posted through the interface and publishes it (`sprint.*` entries are webhook events). */
  async append(input: ActivityCreate, ctx: RequestContext = {}): Promise<ActivityEntry> {
    const entry = await this.record(input);
    await this.deps.events.publish([
      {
        id: this.deps.ids('evt'),
        type: 'activity.created',
        resourceType: 'activity',
        kind: 'created',
        record: entry,
        actor: ctx.actor ?? entry.actor,
        at: entry.timestamp,
      },
    ]);
    return entry;
  }

  /** Appends an entry the service writes about its own changes; its `timestamp` is the server's time. */
  async record(input: ActivityCreate): Promise<ActivityEntry> {
    const { action, actor, resourceType, resourceId, summary, metadata } = withDefaults(defaults, input);
    const entry: ActivityEntry = {
      id: this.deps.ids('act'),
      action,
      actor,
      resourceType,
      resourceId,
      summary: flat(summary!),
      metadata: isEmpty(metadata!) ? NO_METADATA : metadata!,
      timestamp: iso(this.deps.clock.now()),
    };
    await this.deps.store.activity.append(entry);
    return entry;
  }
}

/** The metadata of most entries (a create, a delete): one shared empty object rather than one each. */
const NO_METADATA: Record<string, unknown> = Object.freeze({});

function isEmpty(object: object): boolean {
  for (const _ in object) return false;
  return true;
}
