/** Which changes produce which deliveries, and what each delivery carries. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook as Verifier } from 'standardwebhooks';
import type { Unit } from '../../src/events/bus.ts';
import type { DomainEvent } from '../../src/events/types.ts';
import { recordOf } from '../../src/store/outbox.ts';
import { webhookOutboxConsumer, webhookWakeConsumer, type Outbox } from '../../src/events/webhooks.ts';
import { sequentialIds } from '../helpers/app.ts';
import { delivery } from '../store/records.ts';
import { appWithReceivers, receiver, subscribe, type Receiver } from '../webhooks/helpers.ts';

const bodies = (r: Receiver) => r.requests.map((q) => JSON.parse(q.body));

test('a change is delivered, signed: standardwebhooks verifies it with the secret as issued', async (t) => {
  const { api } = await appWithReceivers(t);
  const r = await receiver(t);
  const hook = await subscribe(api, r.url, ['task.created']);
  const task = (await api.post('/api/tasks', { projectId: 'proj_001', title: 'Deliver me' })).body.data;

  await r.arrived(1);
  const [req] = r.requests;
  const payload = new Verifier(hook.secret).verify(req!.body, req!.headers as Record<string, string>) as any;
  assert.equal(payload.type, 'task.created');
  assert.deepEqual(payload.data, task);
  assert.equal(payload.timestamp, task.createdAt);
  assert.match(String(req!.headers['webhook-id']), /^evt_/);
});

test('subscriptions: exact types and `*` receive, others and inactive webhooks do not; deletes carry the record as it was', async (t) => {
  const { api } = await appWithReceivers(t);
  const tasks = await receiver(t);
  const all = await receiver(t);
  const off = await receiver(t);
  await subscribe(api, tasks.url, ['task.deleted']);
  await subscribe(api, all.url, ['*']);
  const inactive = await subscribe(api, off.url, ['*']);
  await api.patch(`/api/webhooks/${inactive.id}`, { active: false });

  const before = (await api.get('/api/tasks/task_010')).body.data;
  await api.delete('/api/tasks/task_010');
  await api.post('/api/comments', { targetType: 'project', targetId: 'proj_001', author: 'dana', body: 'hello' });
  await all.arrived(2);
  await tasks.arrived(1);
  assert.deepEqual(
    bodies(tasks).map((b) => [b.type, b.data]),
    [['task.deleted', before]],
  );
  assert.deepEqual(
    bodies(all).map((b) => b.type),
    ['task.deleted', 'comment.created'],
  );
  assert.equal(off.requests.length, 0);
});

test('milestone.reached when a milestone becomes reached; sprint.* when such an activity entry is posted', async (t) => {
  const { api } = await appWithReceivers(t);
  const r = await receiver(t);
  await subscribe(api, r.url, ['milestone.reached', 'sprint.started', 'sprint.completed']);
  await api.patch('/api/milestones/ms_004', { title: 'Renamed' }); // not reached: nothing
  const ms = (await api.patch('/api/milestones/ms_004', { status: 'reached' })).body.data;
  await api.patch('/api/milestones/ms_004', { status: 'reached' }); // already reached: nothing
  const entry = (
    await api.post('/api/activity-log', {
      action: 'sprint.started',
      actor: 'alice',
      resourceType: 'project',
      resourceId: 'proj_003',
    })
  ).body.data;
  await api.post('/api/activity-log', {
    action: 'task.updated',
    actor: 'alice',
    resourceType: 'task',
    resourceId: 'task_001',
  });
  await r.arrived(2);
  assert.deepEqual(
    bodies(r).map((b) => [b.type, b.data.id]),
    [
      ['milestone.reached', 'ms_004'],
      ['sprint.started', entry.id],
    ],
  );
  assert.equal(bodies(r)[0].data.reachedAt, ms.reachedAt);
});

test('ping sends a webhook.ping event to the webhook, whatever it subscribes to', async (t) => {
  const { api } = await appWithReceivers(t);
  const r = await receiver(t);
  const hook = await subscribe(api, r.url, []);
  assert.equal((await api.post(`/api/webhooks/${hook.id}/ping`)).status, 202);
  await r.arrived(1);
  assert.deepEqual(
    bodies(r).map((b) => [b.type, b.data]),
    [['webhook.ping', { webhookId: hook.id }]],
  );
  new Verifier(hook.secret).verify(r.requests[0]!.body, r.requests[0]!.headers as Record<string, string>);
});

test('after commit, the workers are woken and other instances told only for a change that added attempts to make', async () => {
  const calls: string[] = [];
  const outbox: Outbox = {
    stage: async (_log, target, event) => {
      const final = target.url.includes('unreachable');
      return recordOf(delivery('dlv_1', target.id, { eventId: event.id, status: final ? 'failed' : 'pending' }));
    },
    recorded: (records) => calls.push(`recorded ${records.length}`),
    wake: () => calls.push('wake'),
    announce: () => calls.push('announce'),
    forget: () => {},
    changed: () => {},
  };
  const hooksFor = (urls: string[]) => ({
    tx: {
      webhooks: {
        list: async () => urls.map((url, i) => ({ id: `wh_${i}`, url, secret: 'whsec_x', events: ['*'] })),
      },
      deliveries: {},
    },
  });
  const inTx = webhookOutboxConsumer(outbox, sequentialIds());
  const afterCommit = webhookWakeConsumer(outbox);
  const change = (): DomainEvent => ({
    id: `evt_${calls.length}`,
    type: 'task.created',
    resourceType: 'task',
    kind: 'created',
    record: { id: 'task_1', projectId: 'proj_001' },
    actor: 'system',
    at: '2026-01-01T00:00:00.000Z',
  });
  const run = async (urls: string[]) => {
    calls.length = 0;
    const event = change();
    await inTx.consume(event, hooksFor(urls) as unknown as Unit);
    await afterCommit(event);
    return [...calls];
  };

  assert.deepEqual(await run([]), [], 'no webhook: nothing to wake');
  assert.deepEqual(await run(['http://unreachable.invalid/']), ['recorded 1'], 'only final attempts: no claim');
  assert.deepEqual(await run(['https://example.com/in']), ['wake', 'announce']);
  assert.deepEqual(await run(['http://unreachable.invalid/', 'https://example.com/in']), [
    'recorded 1',
    'wake',
    'announce',
  ]);
});

test('the active webhooks are read once per transaction, as it begins; again after a webhook changes in it', async () => {
  const staged: string[] = [];
  const outbox: Outbox = {
    stage: async (_log, target, event) => {
      staged.push(`${event.type} → ${target.id}`);
      return recordOf(delivery('dlv_1', target.id, { eventId: event.id }));
    },
    recorded: () => {},
    wake: () => {},
    announce: () => {},
    forget: () => {},
    changed: () => {},
  };
  const reads: unknown[] = [];
  let hooks = [
    { id: 'wh_tasks', url: 'https://example.com/a', secret: 'whsec_x', events: ['task.created'] },
    { id: 'wh_all', url: 'https://example.com/b', secret: 'whsec_x', events: ['*'] },
  ];
  const unit = {
    tx: {
      webhooks: {
        list: async (filter: unknown) => {
          reads.push(filter);
          return hooks;
        },
      },
      deliveries: {},
    },
  } as unknown as Unit;
  const change = (type: string, resourceType: string): DomainEvent =>
    ({
      id: `evt_${type}`,
      type,
      resourceType,
      kind: type.split('.')[1],
      record: { id: 'x', projectId: 'proj_001' },
      actor: 'system',
      at: '2026-01-01T00:00:00.000Z',
    }) as DomainEvent;
  const consumer = webhookOutboxConsumer(outbox, sequentialIds());

  consumer.begin(unit);
  assert.deepEqual(reads, [{ active: true }], 'read as the transaction begins');
  await consumer.consume(change('task.created', 'task'), unit);
  await consumer.consume(change('project.created', 'project'), unit);
  assert.equal(reads.length, 1, 'one read for the transaction');
  assert.deepEqual(staged, ['task.created → wh_tasks', 'task.created → wh_all', 'project.created → wh_all']);

  // A webhook changed in the transaction: what follows sees the webhooks as they are now.
  hooks = [{ id: 'wh_new', url: 'https://example.com/c', secret: 'whsec_x', events: ['task.deleted'] }];
  await consumer.consume(change('webhook.created', 'webhook'), unit);
  await consumer.consume(change('task.deleted', 'task'), unit);
  assert.equal(reads.length, 2);
  assert.deepEqual(staged.slice(3), ['task.deleted → wh_new']);
});

test('a read begun for a transaction that fails before using it leaves no unhandled rejection', async () => {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  process.on('unhandledRejection', onRejection);
  try {
    const consumer = webhookOutboxConsumer({} as Outbox, sequentialIds());
    const unit = {
      tx: { webhooks: { list: () => Promise.reject(new Error('connection lost')) } },
    } as unknown as Unit;
    consumer.begin(unit);
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    process.off('unhandledRejection', onRejection);
  }
  assert.deepEqual(rejections, []);
});
