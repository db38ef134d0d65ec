import { kindNames } from '../../core/names.ts';
import { merge, type ResourceDef } from '../../core/rules.ts';
import { randomAlphanumeric } from '../../model/ids.ts';
import { AppError, type ErrorDetail } from '../../errors.ts';
import { WebhookCreate, WebhookPatch } from './schema.ts';
import { Webhook, type WebhookRecord } from '../../model/webhook.ts';
import { SUBSCRIBABLE } from '../../model/event-types.ts';

const names = kindNames('webhook');

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
 * `https://` alone or an out-of-range port is no callback address. A URL with credentials
 * (`https://user:pass@host/`) is refused too: deliveries never send them (a receiver checks the signature), and
 * the URL is shown in every answer and delivery record, where a password must not be.
 */
export function urlProblems(url: string): ErrorDetail[] {
  try {
    const parsed = new URL(url);
    if (parsed.username !== '' || parsed.password !== '') {
      return [{ field: 'url', message: 'must not hold credentials (user:password@): the signature authenticates' }];
    }
    if ((parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '') return [];
  } catch {
    // not a URL
  }
  return [{ field: 'url', message: 'must be an absolute http or https URL with a host' }];
}

/** Webhooks are created with a secret that is shown once: `whsec_` + 12 alphanumerics from a CSPRNG. */
export const newSecret = () => `whsec_${randomAlphanumeric(12)}`;

/** A webhook as every answer but the create's shows it, and as events carry it: without its secret. */
export function publicView(record: WebhookRecord): Webhook {
  const { secret: _secret, ...rest } = record;
  return rest;
}

export const webhookRules: ResourceDef<WebhookRecord, WebhookCreate, WebhookPatch, Webhook> = {
  names,
  idPrefix: 'wh',
  createSchema: WebhookCreate,
  build: (input) => ({
    url: input.url,
    events: checkEvents(input.events!),
    active: input.active!,
    description: input.description!,
    secret: newSecret(),
  }),
  view: publicView,
  check: async (webhook) => urlProblems(webhook.url),
  // The secret is not in the update schema: it cannot be changed.
  apply: (previous, input) => merge(previous, input.events ? { ...input, events: checkEvents(input.events) } : input),
};
