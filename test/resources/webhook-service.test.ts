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

test('a 410 from a URL switches the webhook off only while it still has that URL, once, as a change by system', async () => {
  const { webhooks, published } = service();
  const { id } = await webhooks.create({ url: 'https://hooks.example.com/old', events: ['task.created'] });
  await webhooks.update(id, { url: 'https://hooks.example.com/new' });
  published.length = 0;
  await webhooks.goneAt(id, 'https://hooks.example.com/old');
  assert.equal((await webhooks.get(id)).active, true, 'the 410 came from a URL it no longer has');
  assert.equal(published.length, 0, 'nothing was written');

  const before = (await webhooks.get(id)).updatedAt;
  await webhooks.goneAt(id, 'https://hooks.example.com/new');
  assert.equal((await webhooks.get(id)).active, false);
  assert.deepEqual(
    published.map((e) => [e.type, e.actor, e.changed]),
    [['webhook.updated', 'system', ['active']]],
  );
  const after = (await webhooks.get(id)).updatedAt;
  assert.ok(after > before);
  await webhooks.goneAt(id, 'https://hooks.example.com/new');
  assert.equal((await webhooks.get(id)).updatedAt, after, 'switched off already: nothing is written again');
  assert.equal(published.length, 1);
  await webhooks.remove(id);
  await webhooks.goneAt(id, 'https://hooks.example.com/new'); // deleted meanwhile: nothing to do, no error
});
