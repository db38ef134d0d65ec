import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, fieldsOf, testApp } from '../helpers/app.ts';

const NOW = '2026-11-22T10:00:00.000Z';

test('GET /api/milestones lists the five seeded milestones with count', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/milestones');
  assert.equal(res.status, 200);
  assert.equal(res.body.count, 5);
  assert.deepEqual(
    res.body.data.map((m: any) => m.id),
    ['ms_001', 'ms_002', 'ms_003', 'ms_004', 'ms_005'],
  );
  assert.deepEqual(Object.keys(res.body.data[0]).sort(), [
    'createdAt',
    'description',
    'dueDate',
    'id',
    'projectId',
    'reachedAt',
    'status',
    'title',
    'updatedAt',
  ]);
  assert.deepEqual(res.body.data[0], {
    id: 'ms_001',
    projectId: 'proj_001',
    title: 'Design sign-off',
    description: 'All page designs approved',
    status: 'reached',
    dueDate: '2026-09-30',
    reachedAt: '2026-09-30T16:00:00.000Z',
    createdAt: '2026-09-05T09:00:00.000Z',
    updatedAt: '2026-09-30T16:00:00.000Z',
  });
});

test('GET /api/milestones filters by projectId and status (combined), count follows; unknown status is a 400', async (t) => {
  const { api } = await testApp(t);
  const byProject = await api.get('/api/milestones?projectId=proj_001');
  assert.deepEqual(
    byProject.body.data.map((m: any) => m.id),
    ['ms_001', 'ms_002'],
  );
  assert.equal(byProject.body.count, 2);

  const reached = await api.get('/api/milestones?status=reached');
  assert.deepEqual(
    reached.body.data.map((m: any) => m.id),
    ['ms_001', 'ms_005'],
  );
  assert.equal(reached.body.count, 2);

  const inProgress = await api.get('/api/milestones?status=in_progress');
  assert.deepEqual(
    inProgress.body.data.map((m: any) => m.id),
    ['ms_002', 'ms_003'],
  );

  const both = await api.get('/api/milestones?projectId=proj_001&status=in_progress');
  assert.deepEqual(
    both.body.data.map((m: any) => m.id),
    ['ms_002'],
  );
  assert.equal(both.body.count, 1);

  const none = await api.get('/api/milestones?projectId=proj_nope');
  assert.equal(none.status, 200);
  assert.deepEqual(none.body, { data: [], count: 0 });

  const bad = await api.get('/api/milestones?status=done');
  assert.equal(bad.status, 400);
  assert.equal(errorOf(bad).code, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(bad), ['status']);
});

test('GET /api/milestones/:id returns one milestone; an unknown id is 404 NOT_FOUND naming it', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/milestones/ms_005');
  assert.equal(res.status, 200);
  assert.equal(res.body.data.title, 'Warehouse go-live');
  assert.equal(res.body.data.projectId, 'proj_004');
  assert.equal(res.body.data.dueDate, null);
  assert.equal(res.body.data.reachedAt, '2026-10-20T11:00:00.000Z');
  const missing = await api.get('/api/milestones/ms_nope');
  assert.equal(missing.status, 404);
  assert.equal(errorOf(missing).code, 'NOT_FOUND');
  assert.match(errorOf(missing).message, /ms_nope/);
});

test('POST /api/milestones creates with defaults, generated id and timestamps', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/milestones', { projectId: 'proj_003', title: 'Beta testers onboarded' });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body.data, {
    id: 'ms_test00000001',
    projectId: 'proj_003',
    title: 'Beta testers onboarded',
    description: '',
    status: 'pending',
    dueDate: null,
    reachedAt: null,
    createdAt: NOW,
    updatedAt: NOW,
  });
  const read = await api.get('/api/milestones/ms_test00000001');
  assert.deepEqual(read.body.data, res.body.data);
  assert.equal((await api.get('/api/milestones')).body.count, 6);
  assert.deepEqual(
    (await api.get('/api/milestones?projectId=proj_003')).body.data.map((m: any) => m.id),
    ['ms_004', 'ms_test00000001'],
  );
});

test('POST /api/milestones takes every field sent, and ignores read-only and unknown ones', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/milestones', {
    projectId: 'proj_002',
    title: 'GA',
    description: 'General availability',
    status: 'in_progress',
    dueDate: '2027-02-28',
    id: 'ms_mine',
    reachedAt: '2000-01-01T00:00:00.000Z',
    createdAt: '2000-01-01T00:00:00.000Z',
    updatedAt: '2000-01-01T00:00:00.000Z',
    colour: 'red',
  });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body.data, {
    id: 'ms_test00000001',
    projectId: 'proj_002',
    title: 'GA',
    description: 'General availability',
    status: 'in_progress',
    dueDate: '2027-02-28',
    reachedAt: null,
    createdAt: NOW,
    updatedAt: NOW,
  });
  const explicitNull = await api.post('/api/milestones', { projectId: 'proj_002', title: 'No date', dueDate: null });
  assert.equal(explicitNull.status, 201);
  assert.equal(explicitNull.body.data.dueDate, null);
});

test('POST /api/milestones with status reached sets reachedAt to now', async (t) => {
  const { api, clock } = await testApp(t);
  clock.set('2026-12-01T08:30:00.000Z');
  const res = await api.post('/api/milestones', { projectId: 'proj_001', title: 'Done already', status: 'reached' });
  assert.equal(res.status, 201);
  assert.equal(res.body.data.status, 'reached');
  assert.equal(res.body.data.reachedAt, '2026-12-01T08:30:00.000Z');
  assert.equal(res.body.data.createdAt, '2026-12-01T08:30:00.000Z');
});

test('POST /api/milestones rejects bad bodies with field details and stores nothing', async (t) => {
  const { api } = await testApp(t);
  const ok = { projectId: 'proj_001', title: 'T' };
  const cases: [unknown, string[]][] = [
    [{}, ['projectId', 'title']],
    [{ title: 'T' }, ['projectId']],
    [{ projectId: 'proj_001' }, ['title']],
    [{ projectId: 'proj_999', title: 'T' }, ['projectId']],
    [{ projectId: 7, title: 'T' }, ['projectId']],
    [{ ...ok, title: '   ' }, ['title']],
    [{ ...ok, title: 'x'.repeat(201) }, ['title']],
    [{ ...ok, status: 'done' }, ['status']],
    [{ ...ok, description: null }, ['description']],
    [{ ...ok, dueDate: '2026-02-30' }, ['dueDate']],
    [{ ...ok, dueDate: '2026/01/01' }, ['dueDate']],
    [{ ...ok, dueDate: '2026-01-01T00:00:00Z' }, ['dueDate']],
    [{ ...ok, dueDate: '2026-1-1' }, ['dueDate']],
    [{ ...ok, dueDate: 20260101 }, ['dueDate']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.post('/api/milestones', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual([...new Set(fieldsOf(res))], fields, JSON.stringify(body));
  }
  assert.equal((await api.get('/api/milestones')).body.count, 5);
});

test('POST /api/milestones accepts a leap day and a plain date as dueDate', async (t) => {
  const { api } = await testApp(t);
  const leap = await api.post('/api/milestones', { projectId: 'proj_001', title: 'Leap', dueDate: '2028-02-29' });
  assert.equal(leap.status, 201);
  assert.equal(leap.body.data.dueDate, '2028-02-29');
  const notLeap = await api.post('/api/milestones', {
    projectId: 'proj_001',
    title: 'Not leap',
    dueDate: '2027-02-29',
  });
  assert.equal(notLeap.status, 400);
  assert.deepEqual(fieldsOf(notLeap), ['dueDate']);
});

test('PATCH /api/milestones/:id follows the status table: reachedAt set once, kept on repeat and on leaving reached', async (t) => {
  const { api, clock } = await testApp(t);
  // ms_004 is pending with no reachedAt.
  clock.set('2026-12-01T12:00:00.000Z');
  const reached = await api.patch('/api/milestones/ms_004', { status: 'reached' });
  assert.equal(reached.status, 200);
  assert.deepEqual(reached.body.data, {
    id: 'ms_004',
    projectId: 'proj_003',
    title: 'App store submission',
    description: '',
    status: 'reached',
    dueDate: '2027-01-31',
    reachedAt: '2026-12-01T12:00:00.000Z',
    createdAt: '2026-09-20T09:00:00.000Z',
    updatedAt: '2026-12-01T12:00:00.000Z',
  });

  // Reached again later: the first reachedAt stays.
  clock.advance(3_600_000);
  const again = await api.patch('/api/milestones/ms_004', { status: 'reached' });
  assert.equal(again.status, 200);
  assert.equal(again.body.data.status, 'reached');
  assert.equal(again.body.data.reachedAt, '2026-12-01T12:00:00.000Z');
  assert.equal(again.body.data.updatedAt, '2026-12-01T13:00:00.000Z');

  // Leaving reached keeps reachedAt.
  clock.advance(60_000);
  const back = await api.patch('/api/milestones/ms_004', { status: 'in_progress' });
  assert.equal(back.status, 200);
  assert.equal(back.body.data.status, 'in_progress');
  assert.equal(back.body.data.reachedAt, '2026-12-01T12:00:00.000Z');

  // Reached once more: still the first time.
  clock.advance(60_000);
  const third = await api.patch('/api/milestones/ms_004', { status: 'reached' });
  assert.equal(third.body.data.reachedAt, '2026-12-01T12:00:00.000Z');
  assert.deepEqual((await api.get('/api/milestones/ms_004')).body.data, third.body.data);
});

test('PATCH to reached on a seeded milestone that is already reached keeps its reachedAt', async (t) => {
  const { api, clock } = await testApp(t);
  clock.advance(60_000);
  const res = await api.patch('/api/milestones/ms_001', { status: 'reached' });
  assert.equal(res.body.data.reachedAt, '2026-09-30T16:00:00.000Z');
  const fromInProgress = await api.patch('/api/milestones/ms_002', { status: 'reached' });
  assert.equal(fromInProgress.body.data.reachedAt, '2026-11-22T10:01:00.000Z');
});

test('PATCH /api/milestones/:id changes only what is sent; reachedAt, projectId, id, createdAt sent are ignored', async (t) => {
  const { api, clock } = await testApp(t);
  clock.advance(60_000);
  const res = await api.patch('/api/milestones/ms_002', {
    title: 'Public launch (v2)',
    dueDate: null,
    projectId: 'proj_002',
    reachedAt: '2000-01-01T00:00:00.000Z',
    id: 'ms_other',
    createdAt: '2000-01-01T00:00:00.000Z',
    updatedAt: '2000-01-01T00:00:00.000Z',
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, {
    id: 'ms_002',
    projectId: 'proj_001',
    title: 'Public launch (v2)',
    description: 'New site live for everyone',
    status: 'in_progress',
    dueDate: null,
    reachedAt: null,
    createdAt: '2026-09-05T09:00:00.000Z',
    updatedAt: '2026-11-22T10:01:00.000Z',
  });
  assert.deepEqual((await api.get('/api/milestones/ms_002')).body.data, res.body.data);
  assert.equal((await api.get('/api/milestones/ms_other')).status, 404);

  // A reachedAt sent alongside status reached is ignored too: the service sets it.
  const reached = await api.patch('/api/milestones/ms_003', {
    status: 'reached',
    reachedAt: '2000-01-01T00:00:00.000Z',
  });
  assert.equal(reached.body.data.reachedAt, '2026-11-22T10:01:00.000Z');
});

test('PATCH keeps updatedAt strictly increasing even when the clock has not moved', async (t) => {
  const { api } = await testApp(t);
  const created = await api.post('/api/milestones', { projectId: 'proj_001', title: 'T' });
  const first = await api.patch(`/api/milestones/${created.body.data.id}`, { description: 'a' });
  const second = await api.patch(`/api/milestones/${created.body.data.id}`, { description: 'b' });
  assert.ok(first.body.data.updatedAt > created.body.data.updatedAt);
  assert.ok(second.body.data.updatedAt > first.body.data.updatedAt);
  assert.equal(second.body.data.createdAt, NOW);
});

test('PATCH /api/milestones/:id: 404 for an unknown id, 400 for bad values and the record is unchanged', async (t) => {
  const { api } = await testApp(t);
  const missing = await api.patch('/api/milestones/ms_nope', { title: 'x' });
  assert.equal(missing.status, 404);
  assert.equal(errorOf(missing).code, 'NOT_FOUND');
  const before = (await api.get('/api/milestones/ms_003')).body.data;
  const cases: [unknown, string[]][] = [
    [{ status: 'done' }, ['status']],
    [{ title: '' }, ['title']],
    [{ dueDate: '2026-02-30' }, ['dueDate']],
    [{ dueDate: '2026/01/01' }, ['dueDate']],
    [{ dueDate: '2026-01-01T00:00:00Z' }, ['dueDate']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.patch('/api/milestones/ms_003', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual([...new Set(fieldsOf(res))], fields, JSON.stringify(body));
  }
  assert.deepEqual((await api.get('/api/milestones/ms_003')).body.data, before);
});

test('DELETE /api/milestones/:id answers the delete shape; then 404 everywhere', async (t) => {
  const { api } = await testApp(t);
  const res = await api.delete('/api/milestones/ms_003');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { data: { id: 'ms_003', deleted: true } });
  assert.equal((await api.get('/api/milestones/ms_003')).status, 404);
  const again = await api.delete('/api/milestones/ms_003');
  assert.equal(again.status, 404);
  assert.equal(errorOf(again).code, 'NOT_FOUND');
  assert.equal((await api.patch('/api/milestones/ms_003', { title: 'x' })).status, 404);
  assert.deepEqual(
    (await api.get('/api/milestones')).body.data.map((m: any) => m.id),
    ['ms_001', 'ms_002', 'ms_004', 'ms_005'],
  );
});

test('PUT on a milestone is 405 with Allow', async (t) => {
  const { api } = await testApp(t);
  const res = await api.put('/api/milestones/ms_001', { projectId: 'proj_001', title: 'x' });
  assert.equal(res.status, 405);
  assert.equal(errorOf(res).code, 'METHOD_NOT_ALLOWED');
  assert.equal(res.headers.allow, 'DELETE, GET, HEAD, PATCH');
});
