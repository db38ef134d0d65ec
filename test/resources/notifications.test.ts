import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { EventBus } from '../../src/events/bus.ts';
import { NotificationService } from '../../src/resources/notifications/service.ts';
import { MemoryStore } from '../../src/store/memory/store.ts';
import { FakeClock, errorOf, fieldsOf, sequentialIds, testApp, type Api } from '../helpers/app.ts';
import { RerunningStore } from '../helpers/store.ts';

const NOW = '2026-11-22T10:00:00.000Z';
const ids = (res: { body: any }) => res.body.data.map((n: any) => n.id);

/** Five notifications: notif_test00000001 … 05 (alice ×3, bob ×2). */
async function seedFive(api: Api): Promise<void> {
  const bodies = [
    {
      username: 'alice',
      type: 'task_assigned',
      message: 'You were assigned task_006',
      resourceType: 'task',
      resourceId: 'task_006',
    },
    {
      username: 'alice',
      type: 'comment_added',
      message: 'carol commented on API v2 Migration',
      resourceType: 'project',
      resourceId: 'proj_002',
    },
    {
      username: 'bob',
      type: 'task_assigned',
      message: 'You were assigned task_005',
      resourceType: 'task',
      resourceId: 'task_005',
    },
    {
      username: 'alice',
      type: 'milestone_reached',
      message: 'Warehouse go-live reached',
      resourceType: 'milestone',
      resourceId: 'ms_005',
    },
    { username: 'bob', type: 'project_updated', message: 'API v2 Migration was updated' },
  ];
  for (const body of bodies) assert.equal((await api.post('/api/notifications', body)).status, 201);
}

test('GET /api/notifications: nothing is seeded', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/notifications');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { data: [], count: 0 });
});

test('POST /api/notifications creates unread, with null resource defaults, generated id and createdAt', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/notifications', {
    username: 'alice',
    type: 'project_updated',
    message: 'API v2 Migration was updated',
  });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body.data, {
    id: 'notif_test00000001',
    username: 'alice',
    type: 'project_updated',
    message: 'API v2 Migration was updated',
    resourceType: null,
    resourceId: null,
    read: false,
    createdAt: NOW,
  });
  assert.deepEqual((await api.get('/api/notifications/notif_test00000001')).body.data, res.body.data);
  assert.equal((await api.get('/api/notifications')).body.count, 1);
});

test('POST /api/notifications: read is false even when read: true is sent; read-only and unknown fields ignored', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/notifications', {
    username: 'bob',
    type: 'comment_added',
    message: 'dana commented',
    resourceType: 'comment',
    resourceId: 'cmt_002',
    read: true,
    id: 'notif_mine',
    createdAt: '2000-01-01T00:00:00.000Z',
    priority: 'high',
  });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body.data, {
    id: 'notif_test00000001',
    username: 'bob',
    type: 'comment_added',
    message: 'dana commented',
    resourceType: 'comment',
    resourceId: 'cmt_002',
    read: false,
    createdAt: NOW,
  });
  assert.equal((await api.get('/api/notifications/notif_test00000001')).body.data.read, false);
  assert.deepEqual(ids(await api.get('/api/notifications?read=false')), ['notif_test00000001']);
  // resourceType and resourceId may be sent as null explicitly.
  const nulls = await api.post('/api/notifications', {
    username: 'bob',
    type: 'task_assigned',
    message: 'm',
    resourceType: null,
    resourceId: null,
  });
  assert.equal(nulls.status, 201);
  assert.equal(nulls.body.data.resourceType, null);
  assert.equal(nulls.body.data.resourceId, null);
});

test('POST /api/notifications accepts every type and resource type', async (t) => {
  const { api } = await testApp(t);
  for (const type of ['task_assigned', 'comment_added', 'milestone_reached', 'project_updated']) {
    const res = await api.post('/api/notifications', { username: 'erin', type, message: type });
    assert.equal(res.status, 201, type);
    assert.equal(res.body.data.type, type);
  }
  for (const resourceType of ['task', 'project', 'milestone', 'comment']) {
    const res = await api.post('/api/notifications', {
      username: 'erin',
      type: 'task_assigned',
      message: 'm',
      resourceType,
      resourceId: 'x_1',
    });
    assert.equal(res.status, 201, resourceType);
    assert.equal(res.body.data.resourceType, resourceType);
  }
  assert.equal((await api.get('/api/notifications')).body.count, 8);
});

test('POST /api/notifications rejects bad bodies with field details and stores nothing', async (t) => {
  const { api } = await testApp(t);
  const ok = { username: 'alice', type: 'task_assigned', message: 'm' };
  const cases: [unknown, string[]][] = [
    [{}, ['message', 'type', 'username']],
    [{ type: 'task_assigned', message: 'm' }, ['username']],
    [{ username: 'alice', message: 'm' }, ['type']],
    [{ username: 'alice', type: 'task_assigned' }, ['message']],
    [{ ...ok, type: 'mention' }, ['type']],
    [{ ...ok, type: 'TASK_ASSIGNED' }, ['type']],
    [{ ...ok, type: null }, ['type']],
    [{ ...ok, resourceType: 'team' }, ['resourceType']],
    [{ ...ok, resourceType: 3 }, ['resourceType']],
    [{ ...ok, resourceId: 3 }, ['resourceId']],
    [{ ...ok, username: ' ' }, ['username']],
    [{ ...ok, message: '' }, ['message']],
    [{ ...ok, message: 'm'.repeat(10_001) }, ['message']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.post('/api/notifications', body);
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual([...new Set(fieldsOf(res))], fields, JSON.stringify(body).slice(0, 80));
  }
  assert.equal((await api.get('/api/notifications')).body.count, 0);
});

test('GET /api/notifications filters by username, type and read, combined; bad type or read is a 400', async (t) => {
  const { api } = await testApp(t);
  await seedFive(api);
  const n = (i: number) => `notif_test0000000${i}`;
  assert.deepEqual(ids(await api.get('/api/notifications')), [n(1), n(2), n(3), n(4), n(5)]);
  const alice = await api.get('/api/notifications?username=alice');
  assert.deepEqual(ids(alice), [n(1), n(2), n(4)]);
  assert.equal(alice.body.count, 3);
  assert.deepEqual(ids(await api.get('/api/notifications?type=task_assigned')), [n(1), n(3)]);
  assert.deepEqual(ids(await api.get('/api/notifications?username=bob&type=task_assigned')), [n(3)]);
  assert.deepEqual(ids(await api.get('/api/notifications?username=carol')), []);
  assert.deepEqual(ids(await api.get('/api/notifications?read=true')), []);
  assert.equal((await api.patch(`/api/notifications/${n(2)}/read`)).status, 200);
  assert.deepEqual(ids(await api.get('/api/notifications?read=true')), [n(2)]);
  assert.deepEqual(ids(await api.get('/api/notifications?read=false')), [n(1), n(3), n(4), n(5)]);
  const combined = await api.get('/api/notifications?username=alice&read=false&type=milestone_reached');
  assert.deepEqual(ids(combined), [n(4)]);
  assert.equal(combined.body.count, 1);
  for (const [query, field] of [
    ['read=1', 'read'],
    ['read=yes', 'read'],
    ['read=', 'read'],
    ['type=mention', 'type'],
  ] as const) {
    const bad = await api.get(`/api/notifications?${query}`);
    assert.equal(bad.status, 400, query);
    assert.equal(errorOf(bad).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(bad), [field], query);
  }
});

test('GET /api/notifications/:id returns one; an unknown id is 404 NOT_FOUND naming it', async (t) => {
  const { api } = await testApp(t);
  await seedFive(api);
  const res = await api.get('/api/notifications/notif_test00000003');
  assert.equal(res.status, 200);
  assert.equal(res.body.data.username, 'bob');
  assert.equal(res.body.data.resourceId, 'task_005');
  const missing = await api.get('/api/notifications/notif_nope');
  assert.equal(missing.status, 404);
  assert.equal(errorOf(missing).code, 'NOT_FOUND');
  assert.match(errorOf(missing).message, /notif_nope/);
});

test('PATCH /api/notifications/:id/read marks it read, is idempotent, and 404s for an unknown id', async (t) => {
  const { api, clock } = await testApp(t);
  await seedFive(api);
  const before = (await api.get('/api/notifications/notif_test00000001')).body.data;
  clock.advance(60_000);
  const res = await api.patch('/api/notifications/notif_test00000001/read');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, { ...before, read: true });
  assert.equal(res.body.data.createdAt, NOW);
  assert.deepEqual((await api.get('/api/notifications/notif_test00000001')).body.data, res.body.data);
  const again = await api.patch('/api/notifications/notif_test00000001/read');
  assert.equal(again.status, 200);
  assert.deepEqual(again.body.data, res.body.data);
  // The others are untouched.
  assert.equal((await api.get('/api/notifications/notif_test00000002')).body.data.read, false);
  // With an empty JSON body, as some clients send it.
  const empty = await api.request({
    method: 'PATCH',
    url: '/api/notifications/notif_test00000002/read',
    headers: { 'content-type': 'application/json' },
    payload: '',
  });
  assert.equal(empty.status, 200);
  assert.equal(empty.body.data.read, true);
  const missing = await api.patch('/api/notifications/notif_nope/read');
  assert.equal(missing.status, 404);
  assert.equal(errorOf(missing).code, 'NOT_FOUND');
  assert.match(errorOf(missing).message, /notif_nope/);
});

test('PATCH /api/notifications/read-all marks every unread one; markedRead counts only changes', async (t) => {
  const { api } = await testApp(t);
  await seedFive(api);
  await api.patch('/api/notifications/notif_test00000004/read');
  const res = await api.patch('/api/notifications/read-all');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { data: { markedRead: 4 } });
  assert.deepEqual(ids(await api.get('/api/notifications?read=false')), []);
  assert.equal((await api.get('/api/notifications?read=true')).body.count, 5);
  const second = await api.patch('/api/notifications/read-all');
  assert.deepEqual(second.body, { data: { markedRead: 0 } });
});

test('read-all counts what the committed run changed, when the store runs each change again after a conflict', async (t) => {
  const { api } = await testApp(t, { store: new RerunningStore() });
  for (const message of ['a', 'b', 'c']) {
    await api.post('/api/notifications', { username: 'dana', type: 'task_assigned', message });
  }
  assert.deepEqual((await api.patch('/api/notifications/read-all?username=dana')).body, { data: { markedRead: 3 } });
  assert.equal((await api.get('/api/notifications?username=dana&read=true')).body.count, 3);
});

test('PATCH /api/notifications/read-all accepts an empty body with Content-Type: application/json, and {}', async (t) => {
  const { api } = await testApp(t);
  await seedFive(api);
  const empty = await api.request({
    method: 'PATCH',
    url: '/api/notifications/read-all',
    headers: { 'content-type': 'application/json' },
    payload: '',
  });
  assert.equal(empty.status, 200);
  assert.deepEqual(empty.body, { data: { markedRead: 5 } });
  assert.match(String(empty.headers['content-type']), /^application\/json/);
  await api.post('/api/notifications', { username: 'carol', type: 'task_assigned', message: 'm' });
  const object = await api.patch('/api/notifications/read-all', {});
  assert.equal(object.status, 200);
  assert.deepEqual(object.body, { data: { markedRead: 1 } });
  // Nothing unread at all.
  const none = await api.patch('/api/notifications/read-all', {});
  assert.deepEqual(none.body, { data: { markedRead: 0 } });
});

test('PATCH /api/notifications/read-all?username= limits to that user', async (t) => {
  const { api } = await testApp(t);
  await seedFive(api);
  const bob = await api.patch('/api/notifications/read-all?username=bob');
  assert.equal(bob.status, 200);
  assert.deepEqual(bob.body, { data: { markedRead: 2 } });
  assert.deepEqual(ids(await api.get('/api/notifications?username=bob&read=false')), []);
  assert.deepEqual(ids(await api.get('/api/notifications?username=alice&read=false')), [
    'notif_test00000001',
    'notif_test00000002',
    'notif_test00000004',
  ]);
  assert.deepEqual((await api.patch('/api/notifications/read-all?username=bob')).body, { data: { markedRead: 0 } });
  assert.deepEqual((await api.patch('/api/notifications/read-all?username=nobody')).body, { data: { markedRead: 0 } });
  await api.patch('/api/notifications/notif_test00000002/read');
  const alice = await api.patch('/api/notifications/read-all?username=alice');
  assert.deepEqual(alice.body, { data: { markedRead: 2 } });
  assert.equal((await api.get('/api/notifications?read=false')).body.count, 0);
});

test('PATCH /api/notifications/read-all with username in a bracketed form is a 400, and marks nothing', async (t) => {
  const { api } = await testApp(t);
  await seedFive(api);
  const unread = (await api.get('/api/notifications?read=false')).body.count;
  assert.ok(unread > 0);
  // As a query-string library writes an array: dropping it would widen the change to every user's notifications.
  for (const query of ['username[]=bob', 'username[in]=bob', 'username[0]=bob']) {
    const res = await api.patch(`/api/notifications/read-all?${query}`);
    assert.equal(res.status, 400, query);
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(res), [query.split('=')[0]]);
    assert.match(errorOf(res).details![0]!.message, /`username` takes one value here/);
  }
  assert.equal((await api.get('/api/notifications?read=false')).body.count, unread);
  // A bracketed name the route does not know at all is refused too (it names a condition); a plain one is ignored.
  assert.equal((await api.patch('/api/notifications/read-all?who[]=bob')).status, 400);
  assert.equal((await api.get('/api/notifications?read=false')).body.count, unread);
});

test('DELETE /api/notifications/:id answers the delete shape; then 404', async (t) => {
  const { api } = await testApp(t);
  await seedFive(api);
  const res = await api.delete('/api/notifications/notif_test00000003');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { data: { id: 'notif_test00000003', deleted: true } });
  assert.equal((await api.get('/api/notifications/notif_test00000003')).status, 404);
  const again = await api.delete('/api/notifications/notif_test00000003');
  assert.equal(again.status, 404);
  assert.equal(errorOf(again).code, 'NOT_FOUND');
  assert.equal((await api.patch('/api/notifications/notif_test00000003/read')).status, 404);
  assert.equal((await api.get('/api/notifications')).body.count, 4);
  // A deleted notification is not counted by read-all.
  assert.deepEqual((await api.patch('/api/notifications/read-all?username=bob')).body, { data: { markedRead: 1 } });
});

test('PATCH /api/notifications/:id (no update) is 405 with Allow', async (t) => {
  const { api } = await testApp(t);
  await seedFive(api);
  const res = await api.patch('/api/notifications/notif_test00000001', { read: true });
  assert.equal(res.status, 405);
  assert.equal(errorOf(res).code, 'METHOD_NOT_ALLOWED');
  assert.equal(res.headers.allow, 'DELETE, GET, HEAD');
  assert.equal((await api.get('/api/notifications/notif_test00000001')).body.data.read, false);
});

test('read-all counts only what it changed itself: one read or deleted after the list is taken is skipped, not counted', async () => {
  const store = new MemoryStore();
  const events = new EventBus(pino({ level: 'silent' }));
  const svc = new NotificationService({ store, events, clock: new FakeClock(), ids: sequentialIds() });
  const make = (message: string) => svc.create({ username: 'bob', type: 'project_updated', message });
  const [a, b, c] = [await make('a'), await make('b'), await make('c')];
  const list = store.notifications.list.bind(store.notifications);
  store.notifications.list = async (filter) => {
    const found = await list(filter);
    await svc.markRead(b.id); // marked by someone else meanwhile
    await svc.remove(c.id); // deleted meanwhile
    return found;
  };
  assert.equal(await svc.markAllRead('bob'), 1);
  assert.equal((await svc.get(a.id)).read, true);
  assert.equal((await svc.get(b.id)).read, true);
});
