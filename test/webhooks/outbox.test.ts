import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Collections } from '../../src/store/store.ts';
import { appWithReceivers, receiver, subscribe } from './helpers.ts';

test('a change that rolls back sends nothing and leaves nothing in the delivery log', async (t) => {
  const { api, store, app } = await appWithReceivers(t);
  const rx = await receiver(t);
  const hook = await subscribe(api, rx.url, ['task.created']);
  // A name that never resolves: its one attempt is recorded final as it is staged, in the change's transaction.
  const unreachable = await subscribe(api, 'https://hooks.example.com/never', ['task.created']);
  const transaction = store.transaction.bind(store);
  let fail = true;
  store.transaction = <R>(work: (tx: Collections) => Promise<R>) =>
    transaction(async (tx) => {
      const result = await work(tx);
      if (fail) throw new Error('the commit failed');
      return result;
    });
  const res = await api.post('/api/tasks', { projectId: 'proj_001', title: 'Never' });
  assert.ok(res.status >= 500, `${res.status}`);
  fail = false;
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'Kept' });
  await rx.arrived(1);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(rx.requests.length, 1, 'only the change that committed is delivered');
  assert.equal(JSON.parse(rx.requests[0]!.body).data.title, 'Kept');
  assert.equal((await api.get(`/api/webhooks/${hook.id}/deliveries`)).body.count, 1);
  const final = await api.get(`/api/webhooks/${unreachable.id}/deliveries`);
  assert.deepEqual(
    final.body.data.map((d: { status: string }) => d.status),
    ['failed'],
    'the final attempt of the change that rolled back is gone too',
  );
  assert.ok(app);
});

test('a retry goes to the URL the webhook has now; each attempt records its URL', async (t) => {
  const { api, timers, watched } = await appWithReceivers(t, { retrySchedule: [60_000] });
  const old = await receiver(t, (_req, res) => void res.writeHead(500).end());
  const now = await receiver(t);
  const hook = await subscribe(api, old.url, ['task.created']);
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'Moved' });
  await watched.until(1);
  await api.patch(`/api/webhooks/${hook.id}`, { url: now.url });
  timers.advance(60_000);
  await now.arrived(1);
  await watched.until(2);
  const log = (await api.get(`/api/webhooks/${hook.id}/deliveries`)).body.data;
  assert.deepEqual(
    log.map((d: any) => [d.attempt, d.status, d.url]),
    [
      [2, 'succeeded', now.url],
      [1, 'failed', old.url],
    ],
  );
  for (const d of log) assert.ok(Number.isInteger(d.queuedMs) && Number.isInteger(d.durationMs));
});

test('the delivery log filters by status, eventType, since/until and limit', async (t) => {
  const { api, watched } = await appWithReceivers(t, { retrySchedule: [] });
  const rx = await receiver(t, (req, res) => void res.writeHead(req.headers['webhook-id'] ? 204 : 500).end());
  const failing = await receiver(t, (_req, res) => void res.writeHead(503).end());
  const hook = await subscribe(api, rx.url, ['task.created', 'task.updated']);
  const bad = await subscribe(api, failing.url, ['task.created']);
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'One' });
  await api.patch('/api/tasks/task_001', { title: 'Two' });
  await watched.until(3);
  const list = async (id: string, q: string) => (await api.get(`/api/webhooks/${id}/deliveries?${q}`)).body;
  assert.equal((await list(hook.id, 'eventType=task.updated')).count, 1);
  assert.equal((await list(hook.id, 'status=succeeded')).count, 2);
  assert.equal((await list(hook.id, 'status=failed')).count, 0);
  assert.equal((await list(hook.id, 'limit=1')).count, 1);
  assert.equal((await list(hook.id, 'since=2100-01-01')).count, 0);
  assert.equal((await list(hook.id, 'until=2000-01-01')).count, 0);
  const [failed] = (await list(bad.id, 'status=failed')).data;
  assert.deepEqual([failed.error, failed.stopReason], ['HTTP 503', 'exhausted']);
  assert.equal((await api.get(`/api/webhooks/${hook.id}/deliveries?status=nope`)).status, 400);
});

test('POST /api/webhooks/:id/redeliver-failed sends again every event whose delivery failed since a time', async (t) => {
  const { api, watched } = await appWithReceivers(t, { retrySchedule: [] });
  let up = false;
  const rx = await receiver(t, (_req, res) => void res.writeHead(up ? 204 : 500).end());
  const hook = await subscribe(api, rx.url, ['task.created']);
  for (const title of ['A', 'B']) await api.post('/api/tasks', { projectId: 'proj_001', title });
  await watched.until(2);
  up = true;
  const res = await api.post(`/api/webhooks/${hook.id}/redeliver-failed?since=2000-01-01`);
  assert.equal(res.status, 202);
  assert.equal(res.body.count, 2);
  await watched.until(4);
  const ids = new Set(rx.requests.map((r) => r.headers['webhook-id']));
  assert.equal(ids.size, 2, 'the same two events, with their own webhook-ids');
  assert.equal((await api.get(`/api/webhooks/${hook.id}/deliveries?status=succeeded`)).body.count, 2);
  const again = await api.post(`/api/webhooks/${hook.id}/redeliver-failed?since=2000-01-01`);
  assert.equal(again.body.count, 0, 'nothing failed any more');
  assert.equal((await api.post(`/api/webhooks/${hook.id}/redeliver-failed`)).status, 400);
  assert.equal((await api.post('/api/webhooks/wh_nope/redeliver-failed?since=2000-01-01')).status, 404);
});

test('a delivery due for a deleted webhook is not made; a 410 switches the webhook off and its record says so', async (t) => {
  const { api, timers, watched, store } = await appWithReceivers(t);
  const gone = await receiver(t, (_req, res) => void res.writeHead(410).end());
  const failing = await receiver(t, (_req, res) => void res.writeHead(500).end());
  const hook = await subscribe(api, failing.url, ['task.created']);
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'Deleted meanwhile' });
  await watched.until(1);
  await api.delete(`/api/webhooks/${hook.id}`);
  timers.advance(30);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(failing.requests.length, 1, 'no attempt for the deleted webhook');
  assert.equal((await store.deliveries.pending()) <= 1, true);

  const moved = await subscribe(api, gone.url, ['task.created']);
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'Gone' });
  await gone.arrived(1);
  for (let i = 0; i < 100 && (await api.get(`/api/webhooks/${moved.id}`)).body.data.active; i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal((await api.get(`/api/webhooks/${moved.id}`)).body.data.active, false, 'a 410 switches it off');
  const [last] = (await api.get(`/api/webhooks/${moved.id}/deliveries`)).body.data;
  assert.equal(last.stopReason, 'gone (410)');
});

test('a redelivery asked for by hand is made though the webhook is off; its retries stop once it is off', async (t) => {
  const { api, timers, watched } = await appWithReceivers(t);
  const failing = await receiver(t, (_req, res) => void res.writeHead(500).end());
  const hook = await subscribe(api, failing.url, ['task.created']);
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'Failing' });
  await watched.until(1);
  await api.patch(`/api/webhooks/${hook.id}`, { active: false });
  const [first] = (await api.get(`/api/webhooks/${hook.id}/deliveries?eventType=task.created`)).body.data.slice(-1);
  assert.equal((await api.post(`/api/webhooks/${hook.id}/deliveries/${first.id}/redeliver`)).status, 202);
  await failing.arrived(2);
  const made = failing.requests.length;
  for (let i = 0; i < 4; i++) {
    timers.advance(100);
    await new Promise((r) => setTimeout(r, 30));
  }
  assert.equal(failing.requests.length, made, 'no retry of the redelivery once the webhook is off');
  const stops = (await api.get(`/api/webhooks/${hook.id}/deliveries?status=pending`)).body.count;
  assert.equal(stops, 0, 'nothing left pending');
});

test('attempts claimed ahead that start after the webhook is switched off are not made', async (t) => {
  const { api, store } = await appWithReceivers(t, { perWebhookConcurrency: 2 });
  const slow = await receiver(t, async (_req, res) => {
    await new Promise((r) => setTimeout(r, 200));
    res.end('ok');
  });
  const hook = await subscribe(api, slow.url, ['task.created']);
  await Promise.all(
    Array.from({ length: 16 }, (_, i) => api.post('/api/tasks', { projectId: 'proj_001', title: `T${i}` })),
  );
  await slow.arrived(2);
  assert.equal((await api.patch(`/api/webhooks/${hook.id}`, { active: false })).status, 200);
  const off = performance.now();
  await new Promise((r) => setTimeout(r, 700));
  const late = slow.requests.filter((r) => r.at > off + 50).length;
  assert.equal(late, 0, 'no attempt started after the switch-off was answered');
  for (let i = 0; i < 100 && (await store.deliveries.pending()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
  const log = (await api.get(`/api/webhooks/${hook.id}/deliveries`)).body.data as { stopReason: string | null }[];
  assert.equal(log.length, 16);
  assert.ok(log.filter((d) => d.stopReason === 'cancelled: webhook inactive').length >= 10, JSON.stringify(log));
});

test('redeliver-failed called twice at once redelivers each failed event once', async (t) => {
  const { api, watched } = await appWithReceivers(t, { retrySchedule: [] });
  let up = false;
  const rx = await receiver(t, (_req, res) => void res.writeHead(up ? 204 : 500).end());
  const hook = await subscribe(api, rx.url, ['task.created']);
  for (const title of ['A', 'B', 'C']) await api.post('/api/tasks', { projectId: 'proj_001', title });
  await watched.until(3);
  up = true;
  const path = `/api/webhooks/${hook.id}/redeliver-failed?since=2000-01-01`;
  const answers = await Promise.all([api.post(path), api.post(path)]);
  assert.deepEqual(
    answers.map((r) => r.status),
    [202, 202],
  );
  assert.equal(answers[0]!.body.count + answers[1]!.body.count, 3, 'three events, each redelivered once');
  await watched.until(6);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(rx.requests.length, 6, 'three failed attempts, then each event once more');
});
