import { randomAlphanumeric } from '../../core/runtime.ts';
import { ResourceService, merge, type ResourceDef, type ServiceDeps } from '../../core/resource-service.ts';
import { AppError, type ErrorDetail } from '../../errors.ts';
import type { RequestContext } from '../../events/types.ts';
import { AnyOf } from '../../store/types.ts';
import {
  SUBSCRIBABLE,
  WILDCARD,
  WebhookCreate,
  type Webhook,
  type WebhookPatch,
  type WebhookQuery,
  type WebhookRecord,
} from './schema.ts';

/** The subscribed events, duplicates removed; any value outside the list is refused with INVALID_EVENTS. */
export function checkEvents(events: readonly string[]): string[] {
  const bad = [...new Set(events.filter((e) => !SUBSCRIBABLE.includes(e)))];
  if (bad.length > 0) {
    throw new AppError(
      'INVALID_EVENTS',
      `Unsupported event type${bad.length > 1 ? 's' : ''}: ${bad.join(', ')}`,
      bad.map((value) => ({
        field: `events[${events.indexOf(value)}]`,
        message: `'${value}' is not a supported event type; use one of ${SUBSCRIBABLE.join(', ')}`,
      })),
    );
  }
  return [...new Set(events)];
}

/**
 * The schema checks the form (an `http`/`https` scheme, a URI); the URL must also parse as one with a host:
 * `https://` alone or an out-of-range port is no callback address.
 */
export function urlProblems(url: string): ErrorDetail[] {
  try {
    const parsed = new URL(url);
    if ((parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '') return [];
  } catch {
    // not a URL
  }
  return [{ field: 'url', message: 'must be an absolute http or https URL with a host' }];
}

/** Webhooks are created with a secret that is shown once: `whsec_` + 12 alphanumerics from a CSPRNG. */
export const newSecret = () => `whsec_${randomAlphanumeric(12)}`;

/** A webhook as every response but the create shows it: without its secret. */
export function publicView(record: WebhookRecord): Webhook {
  const { secret: _secret, ...rest } = record;
  return rest;
}

export const webhookDef: ResourceDef<WebhookRecord, WebhookCreate, WebhookPatch> = {
  type: 'webhook',
  label: 'Webhook',
  idPrefix: 'wh',
  updatedAt: true,
  collection: (store) => store.webhooks,
  createSchema: WebhookCreate,
  build: (input) => ({
    url: input.url,
    events: checkEvents(input.events!),
    active: input.active!,
    description: input.description!,
    secret: newSecret(),
  }),
  eventView: publicView,
  check: async (webhook) => urlProblems(webhook.url),
  // The secret is not in the update schema: it cannot be changed.
  apply: (previous, input) => merge(previous, input.events ? { ...input, events: checkEvents(input.events) } : input),
};

/**
 * Webhooks. Reads and updates never carry the secret (the response schemas do not have the field either);
 * only `create` returns it, once.
 */
export class WebhookService {
  private readonly records: ResourceService<WebhookRecord, WebhookCreate, WebhookPatch>;

  constructor(deps: ServiceDeps) {
    this.records = new ResourceService(webhookDef, deps);
  }

  async list(query: WebhookQuery = {}): Promise<Webhook[]> {
    const events = query.event === undefined ? undefined : new AnyOf(query.event, WILDCARD);
    return (await this.records.list({ active: query.active, events })).map(publicView);
  }

  async get(id: string): Promise<Webhook> {
    return publicView(await this.records.get(id));
  }

  /** The stored record, secret included: for signing deliveries, never for a response. */
  withSecret(id: string): Promise<WebhookRecord> {
    return this.records.get(id);
  }

  create(input: WebhookCreate, ctx: RequestContext = {}): Promise<WebhookRecord> {
    return this.records.create(input, ctx);
  }

  async update(id: string, input: WebhookPatch, ctx: RequestContext = {}): Promise<Webhook> {
    return publicView(await this.records.update(id, input, ctx));
  }

  async remove(id: string, ctx: RequestContext = {}): Promise<Webhook> {
    return publicView(await this.records.remove(id, ctx));
  }
}
