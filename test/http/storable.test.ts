import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, fieldsOf, testApp } from '../helpers/app.ts';

// What PostgreSQL cannot keep as it was sent (the NUL character, an unpaired surrogate, a number out of range,
// the year 0000) every store refuses alike (scripts/test.ts runs this file on each), as a VALIDATION_ERROR naming
// the field, and stores nothing.

const entry = { action: 'task.updated', actor: 'bob', resourceType: 'task', resourceId: 'task_005' };

test('NUL in a body string, a metadata value or a metadata key is a 400 naming it; nothing is stored', async (t) => {
  const { api } = await testApp(t);
  const tasks = (await api.get('/api/tasks')).body.count;
  assert.equal(tasks, 10);
  const task = await api.post('/api/tasks', { projectId: 'proj_002', title: 'a\u0000b', description: 'ok' });
  assert.equal(task.status, 400);
  assert.equal(errorOf(task).code, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(task), ['title']);
  assert.match(errorOf(task).details![0]!.message, /NUL/);
  assert.equal((await api.get('/api/tasks')).body.count, tasks);

  const entries = (await api.get('/api/activity-log')).body.total;
  assert.equal(entries, 10);
  const value = await api.post('/api/activity-log', { ...entry, metadata: { note: { deep: ['x\u0000'] } } });
  assert.equal(value.status, 400);
  assert.deepEqual(fieldsOf(value), ['metadata.note.deep[0]']);
  const key = await api.post('/api/activity-log', { ...entry, metadata: { 'k\u0000': 1 } });
  assert.equal(key.status, 400);
  assert.equal(errorOf(key).code, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(key), ['metadata.k\u0000']);
  assert.equal((await api.get('/api/activity-log')).body.total, entries);
});

test('a NUL character in a change or a list filter is a 400, and the record keeps its value', async (t) => {
  const { api } = await testApp(t);
  const before = (await api.get('/api/tasks/task_001')).body.data;
  const patch = await api.patch('/api/tasks/task_001', { title: '\u0000' });
  assert.equal(patch.status, 400);
  assert.deepEqual(fieldsOf(patch), ['title']);
  assert.deepEqual((await api.get('/api/tasks/task_001')).body.data, before);

  const list = await api.get('/api/tasks?assignee=a%00b');
  assert.equal(list.status, 400);
  assert.equal(errorOf(list).code, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(list), ['assignee']);
  const log = await api.get('/api/activity-log?actor=%00');
  assert.equal(log.status, 400);
  assert.deepEqual(fieldsOf(log), ['actor']);
});

test('an unpaired surrogate in a body string or key is a 400 naming it; a paired one is kept', async (t) => {
  const { api } = await testApp(t);
  // Sent as the JSON escape: JSON.stringify writes a lone surrogate as \\ud800.
  for (const [path, body, field] of [
    ['/api/tasks', { projectId: 'proj_002', title: 'a\ud800' }, 'title'],
    ['/api/teams', { name: 't', members: [{ username: '\udc00', role: 'x' }] }, 'members[0].username'],
    ['/api/activity-log', { ...entry, metadata: { a: ['\ud800x'] } }, 'metadata.a[0]'],
    ['/api/activity-log', { ...entry, metadata: { 'k\udbff': 1 } }, 'metadata.k\udbff'],
  ] as const) {
    const answer = await api.post(path, body);
    assert.equal(answer.status, 400, `${path} ${JSON.stringify(body)}`);
    assert.equal(errorOf(answer).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(answer), [field]);
    assert.match(errorOf(answer).details![0]!.message, /unpaired surrogate/);
  }
  assert.equal((await api.get('/api/tasks')).body.count, 10);
  assert.equal((await api.get('/api/teams')).body.count, 3);
  assert.equal((await api.get('/api/activity-log')).body.total, 10);

  const before = (await api.get('/api/tasks/task_008')).body.data;
  const patch = await api.patch('/api/tasks/task_008', { assignee: '\ud800' });
  assert.equal(patch.status, 400);
  assert.deepEqual(fieldsOf(patch), ['assignee']);
  assert.deepEqual((await api.get('/api/tasks/task_008')).body.data, before);

  const paired = await api.post('/api/tasks', { projectId: 'proj_002', title: 'launch \ud83d\ude80' });
  assert.equal(paired.status, 201);
  assert.equal((await api.get(`/api/tasks/${paired.body.data.id}`)).body.data.title, 'launch 🚀');
});

test('a number out of range (1e400) is a 400 in a body and in a query, not Infinity or null', async (t) => {
  const { api } = await testApp(t);
  const raw =
    '{"action":"task.updated","actor":"bob","resourceType":"task","resourceId":"task_005","metadata":{"n":1e400}}';
  const json = { 'content-type': 'application/json' };
  const post = await api.request({ method: 'POST', url: '/api/activity-log', payload: raw, headers: json });
  assert.equal(post.status, 400);
  assert.deepEqual(fieldsOf(post), ['metadata.n']);
  assert.match(errorOf(post).details![0]!.message, /finite number/);
  assert.equal((await api.get('/api/activity-log')).body.total, 10);

  const payload = '{"taskId":"task_001","username":"bob","hours":-1e999}';
  const hours = await api.request({ method: 'POST', url: '/api/time-entries', payload, headers: json });
  assert.equal(hours.status, 400);
  assert.deepEqual(fieldsOf(hours), ['hours']);

  // In a query, a number is written in digits: one of 400 digits is out of range, one of 300 is not.
  for (const query of [`hours[lt]=1${'0'.repeat(400)}`, `hours[gte]=-1${'0'.repeat(309)}`]) {
    const list = await api.get(`/api/time-entries?${query}`);
    assert.equal(list.status, 400, query);
    assert.deepEqual(fieldsOf(list), [query.split('=')[0]]);
    assert.match(errorOf(list).details![0]!.message, /finite number/);
  }
  assert.equal((await api.get(`/api/time-entries?hours[lt]=1${'0'.repeat(300)}`)).status, 200);
});

test('dates and instants outside the years 0001 to 9999 are a 400; 0001-01-01 and 9999-12-31 are kept', async (t) => {
  const { api } = await testApp(t);
  for (const [path, body, field] of [
    ['/api/milestones', { projectId: 'proj_001', title: 'm', dueDate: '0000-01-01' }, 'dueDate'],
    ['/api/time-entries', { taskId: 'task_001', username: 'bob', hours: 1, date: '0000-02-29' }, 'date'],
  ] as const) {
    const answer = await api.post(path, body);
    assert.equal(answer.status, 400, JSON.stringify(body));
    assert.deepEqual(fieldsOf(answer), [field]);
  }
  const patch = await api.patch('/api/milestones/ms_002', { dueDate: '0000-06-01' });
  assert.equal(patch.status, 400);
  assert.deepEqual(fieldsOf(patch), ['dueDate']);
  for (const query of [
    'time-entries?date=0000-02-29',
    'time-entries?date[lt]=0000-12-31',
    'milestones?dueDate[gte]=0000-01-01',
    'tasks?createdAt[gte]=0001-01-01T00:00:00%2B05:00',
    'tasks?updatedAt[lt]=9999-12-31T23:00:00-05:00',
  ]) {
    const list = await api.get(`/api/${query}`);
    assert.equal(list.status, 400, query);
    assert.equal(errorOf(list).code, 'VALIDATION_ERROR');
  }

  const early = await api.post('/api/milestones', { projectId: 'proj_001', title: 'm', dueDate: '0001-01-01' });
  assert.equal(early.status, 201);
  const late = await api.patch(`/api/milestones/${early.body.data.id}`, { dueDate: '9999-12-31' });
  assert.equal(late.status, 200);
  assert.equal((await api.get(`/api/milestones/${early.body.data.id}`)).body.data.dueDate, '9999-12-31');
  const tiny = await api.post('/api/time-entries', {
    taskId: 'task_001',
    username: 'bob',
    hours: 1,
    date: '0050-06-01',
  });
  assert.equal(tiny.status, 201);
  const found = await api.get('/api/time-entries?date[lte]=0099-12-31');
  assert.deepEqual(
    found.body.data.map((e: { id: string }) => e.id),
    [tiny.body.data.id],
  );
  assert.equal((await api.get('/api/time-entries?date=0050-06-01')).body.count, 1);
});
