import { ResourceService, type ServiceDeps } from '../../core/resource-service.ts';
import { type Conditions, AllOf, AnyOf, type Filter } from '../../model/list.ts';
import { AppError } from '../../errors.ts';
import { webhookRules } from './rules.ts';
import { type WebhookCreate, type WebhookPatch, type WebhookQuery } from './schema.ts';
import { WILDCARD } from '../../model/event-types.ts';
import { type Webhook, type WebhookRecord } from '../../model/webhook.ts';

const NOTHING_TO_DO = Symbol('nothing to do');

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

  /**
   * `event`: webhooks subscribed to any of the types, or to `*`; with `event` and `event[in]`, to one of each (a
   * webhook's events are a list: both conditions must hold, which is not one condition on the types both name).
   */
  protected override filterOf(conditions: Conditions): Filter<WebhookRecord> {
    const { event, ...rest } = conditions;
    const filter = super.filterOf(rest) as Record<string, unknown>;
    if (event) filter.events = AllOf.of(event.map((types) => AnyOf.of([...types, WILDCARD])));
    return filter as Filter<WebhookRecord>;
  }

  /**
   * Switches the webhook off because `url` answered 410 Gone (a change by `system`), unless its URL is no longer
   * that one: decided in the change itself, so a URL changed meanwhile, here or on another instance, is never
   * switched off for what its old URL answered. Nothing happens to a webhook deleted meanwhile.
   */
  async goneAt(id: string, url: string): Promise<void> {
    try {
      await this.change(id, {}, (hook) => {
        if (hook.url !== url || !hook.active) throw NOTHING_TO_DO; // rolls the change back: nothing is written
        return { ...hook, active: false };
      });
    } catch (err) {
      if (err !== NOTHING_TO_DO && !(err instanceof AppError && err.code === 'NOT_FOUND')) throw err;
    }
  }

  /** The stored record, secret included: for signing deliveries, never for a response. */
  withSecret(id: string): Promise<WebhookRecord> {
    return this.stored(id);
  }
}
