import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, fieldsOf, testApp } from '../helpers/app.ts';

const ids = (res: { body: any }) => res.body.data.map((r: any) => r.id);

const TASK_001 = {
  id: 'task_001',
  projectId: 'proj_001',
  title: 'Design the new homepage',
  description: 'Hero, navigation and footer for desktop and mobile',
  status: 'done',
  priority: 'high',
  assignee: 'dana',
  createdAt: '2026-09-06T09:00:00.000Z',
  updatedAt: '2026-09-30T09:00:00.000Z',
};

// ---------------------------------------------------------------- list

test('GET /api/tasks lists the ten seeded tasks with count, each a full task', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/tasks');
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  assert.deepEqual(Object.keys(res.body).sort(), ['count', 'data']);
  assert.equal(res.body.count, 10);
  assert.deepEqual(ids(res), [
    'task_001',
    'task_002',
    'task_003',
    'task_004',
    'task_005',
    'task_006',
    'task_007',
    'task_008',
    'task_009',
    'task_010',
  ]);
  assert.deepEqual(res.body.data[0], TASK_001);
});

test('GET /api/tasks filters by projectId, assignee and status; count is the number after filtering', async (t) => {
  const { api } = await testApp(t);
  const cases: [string, string[]][] = [
    ['projectId=proj_001', ['task_001', 'task_002', 'task_003']],
    ['projectId=proj_002', ['task_004', 'task_005', 'task_006']],
    ['assignee=bob', ['task_005', 'task_009']],
    ['status=todo', ['task_003', 'task_006', 'task_007', 'task_008', 'task_010']],
    ['status=in_progress', ['task_002', 'task_005']],
    ['status=done', ['task_001', 'task_004', 'task_009']],
    ['projectId=proj_002&status=todo', ['task_006']],
    ['assignee=bob&status=done', ['task_009']],
    ['projectId=proj_001&assignee=dana&status=done', ['task_001']],
    ['projectId=proj_001&assignee=bob', []],
    ['assignee=nobody', []],
  ];
  for (const [query, expected] of cases) {
    const res = await api.get(`/api/tasks?${query}`);
    assert.equal(res.status, 200, query);
    assert.deepEqual(ids(res), expected, query);
    assert.equal(res.body.count, expected.length, query);
  }
});

test('GET /api/tasks?status= with an unknown value is 400 VALIDATION_ERROR naming status', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/tasks?status=blocked');
  assert.equal(res.status, 400);
  assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(res), ['status']);
  assert.match(errorOf(res).details![0]!.message, /todo, in_progress, done/);
});

test('GET /api/tasks?projectId= on an unknown project is an empty list, not an error', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/tasks?projectId=proj_nope');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { data: [], count: 0 });
});

test('GET /api/tasks follows changes: a created task appears under its filters', async (t) => {
  const { api } = await testApp(t);
  await api.post('/api/tasks', { projectId: 'proj_005', title: 'Pick a theme', assignee: 'zoe' });
  const res = await api.get('/api/tasks?projectId=proj_005');
  assert.deepEqual(ids(res), ['task_010', 'task_test00000001']);
  assert.deepEqual(ids(await api.get('/api/tasks?assignee=zoe')), ['task_test00000001']);
  assert.equal((await api.get('/api/tasks')).body.count, 11);
});

// ---------------------------------------------------------------- get

test('GET /api/tasks/:id returns the full task', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/tasks/task_001');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { data: TASK_001 });
  const unassigned = await api.get('/api/tasks/task_003');
  assert.equal(unassigned.body.data.assignee, null);
  assert.equal(unassigned.body.data.description, '');
});

test('GET /api/tasks/:id with an unknown id is 404 NOT_FOUND naming the id', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/tasks/task_nope');
  assert.equal(res.status, 404);
  assert.deepEqual(Object.keys(res.body), ['error']);
  assert.equal(errorOf(res).code, 'NOT_FOUND');
  assert.match(errorOf(res).message, /task_nope/);
  assert.match(errorOf(res).message, /Task/);
});

// ---------------------------------------------------------------- create

test('POST /api/tasks creates with defaults, a generated id and timestamps from the clock', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/tasks', { projectId: 'proj_002', title: 'Retire v1 docs' });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body, {
    data: {
      id: 'task_test00000001',
      projectId: 'proj_002',
      title: 'Retire v1 docs',
      description: '',
      status: 'todo',
      priority: 'medium',
      assignee: null,
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:00:00.000Z',
    },
  });
  const read = await api.get('/api/tasks/task_test00000001');
  assert.deepEqual(read.body.data, res.body.data);
  assert.equal((await api.get('/api/tasks')).body.count, 11);
});

test('POST /api/tasks stores every field given', async (t) => {
  const { api, clock } = await testApp(t);
  clock.advance(90_000);
  const res = await api.post('/api/tasks', {
    projectId: 'proj_003',
    title: 'Crash reporting',
    description: 'Wire up the crash reporter',
    status: 'in_progress',
    priority: 'high',
    assignee: 'grace',
  });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body.data, {
    id: 'task_test00000001',
    projectId: 'proj_003',
    title: 'Crash reporting',
    description: 'Wire up the crash reporter',
    status: 'in_progress',
    priority: 'high',
    assignee: 'grace',
    createdAt: '2026-11-22T10:01:30.000Z',
    updatedAt: '2026-11-22T10:01:30.000Z',
  });
});

test('POST /api/tasks ignores unknown fields (not echoed, not stored) and read-only id/createdAt/updatedAt', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/tasks', {
    projectId: 'proj_001',
    title: 'X',
    id: 'task_mine',
    createdAt: '2000-01-01T00:00:00.000Z',
    updatedAt: '2000-01-01T00:00:00.000Z',
    colour: 'red',
    estimate: 3,
  });
  assert.equal(res.status, 201);
  assert.equal(res.body.data.id, 'task_test00000001');
  assert.equal(res.body.data.createdAt, '2026-11-22T10:00:00.000Z');
  assert.equal(res.body.data.updatedAt, '2026-11-22T10:00:00.000Z');
  assert.deepEqual(Object.keys(res.body.data).sort(), [
    'assignee',
    'createdAt',
    'description',
    'id',
    'priority',
    'projectId',
    'status',
    'title',
    'updatedAt',
  ]);
  assert.equal((await api.get('/api/tasks/task_mine')).status, 404);
  const stored = await api.get('/api/tasks/task_test00000001');
  assert.equal('colour' in stored.body.data, false);
  assert.equal('estimate' in stored.body.data, false);
});

test('POST /api/tasks: title of exactly 200 characters is accepted', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/tasks', { projectId: 'proj_001', title: 't'.repeat(200) });
  assert.equal(res.status, 201);
  assert.equal(res.body.data.title.length, 200);
});

test('POST /api/tasks rejects bad bodies with one detail per bad field and stores nothing', async (t) => {
  const { api } = await testApp(t);
  const cases: [unknown, string[]][] = [
    [{}, ['projectId', 'title']],
    [{ title: 'x' }, ['projectId']],
    [{ projectId: 'proj_001' }, ['title']],
    [{ projectId: 'proj_nope', title: 'x' }, ['projectId']],
    [{ projectId: 'proj_001', title: '' }, ['title']],
    [{ projectId: 'proj_001', title: '   ' }, ['title']],
    [{ projectId: 'proj_001', title: 't'.repeat(201) }, ['title']],
    [{ projectId: 'proj_001', title: 42 }, ['title']],
    [{ projectId: 'proj_001', title: null }, ['title']],
    [{ projectId: 42, title: 'x' }, ['projectId']],
    [{ projectId: 'proj_001', title: 'x', status: 'blocked' }, ['status']],
    [{ projectId: 'proj_001', title: 'x', status: 'TODO' }, ['status']],
    [{ projectId: 'proj_001', title: 'x', priority: 'urgent' }, ['priority']],
    [{ projectId: 'proj_001', title: 'x', assignee: 5 }, ['assignee']],
    [{ projectId: 'proj_001', title: 'x', assignee: '  ' }, ['assignee']],
    [{ projectId: 'proj_001', title: 'x', assignee: 'u'.repeat(101) }, ['assignee']],
    [{ projectId: 'proj_001', title: 'x', description: null }, ['description']],
    [{ projectId: 'proj_001', title: 'x', description: 'd'.repeat(10_001) }, ['description']],
    [{ title: 7, status: 'nope', priority: 'nope' }, ['priority', 'projectId', 'status', 'title']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.post('/api/tasks', body);
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 100));
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(res), fields, JSON.stringify(body).slice(0, 100));
  }
  assert.equal((await api.get('/api/tasks')).body.count, 10);
});

test('POST /api/tasks with a project that does not exist names it in the detail', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/tasks', { projectId: 'proj_nope', title: 'x' });
  assert.equal(res.status, 400);
  const e = errorOf(res);
  assert.deepEqual(
    e.details?.map((d) => d.field),
    ['projectId'],
  );
  assert.match(e.details![0]!.message, /proj_nope/);
});

// ---------------------------------------------------------------- update

test('PATCH /api/tasks/:id changes only the fields sent and refreshes updatedAt', async (t) => {
  const { api, clock } = await testApp(t);
  clock.advance(60_000);
  const res = await api.patch('/api/tasks/task_003', { status: 'in_progress', assignee: 'erin' });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, {
    id: 'task_003',
    projectId: 'proj_001',
    title: 'Accessibility audit',
    description: '',
    status: 'in_progress',
    priority: 'medium',
    assignee: 'erin',
    createdAt: '2026-09-12T09:00:00.000Z',
    updatedAt: '2026-11-22T10:01:00.000Z',
  });
  assert.deepEqual((await api.get('/api/tasks/task_003')).body.data, res.body.data);
});

test('PATCH /api/tasks/:id can change title, description and priority', async (t) => {
  const { api } = await testApp(t);
  const res = await api.patch('/api/tasks/task_001', { title: 'Homepage v2', description: '', priority: 'low' });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, {
    ...TASK_001,
    title: 'Homepage v2',
    description: '',
    priority: 'low',
    updatedAt: '2026-11-22T10:00:00.000Z',
  });
});

test('PATCH /api/tasks/:id ignores projectId, id, createdAt, updatedAt and unknown fields, and keeps their values', async (t) => {
  const { api } = await testApp(t);
  const res = await api.patch('/api/tasks/task_001', {
    projectId: 'proj_002',
    id: 'task_999',
    createdAt: '2000-01-01T00:00:00.000Z',
    updatedAt: '2000-01-01T00:00:00.000Z',
    colour: 'red',
    title: 'Renamed',
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, { ...TASK_001, title: 'Renamed', updatedAt: '2026-11-22T10:00:00.000Z' });
  assert.equal((await api.get('/api/tasks/task_999')).status, 404);
  assert.deepEqual(ids(await api.get('/api/tasks?projectId=proj_001')), ['task_001', 'task_002', 'task_003']);
  // A projectId that names no project is ignored too, not a reference error.
  const unknownProject = await api.patch('/api/tasks/task_001', { projectId: 'proj_nope' });
  assert.equal(unknownProject.status, 200);
  assert.equal(unknownProject.body.data.projectId, 'proj_001');
});

test('PATCH /api/tasks/:id may set assignee to null', async (t) => {
  const { api } = await testApp(t);
  const res = await api.patch('/api/tasks/task_001', { assignee: null });
  assert.equal(res.status, 200);
  assert.equal(res.body.data.assignee, null);
  assert.equal((await api.get('/api/tasks/task_001')).body.data.assignee, null);
  assert.deepEqual(ids(await api.get('/api/tasks?assignee=dana')), []);
});

test('PATCH /api/tasks/:id: updatedAt is strictly later even when the clock has not moved', async (t) => {
  const { api } = await testApp(t);
  const first = await api.patch('/api/tasks/task_002', { status: 'done' });
  const second = await api.patch('/api/tasks/task_002', { status: 'done' });
  const third = await api.patch('/api/tasks/task_002', {});
  assert.equal(first.body.data.updatedAt, '2026-11-22T10:00:00.000Z');
  assert.equal(second.body.data.updatedAt, '2026-11-22T10:00:00.001Z');
  assert.equal(third.body.data.updatedAt, '2026-11-22T10:00:00.002Z');
  assert.equal(third.body.data.createdAt, '2026-09-10T09:00:00.000Z');
  assert.equal(third.body.data.status, 'done');
});

test('PATCH /api/tasks/:id with an invalid field is 400 and changes nothing, not even the valid fields', async (t) => {
  const { api, clock } = await testApp(t);
  clock.advance(1000);
  const cases: [unknown, string[]][] = [
    [{ title: 'New title', status: 'blocked' }, ['status']],
    [{ title: '' }, ['title']],
    [{ title: '  ' }, ['title']],
    [{ title: null }, ['title']],
    [{ title: 42 }, ['title']],
    [{ title: 't'.repeat(201) }, ['title']],
    [{ priority: 'urgent', description: 'ok' }, ['priority']],
    [{ assignee: 5 }, ['assignee']],
    [{ assignee: '' }, ['assignee']],
    [{ description: null }, ['description']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.patch('/api/tasks/task_001', body);
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(res), fields, JSON.stringify(body).slice(0, 80));
  }
  assert.deepEqual((await api.get('/api/tasks/task_001')).body.data, TASK_001);
});

test('PATCH /api/tasks/:id with an unknown id is 404 NOT_FOUND naming it', async (t) => {
  const { api } = await testApp(t);
  const res = await api.patch('/api/tasks/task_nope', { title: 'x' });
  assert.equal(res.status, 404);
  assert.equal(errorOf(res).code, 'NOT_FOUND');
  assert.match(errorOf(res).message, /task_nope/);
  assert.equal((await api.get('/api/tasks')).body.count, 10);
});

// ---------------------------------------------------------------- delete

test('DELETE /api/tasks/:id answers the delete shape; the task is gone and a second delete is 404', async (t) => {
  const { api } = await testApp(t);
  const res = await api.delete('/api/tasks/task_010');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { data: { id: 'task_010', deleted: true } });
  const gone = await api.get('/api/tasks/task_010');
  assert.equal(gone.status, 404);
  assert.equal(errorOf(gone).code, 'NOT_FOUND');
  const again = await api.delete('/api/tasks/task_010');
  assert.equal(again.status, 404);
  assert.equal(errorOf(again).code, 'NOT_FOUND');
  assert.match(errorOf(again).message, /task_010/);
  assert.equal((await api.get('/api/tasks')).body.count, 9);
  assert.equal((await api.patch('/api/tasks/task_010', { title: 'x' })).status, 404);
});

test('DELETE /api/tasks/:id cascades to its comments and time entries; other tasks keep theirs', async (t) => {
  const { api, store } = await testApp(t);
  // task_002 has comment cmt_002 and time entries te_002, te_003.
  const res = await api.delete('/api/tasks/task_002');
  assert.equal(res.status, 200);
  assert.equal(await store.comments.get('cmt_002'), undefined);
  assert.equal(await store.timeEntries.get('te_002'), undefined);
  assert.equal(await store.timeEntries.get('te_003'), undefined);
  assert.deepEqual(await store.comments.list({ targetType: 'task', targetId: 'task_002' }), []);
  assert.deepEqual(await store.timeEntries.list({ taskId: 'task_002' }), []);
  // Through the API as well.
  assert.equal((await api.get('/api/comments/cmt_002')).status, 404);
  assert.deepEqual((await api.get('/api/comments?targetId=task_002')).body, { data: [], count: 0 });
  assert.deepEqual((await api.get('/api/time-entries?taskId=task_002')).body, { data: [], count: 0 });
  // Everyone else's records remain.
  const comments = await api.get('/api/comments');
  assert.deepEqual(ids(comments), ['cmt_001', 'cmt_003', 'cmt_004', 'cmt_005', 'cmt_006']);
  assert.deepEqual(
    (await store.timeEntries.list()).map((e) => e.id),
    ['te_001', 'te_004', 'te_005', 'te_006', 'te_007'],
  );
  // The project stays.
  assert.equal((await api.get('/api/projects/proj_001')).status, 200);
});

test('DELETE /api/tasks/:id of a task created through the API also removes comments posted on it', async (t) => {
  const { api, store } = await testApp(t);
  await api.post('/api/tasks', { projectId: 'proj_005', title: 'Temp' });
  const cmt = await api.post('/api/comments', {
    targetType: 'task',
    targetId: 'task_test00000001',
    author: 'zoe',
    body: 'hi',
  });
  assert.equal(cmt.status, 201);
  assert.equal((await api.delete('/api/tasks/task_test00000001')).status, 200);
  assert.equal(await store.comments.get(cmt.body.data.id), undefined);
  assert.equal((await api.get('/api/comments')).body.count, 6);
});
