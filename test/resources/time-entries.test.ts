import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, fieldsOf, testApp } from '../helpers/app.ts';

const NOW = '2026-11-22T10:00:00.000Z';
const ids = (res: { body: any }) => res.body.data.map((e: any) => e.id);

test('GET /api/time-entries lists the seven seeded entries with count', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/time-entries');
  assert.equal(res.status, 200);
  assert.equal(res.body.count, 7);
  assert.deepEqual(ids(res), ['te_001', 'te_002', 'te_003', 'te_004', 'te_005', 'te_006', 'te_007']);
  assert.deepEqual(res.body.data[2], {
    id: 'te_003',
    taskId: 'task_002',
    username: 'erin',
    hours: 4.25,
    description: 'Breakpoints and keyboard support',
    date: '2026-10-12',
    createdAt: '2026-10-12T18:00:00.000Z',
    updatedAt: '2026-10-12T18:00:00.000Z',
  });
});

test('GET /api/time-entries filters by taskId, username, date and their combination', async (t) => {
  const { api } = await testApp(t);
  const byTask = await api.get('/api/time-entries?taskId=task_002');
  assert.deepEqual(ids(byTask), ['te_002', 'te_003']);
  assert.equal(byTask.body.count, 2);

  const byUser = await api.get('/api/time-entries?username=bob');
  assert.deepEqual(ids(byUser), ['te_005', 'te_006']);
  assert.equal(byUser.body.count, 2);

  const byDate = await api.get('/api/time-entries?date=2026-10-12');
  assert.deepEqual(ids(byDate), ['te_003']);
  assert.equal(byDate.body.count, 1);

  const combined = await api.get('/api/time-entries?taskId=task_002&username=erin&date=2026-10-11');
  assert.deepEqual(ids(combined), ['te_002']);
  const userAndDate = await api.get('/api/time-entries?username=bob&date=2026-10-17');
  assert.deepEqual(ids(userAndDate), ['te_006']);

  const noMatch = await api.get('/api/time-entries?taskId=task_002&username=bob');
  assert.equal(noMatch.status, 200);
  assert.deepEqual(noMatch.body, { data: [], count: 0 });
});

test('GET /api/time-entries?date= must be a calendar date', async (t) => {
  const { api } = await testApp(t);
  for (const date of ['yesterday', '2026/10/12', '2026-10-12T00:00:00Z', '2026-02-30', '2026-13-01']) {
    const res = await api.get(`/api/time-entries?date=${encodeURIComponent(date)}`);
    assert.equal(res.status, 400, date);
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(res), ['date'], date);
  }
});

test('GET /api/time-entries/:id returns one entry; an unknown id is 404 NOT_FOUND naming it', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/time-entries/te_006');
  assert.equal(res.status, 200);
  assert.equal(res.body.data.hours, 7.75);
  assert.equal(res.body.data.taskId, 'task_009');
  const missing = await api.get('/api/time-entries/te_nope');
  assert.equal(missing.status, 404);
  assert.equal(errorOf(missing).code, 'NOT_FOUND');
  assert.match(errorOf(missing).message, /te_nope/);
});

test('POST /api/time-entries creates with defaults: description empty, date the UTC day of the clock', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/time-entries', { taskId: 'task_003', username: 'carol', hours: 1.5 });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body.data, {
    id: 'te_test00000001',
    taskId: 'task_003',
    username: 'carol',
    hours: 1.5,
    description: '',
    date: '2026-11-22',
    createdAt: NOW,
    updatedAt: NOW,
  });
  assert.deepEqual((await api.get('/api/time-entries/te_test00000001')).body.data, res.body.data);
  assert.equal((await api.get('/api/time-entries')).body.count, 8);
  assert.deepEqual(ids(await api.get('/api/time-entries?date=2026-11-22')), ['te_test00000001']);
});

test('POST /api/time-entries: the default date is the UTC day, at both edges of it', async (t) => {
  const { api, clock } = await testApp(t);
  clock.set('2026-11-22T23:59:59.999Z');
  const late = await api.post('/api/time-entries', { taskId: 'task_003', username: 'carol', hours: 1 });
  assert.equal(late.body.data.date, '2026-11-22');
  clock.advance(1);
  const early = await api.post('/api/time-entries', { taskId: 'task_003', username: 'carol', hours: 1 });
  assert.equal(early.body.data.date, '2026-11-23');
  assert.equal(early.body.data.createdAt, '2026-11-23T00:00:00.000Z');
});

test('POST /api/time-entries takes every field sent and ignores read-only and unknown ones', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/time-entries', {
    taskId: 'task_005',
    username: 'bob',
    hours: 2.5,
    description: 'Pairing on the guide',
    date: '2026-11-20',
    id: 'te_mine',
    createdAt: '2000-01-01T00:00:00.000Z',
    updatedAt: '2000-01-01T00:00:00.000Z',
    billable: true,
  });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body.data, {
    id: 'te_test00000001',
    taskId: 'task_005',
    username: 'bob',
    hours: 2.5,
    description: 'Pairing on the guide',
    date: '2026-11-20',
    createdAt: NOW,
    updatedAt: NOW,
  });
});

test('POST /api/time-entries: hours more than 0 and at most 24, decimals kept exactly as sent', async (t) => {
  const { api } = await testApp(t);
  for (const hours of [24, 0.25, 1.3333, 0.01, 7]) {
    const res = await api.post('/api/time-entries', { taskId: 'task_001', username: 'dana', hours });
    assert.equal(res.status, 201, String(hours));
    assert.equal(res.body.data.hours, hours);
    assert.equal((await api.get(`/api/time-entries/${res.body.data.id}`)).body.data.hours, hours);
  }
  const exact = await api.request({
    method: 'POST',
    url: '/api/time-entries',
    headers: { 'content-type': 'application/json' },
    payload: '{"taskId":"task_001","username":"dana","hours":1.3333}',
  });
  assert.match(exact.text, /"hours":1\.3333[,}]/);
  for (const hours of [0, -1, 24.01, 25, '2', null, true, [1]]) {
    const res = await api.post('/api/time-entries', { taskId: 'task_001', username: 'dana', hours });
    assert.equal(res.status, 400, JSON.stringify(hours));
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual([...new Set(fieldsOf(res))], ['hours'], JSON.stringify(hours));
  }
  assert.equal((await api.get('/api/time-entries')).body.count, 13); // 7 seeded + 6 valid
});

test('POST /api/time-entries rejects bad bodies with field details and stores nothing', async (t) => {
  const { api } = await testApp(t);
  const ok = { taskId: 'task_001', username: 'dana', hours: 1 };
  const cases: [unknown, string[]][] = [
    [{}, ['hours', 'taskId', 'username']],
    [{ username: 'dana', hours: 1 }, ['taskId']],
    [{ taskId: 'task_001', hours: 1 }, ['username']],
    [{ taskId: 'task_001', username: 'dana' }, ['hours']],
    [{ ...ok, taskId: 'task_999' }, ['taskId']],
    [{ ...ok, taskId: 1 }, ['taskId']],
    [{ ...ok, username: '  ' }, ['username']],
    [{ ...ok, username: 'u'.repeat(101) }, ['username']],
    [{ ...ok, description: 5 }, ['description']],
    [{ ...ok, date: '2026-02-30' }, ['date']],
    [{ ...ok, date: '2026/01/01' }, ['date']],
    [{ ...ok, date: '2026-01-01T00:00:00Z' }, ['date']],
    [{ ...ok, date: null }, ['date']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.post('/api/time-entries', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual([...new Set(fieldsOf(res))], fields, JSON.stringify(body));
  }
  assert.equal((await api.get('/api/time-entries')).body.count, 7);
});

test('PATCH /api/time-entries/:id changes hours, description, date and username; taskId, id, createdAt are ignored', async (t) => {
  const { api, clock } = await testApp(t);
  clock.advance(60_000);
  const res = await api.patch('/api/time-entries/te_002', {
    hours: 2.75,
    description: 'Navigation prototype and review',
    date: '2026-10-13',
    username: 'dana',
    taskId: 'task_004',
    id: 'te_other',
    createdAt: '2000-01-01T00:00:00.000Z',
    updatedAt: '2000-01-01T00:00:00.000Z',
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, {
    id: 'te_002',
    taskId: 'task_002',
    username: 'dana',
    hours: 2.75,
    description: 'Navigation prototype and review',
    date: '2026-10-13',
    createdAt: '2026-10-11T18:00:00.000Z',
    updatedAt: '2026-11-22T10:01:00.000Z',
  });
  assert.deepEqual((await api.get('/api/time-entries/te_002')).body.data, res.body.data);
  // Filters see the new values.
  assert.deepEqual(ids(await api.get('/api/time-entries?username=dana')), ['te_001', 'te_002']);
  assert.deepEqual(ids(await api.get('/api/time-entries?date=2026-10-11')), []);
  assert.deepEqual(ids(await api.get('/api/time-entries?taskId=task_004')), ['te_004']);
});

test('PATCH /api/time-entries/:id changes only what is sent; updatedAt strictly later even without a clock move', async (t) => {
  const { api } = await testApp(t);
  const before = (await api.get('/api/time-entries/te_005')).body.data;
  const first = await api.patch('/api/time-entries/te_005', { hours: 1.3333 });
  assert.deepEqual(first.body.data, { ...before, hours: 1.3333, updatedAt: NOW });
  const second = await api.patch('/api/time-entries/te_005', { description: 'Outline' });
  assert.ok(second.body.data.updatedAt > first.body.data.updatedAt);
  assert.equal(second.body.data.hours, 1.3333);
  assert.equal(second.body.data.description, 'Outline');
  assert.equal(second.body.data.createdAt, before.createdAt);
});

test('PATCH /api/time-entries/:id: 404 for an unknown id, 400 for bad values and the entry is unchanged', async (t) => {
  const { api } = await testApp(t);
  const missing = await api.patch('/api/time-entries/te_nope', { hours: 1 });
  assert.equal(missing.status, 404);
  assert.equal(errorOf(missing).code, 'NOT_FOUND');
  const before = (await api.get('/api/time-entries/te_004')).body.data;
  const cases: [unknown, string[]][] = [
    [{ hours: 0 }, ['hours']],
    [{ hours: 24.5 }, ['hours']],
    [{ hours: '3' }, ['hours']],
    [{ date: '2026-02-30' }, ['date']],
    [{ username: '' }, ['username']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.patch('/api/time-entries/te_004', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual([...new Set(fieldsOf(res))], fields, JSON.stringify(body));
  }
  assert.deepEqual((await api.get('/api/time-entries/te_004')).body.data, before);
});

test('DELETE /api/time-entries/:id answers the delete shape; then 404', async (t) => {
  const { api } = await testApp(t);
  const res = await api.delete('/api/time-entries/te_007');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { data: { id: 'te_007', deleted: true } });
  assert.equal((await api.get('/api/time-entries/te_007')).status, 404);
  const again = await api.delete('/api/time-entries/te_007');
  assert.equal(again.status, 404);
  assert.equal(errorOf(again).code, 'NOT_FOUND');
  assert.equal((await api.get('/api/time-entries')).body.count, 6);
});

test('deleting a task removes its time entries and only those', async (t) => {
  const { api } = await testApp(t);
  assert.equal((await api.delete('/api/tasks/task_002')).status, 200);
  assert.equal((await api.get('/api/time-entries/te_002')).status, 404);
  assert.equal((await api.get('/api/time-entries/te_003')).status, 404);
  assert.deepEqual(ids(await api.get('/api/time-entries?taskId=task_002')), []);
  assert.deepEqual(ids(await api.get('/api/time-entries')), ['te_001', 'te_004', 'te_005', 'te_006', 'te_007']);
  // A new entry cannot be booked on the deleted task.
  const res = await api.post('/api/time-entries', { taskId: 'task_002', username: 'erin', hours: 1 });
  assert.equal(res.status, 400);
  assert.deepEqual(fieldsOf(res), ['taskId']);
});
