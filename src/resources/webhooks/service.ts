import { ResourceService, type ServiceDeps } from '../../core/resource-service.ts';
import { AnyOf, type Filter } from '../../store/types.ts';
import { webhookRules } from './resource.ts';
import {
  WILDCARD,
  type Webhook,
  type WebhookCreate,
  type WebhookPatch,
  type WebhookQuery,
  type WebhookRecord,
} from './schema.ts';

/**
 * Webhooks. Every answer but `create` shows a webhook without its secret (the rules' `view`); `create` returns
 * it once, and `withSecret` gives it to the delivery of events, never to a response.
 */
export class WebhookService extends ResourceService<WebhookRecord, WebhookCreate, WebhookPatch, Webhook, 'webhooks'> {
  constructor(deps: ServiceDeps<'webhooks'>) {
    super(webhookRules, deps);
  }

  /** Webhooks by `active`, and by `event`: those subscribed to that type or to `*`. */
  override list(query: WebhookQuery = {}): Promise<Webhook[]> {
    const events = query.event === undefined ? undefined : new AnyOf(query.event, WILDCARD);
    return super.list({ active: query.active, events });
  }

  /** `event`: webhooks subscribed to any of the types, or to `*`. */
  protected override filterOf(conditions: Record<string, readonly unknown[]>): Filter<WebhookRecord> {
    const { event, ...rest } = conditions;
    const filter = super.filterOf(rest) as Record<string, unknown>;
    if (event) filter.events = AnyOf.of([...event, WILDCARD]);
    return filter as Filter<WebhookRecord>;
  }

  /** The stored record, secret included: for signing deliveries, never for a response. */
  withSecret(id: string): Promise<WebhookRecord> {
    return this.stored(id);
  }
}
