import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { EventBus } from '../../src/events/bus.ts';
import type { DomainEvent } from '../../src/events/types.ts';
import { WebhookService } from '../../src/resources/webhooks/service.ts';
import { MemoryStore } from '../../src/store/memory/store.ts';
import { FakeClock, sequentialIds } from '../helpers/app.ts';

// The service itself, not its routes: the response schemas are a second guard, not the only one.

function service() {
  const store = new MemoryStore();
  const events = new EventBus(pino({ level: 'silent' }));
  const published: DomainEvent[] = [];
  events.subscribe('record', (event) => {
    published.push(event);
  });
  return { webhooks: new WebhookService({ store, events, clock: new FakeClock(), ids: sequentialIds() }), published };
}

const hasSecret = (value: unknown) => JSON.stringify(value ?? null).includes('whsec_');

test('the webhook service hands out the secret from create only: never from get, list, update, remove or events', async () => {
  const { webhooks, published } = service();
  const created = await webhooks.create({ url: 'https://hooks.example.com/a', events: ['task.created'] });
  assert.match(created.secret, /^whsec_[A-Za-z0-9]{12}$/);
  const { id } = created;

  const answers: [string, object][] = [
    ['get', await webhooks.get(id)],
    ['list', await webhooks.list()],
    ['list by event', await webhooks.list({ event: 'task.created' })],
    ['update', await webhooks.update(id, { description: 'changed' })],
    ['remove', await webhooks.remove(id)],
  ];
  for (const [operation, answer] of answers) {
    assert.ok(!hasSecret(answer), `${operation} carries the secret: ${JSON.stringify(answer)}`);
    for (const record of [answer].flat()) assert.ok(!('secret' in record), `${operation} has a secret field`);
  }
  assert.equal((answers[1]![1] as unknown[]).length, 1);
  assert.deepEqual(
    published.map((e) => e.type),
    ['webhook.created', 'webhook.updated', 'webhook.deleted'],
  );
  for (const event of published) assert.ok(!hasSecret(event), `${event.type} carries the secret`);
});

test('withSecret gives the stored secret (for signing deliveries), the one created', async () => {
  const { webhooks } = service();
  const created = await webhooks.create({ url: 'https://hooks.example.com/a' });
  assert.equal((await webhooks.withSecret(created.id)).secret, created.secret);
  await assert.rejects(webhooks.withSecret('wh_nope'), { code: 'NOT_FOUND' });
});
