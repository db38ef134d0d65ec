import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook as Verifier } from 'standardwebhooks';
import { systemClock } from '../../src/core/runtime.ts';
import { testApp } from '../helpers/app.ts';
import { receiver, waitFor, type Receiver } from '../webhooks/helpers.ts';

/** An app whose deliveries go to loopback receivers, retried within milliseconds, signed with the real time. */
async function setup(t: TestContext, webhooks: object = {}) {
  const ctx = await testApp(t, {
    webhooks: {
      allowPrivate: true,
      retrySchedule: [30, 60],
      timeoutMs: 500,
      jitter: 0,
      clock: systemClock,
      ...webhooks,
    },
  });
  // Seeded webhooks point at unresolvable hosts; switch them off so only the test's receivers are called.
  for (const id of ['wh_001', 'wh_002', 'wh_003']) await ctx.api.patch(`/api/webhooks/${id}`, { active: false });
  return ctx;
}

async function subscribe(api: any, r: Receiver, events: string[]) {
  const res = await api.post('/api/webhooks', { url: r.url, events });
  assert.equal(res.status, 201);
  return res.body.data as { id: string; secret: string };
}

/** Polls the delivery log until `done` holds for it. */
async function deliveriesWhen(api: any, id: string, done: (log: any[]) => boolean): Promise<any[]> {
  for (let i = 0; i < 300; i++) {
    const log = (await api.get(`/api/webhooks/${id}/deliveries`)).body.data;
    if (done(log)) return log;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`delivery log of ${id} never reached the expected state`);
}

const bodies = (r: Receiver) => r.requests.map((q) => JSON.parse(q.body));

test('a change is delivered, signed: standardwebhooks verifies it with the secret as issued', async (t) => {
  const { api } = await setup(t);
  const r = await receiver(t);
  const hook = await subscribe(api, r, ['task.created']);
  const task = (await api.post('/api/tasks', { projectId: 'proj_001', title: 'Deliver me' })).body.data;

  await waitFor('delivery', () => r.requests.length === 1);
  const [req] = r.requests;
  const payload = new Verifier(hook.secret).verify(req!.body, req!.headers as Record<string, string>) as any;
  assert.equal(payload.type, 'task.created');
  assert.deepEqual(payload.data, task);
  assert.equal(payload.timestamp, task.createdAt);
  assert.match(String(req!.headers['webhook-id']), /^evt_/);
  assert.match(String(req!.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
  assert.equal(req!.headers['content-type'], 'application/json');
});

test('subscriptions: exact types and `*` receive, others and inactive webhooks do not; deletes carry the record as it was', async (t) => {
  const { api } = await setup(t);
  const tasks = await receiver(t);
  const all = await receiver(t);
  const off = await receiver(t);
  await subscribe(api, tasks, ['task.deleted']);
  await subscribe(api, all, ['*']);
  const inactive = await subscribe(api, off, ['*']);
  await api.patch(`/api/webhooks/${inactive.id}`, { active: false });

  const before = (await api.get('/api/tasks/task_010')).body.data;
  await api.delete('/api/tasks/task_010');
  await api.post('/api/comments', { targetType: 'project', targetId: 'proj_001', author: 'dana', body: 'hello' });
  await waitFor('deliveries', () => all.requests.length === 2 && tasks.requests.length === 1);
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
  const { api } = await setup(t);
  const r = await receiver(t);
  await subscribe(api, r, ['milestone.reached', 'sprint.started', 'sprint.completed']);
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
  await waitFor('deliveries', () => r.requests.length === 2);
  assert.deepEqual(
    bodies(r).map((b) => [b.type, b.data.id]),
    [
      ['milestone.reached', 'ms_004'],
      ['sprint.started', entry.id],
    ],
  );
  assert.equal(bodies(r)[0].data.reachedAt, ms.reachedAt);
});

test('the delivery log lists each attempt newest first; a 500 is retried with the same webhook-id', async (t) => {
  const { api } = await setup(t);
  const r = await receiver(t, (_req, res, n) => {
    res.statusCode = n === 1 ? 500 : 204;
    res.end();
  });
  const hook = await subscribe(api, r, ['project.updated']);
  await api.put('/api/projects/proj_005', { name: 'Wiki 2' });
  await waitFor('retry', () => r.requests.length === 2);
  assert.equal(r.requests[0]!.headers['webhook-id'], r.requests[1]!.headers['webhook-id']);

  const log = await deliveriesWhen(api, hook.id, (l) => l.length === 2 && l.every((d) => d.status !== 'pending'));
  const [second, first] = log;
  assert.deepEqual([first.attempt, first.status, first.responseStatus], [1, 'failed', 500]);
  assert.deepEqual([second.attempt, second.status, second.responseStatus], [2, 'succeeded', 204]);
  assert.equal(first.eventType, 'project.updated');
  assert.equal(first.eventId, second.eventId);
  assert.equal(JSON.stringify(log).includes(hook.secret), false);
  assert.equal((await api.get('/api/webhooks/wh_nope/deliveries')).status, 404);
});

test('redeliver sends the same event again; ping sends a test event; unknown ids are 404', async (t) => {
  const { api } = await setup(t);
  const r = await receiver(t);
  const hook = await subscribe(api, r, ['task.created']);
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'Once' });
  const [delivery] = await deliveriesWhen(api, hook.id, (l) => l[0]?.status === 'succeeded');

  const again = await api.post(`/api/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`);
  assert.equal(again.status, 202);
  assert.equal(again.body.data.eventId, delivery.eventId);
  await waitFor('redelivery', () => r.requests.length === 2);
  assert.equal(r.requests[1]!.headers['webhook-id'], r.requests[0]!.headers['webhook-id']);
  assert.equal((await api.post(`/api/webhooks/${hook.id}/deliveries/dlv_nope/redeliver`)).status, 404);

  const ping = await api.post(`/api/webhooks/${hook.id}/ping`);
  assert.equal(ping.status, 202);
  await waitFor('ping', () => r.requests.length === 3);
  assert.deepEqual(bodies(r)[2].type, 'webhook.ping');
  assert.deepEqual(bodies(r)[2].data, { webhookId: hook.id });
  assert.equal((await api.post('/api/webhooks/wh_nope/ping')).status, 404);
});

test('a 410 Gone answer switches the webhook off, as a change by system', async (t) => {
  const { api } = await setup(t);
  const r = await receiver(t, (_req, res) => {
    res.statusCode = 410;
    res.end();
  });
  const hook = await subscribe(api, r, ['task.created']);
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'Gone' });
  await waitFor('deactivation', () => r.requests.length === 1);
  let active = true;
  for (let i = 0; i < 100 && active; i++) {
    active = (await api.get(`/api/webhooks/${hook.id}`)).body.data.active;
    await new Promise((res) => setTimeout(res, 10));
  }
  assert.equal(active, false);
  const log = (await api.get(`/api/activity-log?resourceId=${hook.id}&action=webhook.updated`)).body.data;
  assert.deepEqual(
    log.map((e: any) => [e.actor, e.metadata]),
    [['system', { fields: ['active'] }]],
  );
});

test('by default a loopback target is refused and recorded with its reason; the receiver is never called', async (t) => {
  const { api } = await testApp(t, { webhooks: { clock: systemClock } });
  const r = await receiver(t);
  const hook = await subscribe(api, r, ['task.created']);
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'Blocked' });
  const log = await deliveriesWhen(api, hook.id, (l) => l[0]?.status === 'refused');
  assert.match(log[0].error, /127\.0\.0\.1.*loopback.*WEBHOOK_ALLOW_PRIVATE/);
  assert.equal(r.requests.length, 0);
});

test('a receiver that hangs does not hold up the API: the write has answered while the delivery is still open', async (t) => {
  const { api } = await setup(t, { timeoutMs: 5_000 });
  const r = await receiver(t, () => new Promise<void>(() => {})); // never answers
  await subscribe(api, r, ['task.created']);
  const created: number[] = [];
  for (let i = 0; i < 20; i++)
    created.push((await api.post('/api/tasks', { projectId: 'proj_001', title: `T${i}` })).status);
  assert.deepEqual(new Set(created), new Set([201]));
  await waitFor('deliveries open', () => r.concurrent > 0);
  assert.ok(r.concurrent <= 16, 'outbound requests bounded by the concurrency limit');
  assert.equal((await api.get('/api/tasks?projectId=proj_001')).body.count, 23);
});

test('the seeded webhooks, on reserved hosts, fail locally and for good: no connection, no DNS query, no retry', async (t) => {
  const { app, api } = await testApp(t, { webhooks: { clock: systemClock } });
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'Seeded hooks' });
  const log = await deliveriesWhen(api, 'wh_001', (l) => l[0]?.status === 'failed');
  assert.equal(log[0].eventType, 'task.created');
  assert.match(log[0].error, /ENOTFOUND hooks\.example\.com \(a reserved name: never resolves; not retried\)/);
  assert.equal(log[0].nextAttemptAt, null, 'a name that can never resolve is not retried');
  assert.equal(app.webhookDispatcher.stats().scheduledRetries, 0);
});
