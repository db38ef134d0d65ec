import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, fieldsOf, testApp } from '../helpers/app.ts';

const ids = (res: { body: any }) => res.body.data.map((r: any) => r.id);

const CMT_001 = {
  id: 'cmt_001',
  targetType: 'task',
  targetId: 'task_001',
  author: 'erin',
  body: 'Looks great. Can we try a darker hero image?',
  createdAt: '2026-09-28T14:00:00.000Z',
  updatedAt: '2026-09-28T14:00:00.000Z',
};

// ---------------------------------------------------------------- list

test('GET /api/comments lists the six seeded comments with count', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/comments');
  assert.equal(res.status, 200);
  assert.equal(res.body.count, 6);
  assert.deepEqual(ids(res), ['cmt_001', 'cmt_002', 'cmt_003', 'cmt_004', 'cmt_005', 'cmt_006']);
  assert.deepEqual(res.body.data[0], CMT_001);
});

test('GET /api/comments filters by targetType, targetId and author, combined; count follows', async (t) => {
  const { api } = await testApp(t);
  const cases: [string, string[]][] = [
    ['targetType=task', ['cmt_001', 'cmt_002', 'cmt_003', 'cmt_005']],
    ['targetType=project', ['cmt_004', 'cmt_006']],
    ['targetId=task_001', ['cmt_001']],
    ['targetId=proj_002', ['cmt_004']],
    ['author=dana', ['cmt_002', 'cmt_006']],
    ['targetType=project&author=dana', ['cmt_006']],
    ['targetType=task&author=dana', ['cmt_002']],
    ['targetType=task&targetId=proj_001', []],
    ['targetType=project&targetId=proj_001&author=dana', ['cmt_006']],
    ['author=nobody', []],
  ];
  for (const [query, expected] of cases) {
    const res = await api.get(`/api/comments?${query}`);
    assert.equal(res.status, 200, query);
    assert.deepEqual(ids(res), expected, query);
    assert.equal(res.body.count, expected.length, query);
  }
});

test('GET /api/comments?targetType= outside task/project is 400 VALIDATION_ERROR', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/comments?targetType=milestone');
  assert.equal(res.status, 400);
  assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(res), ['targetType']);
});

// ---------------------------------------------------------------- get

test('GET /api/comments/:id returns the comment; an unknown id is 404 NOT_FOUND naming it', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/comments/cmt_001');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { data: CMT_001 });
  const missing = await api.get('/api/comments/cmt_nope');
  assert.equal(missing.status, 404);
  assert.equal(errorOf(missing).code, 'NOT_FOUND');
  assert.match(errorOf(missing).message, /cmt_nope/);
});

// ---------------------------------------------------------------- create

test('POST /api/comments on a task creates with a generated id and timestamps; body defaults to ""', async (t) => {
  const { api, clock } = await testApp(t);
  clock.advance(2_000);
  const res = await api.post('/api/comments', { targetType: 'task', targetId: 'task_003', author: 'alice' });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body, {
    data: {
      id: 'cmt_test00000001',
      targetType: 'task',
      targetId: 'task_003',
      author: 'alice',
      body: '',
      createdAt: '2026-11-22T10:00:02.000Z',
      updatedAt: '2026-11-22T10:00:02.000Z',
    },
  });
  assert.deepEqual((await api.get('/api/comments/cmt_test00000001')).body.data, res.body.data);
  assert.deepEqual(ids(await api.get('/api/comments?targetId=task_003')), ['cmt_test00000001']);
  assert.equal((await api.get('/api/comments')).body.count, 7);
});

test('POST /api/comments on a project stores the body; unknown and read-only fields are ignored', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/comments', {
    targetType: 'project',
    targetId: 'proj_005',
    author: 'frank',
    body: 'Confluence or a static site?',
    id: 'cmt_mine',
    createdAt: '2000-01-01T00:00:00.000Z',
    mood: 'curious',
  });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body.data, {
    id: 'cmt_test00000001',
    targetType: 'project',
    targetId: 'proj_005',
    author: 'frank',
    body: 'Confluence or a static site?',
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
  });
});

test('POST /api/comments rejects bad bodies with field details and stores nothing', async (t) => {
  const { api } = await testApp(t);
  const ok = { targetType: 'task', targetId: 'task_001', author: 'bob' };
  const cases: [unknown, string[]][] = [
    [{}, ['author', 'targetId', 'targetType']],
    [{ targetId: 'task_001', author: 'bob' }, ['targetType']],
    [{ targetType: 'task', author: 'bob' }, ['targetId']],
    [{ targetType: 'task', targetId: 'task_001' }, ['author']],
    [{ ...ok, targetType: 'milestone' }, ['targetType']],
    [{ ...ok, targetType: 'Task' }, ['targetType']],
    [{ ...ok, targetId: '' }, ['targetId']],
    [{ ...ok, targetId: 5 }, ['targetId']],
    [{ ...ok, author: '   ' }, ['author']],
    [{ ...ok, author: 42 }, ['author']],
    [{ ...ok, author: 'a'.repeat(101) }, ['author']],
    [{ ...ok, body: 7 }, ['body']],
    [{ ...ok, body: null }, ['body']],
    [{ ...ok, body: 'b'.repeat(10_001) }, ['body']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.post('/api/comments', body);
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(res), fields, JSON.stringify(body).slice(0, 80));
  }
  assert.equal((await api.get('/api/comments')).body.count, 6);
});

test('POST /api/comments: targetId must name an existing record of targetType', async (t) => {
  const { api } = await testApp(t);
  const cases: [string, string][] = [
    ['task', 'proj_001'], // a project is not a task
    ['project', 'task_001'], // a task is not a project
    ['task', 'task_nope'],
    ['project', 'proj_nope'],
  ];
  for (const [targetType, targetId] of cases) {
    const res = await api.post('/api/comments', { targetType, targetId, author: 'bob', body: 'x' });
    assert.equal(res.status, 400, `${targetType} ${targetId}`);
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(res), ['targetId'], `${targetType} ${targetId}`);
    assert.match(errorOf(res).details![0]!.message, new RegExp(targetId));
  }
  assert.equal((await api.get('/api/comments')).body.count, 6);
});

// ---------------------------------------------------------------- update

test('PATCH /api/comments/:id changes body and refreshes updatedAt', async (t) => {
  const { api, clock } = await testApp(t);
  clock.advance(60_000);
  const res = await api.patch('/api/comments/cmt_001', { body: 'Darker hero it is.' });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, { ...CMT_001, body: 'Darker hero it is.', updatedAt: '2026-11-22T10:01:00.000Z' });
  assert.deepEqual((await api.get('/api/comments/cmt_001')).body.data, res.body.data);
  const emptied = await api.patch('/api/comments/cmt_001', { body: '' });
  assert.equal(emptied.body.data.body, '');
});

test('PATCH /api/comments/:id ignores targetType, targetId, author, id and createdAt and keeps their values', async (t) => {
  const { api } = await testApp(t);
  const res = await api.patch('/api/comments/cmt_001', {
    body: 'edited',
    targetType: 'project',
    targetId: 'proj_002',
    author: 'mallory',
    id: 'cmt_x',
    createdAt: '2000-01-01T00:00:00.000Z',
    updatedAt: '2000-01-01T00:00:00.000Z',
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, { ...CMT_001, body: 'edited', updatedAt: '2026-11-22T10:00:00.000Z' });
  assert.equal((await api.get('/api/comments/cmt_x')).status, 404);
  assert.deepEqual(ids(await api.get('/api/comments?author=mallory')), []);
  assert.deepEqual(ids(await api.get('/api/comments?targetId=task_001')), ['cmt_001']);
  // Only immutable fields sent: nothing changes but updatedAt.
  const onlyImmutable = await api.patch('/api/comments/cmt_002', { targetType: 'milestone', author: '' });
  assert.equal(onlyImmutable.status, 200);
  assert.equal(onlyImmutable.body.data.targetType, 'task');
  assert.equal(onlyImmutable.body.data.author, 'dana');
});

test('PATCH /api/comments/:id: updatedAt strictly later when the clock has not moved', async (t) => {
  const { api } = await testApp(t);
  const first = await api.patch('/api/comments/cmt_003', { body: 'a' });
  const second = await api.patch('/api/comments/cmt_003', { body: 'a' });
  assert.equal(first.body.data.updatedAt, '2026-11-22T10:00:00.000Z');
  assert.equal(second.body.data.updatedAt, '2026-11-22T10:00:00.001Z');
  assert.equal(second.body.data.createdAt, '2026-10-13T14:00:00.000Z');
});

test('PATCH /api/comments/:id with a bad body is 400 and changes nothing; unknown id is 404', async (t) => {
  const { api } = await testApp(t);
  for (const body of [null, 5, 'b'.repeat(10_001)]) {
    const res = await api.patch('/api/comments/cmt_001', { body });
    assert.equal(res.status, 400);
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(res), ['body']);
  }
  assert.deepEqual((await api.get('/api/comments/cmt_001')).body.data, CMT_001);
  const missing = await api.patch('/api/comments/cmt_nope', { body: 'x' });
  assert.equal(missing.status, 404);
  assert.equal(errorOf(missing).code, 'NOT_FOUND');
  assert.match(errorOf(missing).message, /cmt_nope/);
});

// ---------------------------------------------------------------- delete

test('DELETE /api/comments/:id answers the delete shape; afterwards get and delete are 404', async (t) => {
  const { api } = await testApp(t);
  const res = await api.delete('/api/comments/cmt_004');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { data: { id: 'cmt_004', deleted: true } });
  assert.equal((await api.get('/api/comments/cmt_004')).status, 404);
  const again = await api.delete('/api/comments/cmt_004');
  assert.equal(again.status, 404);
  assert.equal(errorOf(again).code, 'NOT_FOUND');
  assert.deepEqual(ids(await api.get('/api/comments')), ['cmt_001', 'cmt_002', 'cmt_003', 'cmt_005', 'cmt_006']);
  // The target stays.
  assert.equal((await api.get('/api/projects/proj_002')).status, 200);
  assert.equal((await api.delete('/api/comments/cmt_nope')).status, 404);
});

test('PUT on a comment is 405 with Allow', async (t) => {
  const { api } = await testApp(t);
  const res = await api.put('/api/comments/cmt_001', { body: 'x' });
  assert.equal(res.status, 405);
  assert.equal(errorOf(res).code, 'METHOD_NOT_ALLOWED');
  assert.equal(res.headers.allow, 'DELETE, GET, HEAD, PATCH');
});
