import type { FastifyInstance } from 'fastify';
import { registerCrudRoutes } from '../../http/crud.ts';
import { Webhook, WebhookCreate, WebhookPatch, WebhookQuery, WebhookWithSecret } from './schema.ts';
import type { WebhookService } from './service.ts';

export function webhookRoutes(app: FastifyInstance, service: WebhookService): void {
  registerCrudRoutes(app, {
    path: '/api/webhooks',
    names: { one: 'Webhook', many: 'Webhooks' },
    service,
    record: Webhook,
    query: WebhookQuery,
    // The only response with the secret.
    create: { body: WebhookCreate, response: WebhookWithSecret },
    update: { method: 'PATCH', body: WebhookPatch },
    remove: true,
  });
}
