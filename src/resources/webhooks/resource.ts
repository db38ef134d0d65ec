import * as seed from '../../store/seed-data.ts';
import { DeliveryRecord } from '../../model/delivery.ts';
import { crudResource } from '../resource.ts';
import { deliveryRoutes } from './routes.ts';
import { WebhookPatch, WebhookQuery } from './schema.ts';
import { WebhookList, Webhook, WebhookWithSecret } from '../../model/webhook.ts';
import { webhookRules } from './rules.ts';

export const webhooks = crudResource(webhookRules, {
  description:
    'Subscriptions to domain events, delivered signed (Standard Webhooks); the `secret` is shown once, on create.',
  samples: seed.webhooks,
  schemas: { record: Webhook, query: WebhookQuery, update: WebhookPatch },
  list: WebhookList,
  components: [
    {
      name: 'WebhookWithSecret',
      schema: WebhookWithSecret,
      samples: seed.webhooks.map((w) => ({ ...w, secret: 'whsec_AbCdEf123456' })),
    },
  ],
  // The only answer with the secret.
  createResponse: WebhookWithSecret,
  // A webhook sends the service's events to any URL it names: only an admin changes one.
  scopes: { write: 'admin' },
  shapes: { DeliveryRecord },
  more: (app, s) => deliveryRoutes(app, s.deliveries, webhookRules.names),
});
