/**
 * A list asked without `limit` on a store that reads lists in parts (`listPart`; the SQL stores read 1,000 records
 * a statement): the answer is written part by part, and holds exactly what one read of every match holds. Here the
 * parts are 3 records, on every store, so that the sample records take several.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AddressInfo } from 'node:net';
import { testApp, type Res } from '../helpers/app.ts';
import { testStore } from '../helpers/store.ts';
import type { Store } from '../../src/store/store.ts';

/**
 * The same list as one page of up to 1,000 (one statement), without the page's `nextCursor` (which the activity log,
 * whose `limit` is the document's own, does not add).
 */
async function asOnePage(api: { get(url: string): Promise<Res> }, url: string): Promise<Res> {
  const res = await api.get(`${url}${url.includes('?') ? '&' : '?'}limit=1000`);
  assert.equal(res.status, 200, url);
  assert.equal(res.headers.link, undefined, `${url}: one page holds every match`);
  assert.ok(!res.body.nextCursor, url);
  delete res.body.nextCursor;
  return res;
}

test('an unpaged list read in parts answers every match in order, as one read does, written as it is read', async (t) => {
  const { api, dispatcher } = await testApp(t, { listPart: 3 });
  // Deliveries for the delivery log: a webhook whose host is reserved, so that each attempt is recorded at once.
  const hook = await api.post('/api/webhooks', { url: 'https://hooks.example.com/parts', events: ['task.created'] });
  for (let i = 0; i < 7; i++) {
    const res = await api.post('/api/tasks', {
      projectId: 'proj_001',
      title: `Part ${i}`,
      priority: 'high',
      assignee: 'carol',
    });
    assert.equal(res.status, 201);
  }
  for (const name of ['Parts A', 'Parts B']) assert.equal((await api.post('/api/teams', { name })).status, 201);
  await dispatcher.idle();
  const lists = [
    '/api/tasks',
    '/api/tasks?sort=-priority,title',
    '/api/tasks?status[in]=todo,in_progress&projectId=proj_001',
    '/api/tasks?q=part',
    '/api/projects',
    '/api/teams',
    '/api/notifications',
    '/api/activity-log',
    '/api/activity-log?resourceType=task&sort=action',
    `/api/webhooks/${hook.body.data.id}/deliveries`,
  ];
  for (const url of lists) {
    const whole = await asOnePage(api, url);
    const parts = await api.get(url);
    assert.equal(parts.status, 200, url);
    assert.ok(whole.body.data.length > 3, `${url}: more matches than one part`);
    assert.deepEqual(parts.body, whole.body, url);
    assert.equal(parts.headers['x-total-count'], whole.headers['x-total-count'], url);
    assert.equal(parts.headers['content-type'], 'application/json; charset=utf-8', url);
    // Written as read: no length known before the last part.
    assert.equal(parts.headers['content-length'], undefined, url);
    assert.equal(parts.headers.link, undefined, url);
  }
  // HEAD: the headers of the chunked answer, no body.
  const head = await api.request({ method: 'HEAD', url: '/api/tasks' });
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  assert.equal(head.headers['x-total-count'], (await api.get('/api/tasks')).headers['x-total-count']);
});

test('an unpaged list that one part holds is answered whole, with its length', async (t) => {
  const { api } = await testApp(t, { listPart: 3 });
  const res = await api.get('/api/tasks?projectId=proj_002');
  assert.equal(res.status, 200);
  assert.ok(res.body.data.length <= 3 && res.body.data.length > 0);
  assert.equal(res.body.count, res.body.data.length);
  assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.text));
  // Paged requests page as they always did, whatever the parts.
  const page = await api.get('/api/tasks?limit=5');
  assert.equal(page.body.data.length, 5);
  assert.equal(typeof page.body.nextCursor, 'string');
});

test('a part that fails after the answer began cuts the answer; the service serves on', async (t) => {
  const store: Store = await testStore();
  // The store's own collections, but the tasks' later parts (read after a position) fail as a database lost
  // mid-answer would.
  const failing: Store = Object.create(store, {
    tasks: {
      value: Object.assign(Object.create(store.tasks), {
        query: (q: Parameters<Store['tasks']['query']>[0]) =>
          q.after ? Promise.reject(new Error('connection lost')) : store.tasks.query(q),
      }),
    },
  });
  const { app } = await testApp(t, { store: failing, listPart: 3 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const res = await fetch(`${base}/api/tasks`);
  assert.equal(res.status, 200);
  await assert.rejects(res.text(), 'the answer is cut, not completed as if whole');
  const health = await fetch(`${base}/api/tasks?limit=2`);
  assert.equal(health.status, 200);
  assert.equal(((await health.json()) as { data: unknown[] }).data.length, 2);
});
