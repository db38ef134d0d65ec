import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, fieldsOf, testApp } from '../helpers/app.ts';

test('GET /api/projects lists the five seeded projects with count', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/projects');
  assert.equal(res.status, 200);
  assert.equal(res.body.count, 5);
  assert.deepEqual(
    res.body.data.map((p: any) => p.id),
    ['proj_001', 'proj_002', 'proj_003', 'proj_004', 'proj_005'],
  );
  assert.deepEqual(Object.keys(res.body.data[0]).sort(), [
    'createdAt',
    'description',
    'id',
    'name',
    'status',
    'teamId',
    'updatedAt',
  ]);
});

test('GET /api/projects?status= filters, count follows the filter, and an unknown status is a 400', async (t) => {
  const { api } = await testApp(t);
  const active = await api.get('/api/projects?status=active');
  assert.deepEqual(
    active.body.data.map((p: any) => p.id),
    ['proj_001', 'proj_002'],
  );
  assert.equal(active.body.count, 2);
  const bad = await api.get('/api/projects?status=archived');
  assert.equal(bad.status, 400);
  assert.equal(errorOf(bad).code, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(bad), ['status']);
});

test('GET /api/projects/:id returns one project; an unknown id is 404 NOT_FOUND naming it', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/projects/proj_002');
  assert.equal(res.status, 200);
  assert.equal(res.body.data.name, 'API v2 Migration');
  assert.equal(res.body.data.teamId, 'team_001');
  const missing = await api.get('/api/projects/proj_nope');
  assert.equal(missing.status, 404);
  assert.equal(errorOf(missing).code, 'NOT_FOUND');
  assert.match(errorOf(missing).message, /proj_nope/);
});

test('POST /api/projects creates with defaults, generated id and timestamps', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/projects', { name: 'Billing' });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body.data, {
    id: 'proj_test00000001',
    name: 'Billing',
    description: '',
    status: 'planned',
    teamId: null,
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
  });
  const read = await api.get('/api/projects/proj_test00000001');
  assert.deepEqual(read.body.data, res.body.data);
  assert.equal((await api.get('/api/projects')).body.count, 6);
});

test('POST /api/projects ignores read-only and unknown fields', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/projects', {
    name: 'X',
    id: 'proj_mine',
    createdAt: '2000-01-01T00:00:00.000Z',
    colour: 'red',
    status: 'active',
    teamId: 'team_003',
  });
  assert.equal(res.status, 201);
  assert.equal(res.body.data.id, 'proj_test00000001');
  assert.equal(res.body.data.createdAt, '2026-11-22T10:00:00.000Z');
  assert.equal(res.body.data.status, 'active');
  assert.equal(res.body.data.teamId, 'team_003');
  assert.equal('colour' in res.body.data, false);
});

test('POST /api/projects rejects bad bodies with field details and stores nothing', async (t) => {
  const { api } = await testApp(t);
  const cases: [unknown, string[]][] = [
    [{}, ['name']],
    [{ name: '   ' }, ['name']],
    [{ name: 42 }, ['name']],
    [{ name: 'x'.repeat(201) }, ['name']],
    [{ name: 'ok', status: 'archived' }, ['status']],
    [{ name: 'ok', teamId: 'team_999' }, ['teamId']],
    [{ name: 'ok', teamId: 7 }, ['teamId']],
    [{ name: 'ok', description: null }, ['description']],
    [{ status: 'nope', description: 1 }, ['description', 'name', 'status']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.post('/api/projects', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(res), fields, JSON.stringify(body));
  }
  assert.equal((await api.get('/api/projects')).body.count, 5);
});

test('PUT /api/projects/:id replaces: omitted fields reset to defaults, id and createdAt kept, updatedAt later', async (t) => {
  const { api, clock } = await testApp(t);
  clock.advance(60_000);
  const res = await api.put('/api/projects/proj_001', {
    name: 'Website 2.0',
    id: 'proj_x',
    createdAt: '2000-01-01T00:00:00.000Z',
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, {
    id: 'proj_001',
    name: 'Website 2.0',
    description: '',
    status: 'planned',
    teamId: null,
    createdAt: '2026-09-05T09:00:00.000Z',
    updatedAt: '2026-11-22T10:01:00.000Z',
  });
  assert.deepEqual((await api.get('/api/projects/proj_001')).body.data, res.body.data);
});

test('PUT keeps updatedAt strictly increasing even when the clock has not moved', async (t) => {
  const { api } = await testApp(t);
  const first = await api.put('/api/projects/proj_005', { name: 'Wiki', status: 'active' });
  const second = await api.put('/api/projects/proj_005', { name: 'Wiki', status: 'active' });
  assert.ok(second.body.data.updatedAt > first.body.data.updatedAt);
});

test('PUT /api/projects/:id: 404 for an unknown id, 400 without name or with an unknown team', async (t) => {
  const { api } = await testApp(t);
  assert.equal((await api.put('/api/projects/proj_nope', { name: 'x' })).status, 404);
  const noName = await api.put('/api/projects/proj_001', { status: 'active' });
  assert.equal(noName.status, 400);
  assert.deepEqual(fieldsOf(noName), ['name']);
  const badTeam = await api.put('/api/projects/proj_001', { name: 'x', teamId: 'team_zzz' });
  assert.deepEqual(fieldsOf(badTeam), ['teamId']);
  assert.equal((await api.get('/api/projects/proj_001')).body.data.name, 'Website Redesign');
});

test('PATCH on a project is 405 with Allow', async (t) => {
  const { api } = await testApp(t);
  const res = await api.patch('/api/projects/proj_001', { name: 'x' });
  assert.equal(res.status, 405);
  assert.equal(errorOf(res).code, 'METHOD_NOT_ALLOWED');
  assert.equal(res.headers.allow, 'DELETE, GET, HEAD, PUT');
});

test('DELETE /api/projects/:id answers the delete shape and cascades to tasks, their comments and time entries, milestones and project comments', async (t) => {
  const { api, store } = await testApp(t);
  const res = await api.delete('/api/projects/proj_001');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { data: { id: 'proj_001', deleted: true } });
  assert.equal((await api.get('/api/projects/proj_001')).status, 404);
  assert.equal((await api.delete('/api/projects/proj_001')).status, 404);
  assert.deepEqual(await store.tasks.list({ projectId: 'proj_001' }), []);
  assert.equal(await store.tasks.get('task_001'), undefined);
  assert.equal(await store.comments.get('cmt_001'), undefined); // on task_001
  assert.equal(await store.comments.get('cmt_002'), undefined); // on task_002
  assert.equal(await store.comments.get('cmt_006'), undefined); // on proj_001
  assert.equal(await store.timeEntries.get('te_001'), undefined);
  assert.deepEqual(await store.milestones.list({ projectId: 'proj_001' }), []);
  // Other projects' records are untouched.
  assert.equal((await store.tasks.list()).length, 7);
  assert.equal((await store.comments.list()).length, 3);
  assert.equal((await store.milestones.list()).length, 3);
});
