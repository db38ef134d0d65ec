import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, fieldsOf, testApp } from '../helpers/app.ts';

const ids = (res: { body: any }) => res.body.data.map((r: any) => r.id);

const TEAM_001 = {
  id: 'team_001',
  name: 'Platform',
  description: 'APIs, infrastructure and data',
  members: [
    { username: 'alice', role: 'lead' },
    { username: 'bob', role: 'engineer' },
    { username: 'carol', role: 'engineer' },
  ],
  createdAt: '2026-09-01T09:00:00.000Z',
  updatedAt: '2026-09-01T09:00:00.000Z',
};

// ---------------------------------------------------------------- list

test('GET /api/teams lists the three seeded teams in summary form: memberCount, no members', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/teams');
  assert.equal(res.status, 200);
  assert.equal(res.body.count, 3);
  assert.deepEqual(res.body.data, [
    {
      id: 'team_001',
      name: 'Platform',
      description: 'APIs, infrastructure and data',
      memberCount: 3,
      createdAt: '2026-09-01T09:00:00.000Z',
      updatedAt: '2026-09-01T09:00:00.000Z',
    },
    {
      id: 'team_002',
      name: 'Product Design',
      description: 'Research, UX and visual design',
      memberCount: 2,
      createdAt: '2026-09-01T09:30:00.000Z',
      updatedAt: '2026-09-01T09:30:00.000Z',
    },
    {
      id: 'team_003',
      name: 'Mobile',
      description: 'iOS and Android apps',
      memberCount: 3,
      createdAt: '2026-09-02T09:00:00.000Z',
      updatedAt: '2026-09-02T09:00:00.000Z',
    },
  ]);
  for (const team of res.body.data) assert.equal('members' in team, false);
});

test('GET /api/teams takes no filters: query parameters are ignored', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/teams?name=Mobile');
  assert.equal(res.status, 200);
  assert.equal(res.body.count, 3);
});

// ---------------------------------------------------------------- get

test('GET /api/teams/:id returns the full team with members', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/teams/team_001');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { data: TEAM_001 });
  assert.equal('memberCount' in res.body.data, false);
});

test('GET /api/teams/:id with an unknown id is 404 NOT_FOUND naming it', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/teams/team_nope');
  assert.equal(res.status, 404);
  assert.equal(errorOf(res).code, 'NOT_FOUND');
  assert.match(errorOf(res).message, /team_nope/);
});

// ---------------------------------------------------------------- create

test('POST /api/teams creates with defaults description "" and members []', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/teams', { name: 'Security' });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body, {
    data: {
      id: 'team_test00000001',
      name: 'Security',
      description: '',
      members: [],
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:00:00.000Z',
    },
  });
  assert.deepEqual((await api.get('/api/teams/team_test00000001')).body.data, res.body.data);
  const list = await api.get('/api/teams');
  assert.equal(list.body.count, 4);
  assert.equal(list.body.data[3].memberCount, 0);
});

test('POST /api/teams stores members; extra member fields, unknown fields and read-only fields are dropped', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/teams', {
    name: 'Data',
    description: 'Analytics',
    members: [
      { username: 'ivan', role: 'lead', email: 'ivan@example.com' },
      { username: 'judy', role: 'analyst' },
    ],
    memberCount: 99,
    id: 'team_mine',
    createdAt: '2000-01-01T00:00:00.000Z',
    colour: 'blue',
  });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body.data, {
    id: 'team_test00000001',
    name: 'Data',
    description: 'Analytics',
    members: [
      { username: 'ivan', role: 'lead' },
      { username: 'judy', role: 'analyst' },
    ],
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
  });
  const list = await api.get('/api/teams');
  assert.equal(list.body.data.find((x: any) => x.id === 'team_test00000001').memberCount, 2);
});

test('POST /api/teams rejects bad bodies with field details and stores nothing', async (t) => {
  const { api } = await testApp(t);
  const cases: [unknown, string[]][] = [
    [{}, ['name']],
    [{ name: '' }, ['name']],
    [{ name: '  ' }, ['name']],
    [{ name: 42 }, ['name']],
    [{ name: 'n'.repeat(201) }, ['name']],
    [{ name: 'T', description: 5 }, ['description']],
    [{ name: 'T', members: 'alice' }, ['members']],
    [{ name: 'T', members: null }, ['members']],
    [{ name: 'T', members: ['alice'] }, ['members[0]']],
    [{ name: 'T', members: [{ username: 'a' }] }, ['members[0].role']],
    [{ name: 'T', members: [{ role: 'lead' }] }, ['members[0].username']],
    [{ name: 'T', members: [{ username: '  ', role: 'lead' }] }, ['members[0].username']],
    [{ name: 'T', members: [{ username: 'a', role: '' }] }, ['members[0].role']],
    [{ name: 'T', members: [{ username: 7, role: 'lead' }] }, ['members[0].username']],
    [
      {
        name: 'T',
        members: [
          { username: 'a', role: 'lead' },
          { username: 'b', role: null },
        ],
      },
      ['members[1].role'],
    ],
  ];
  for (const [body, fields] of cases) {
    const res = await api.post('/api/teams', body);
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(res), fields, JSON.stringify(body).slice(0, 80));
  }
  assert.equal((await api.get('/api/teams')).body.count, 3);
});

test('POST /api/teams: a username listed twice is 400 naming the second occurrence', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/teams', {
    name: 'Dup',
    members: [
      { username: 'alice', role: 'lead' },
      { username: 'alice', role: 'engineer' },
    ],
  });
  assert.equal(res.status, 400);
  assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(res), ['members[1].username']);
  assert.match(errorOf(res).details![0]!.message, /alice/);
  const third = await api.post('/api/teams', {
    name: 'Dup',
    members: [
      { username: 'a', role: 'lead' },
      { username: 'b', role: 'x' },
      { username: 'a', role: 'y' },
    ],
  });
  assert.deepEqual(fieldsOf(third), ['members[2].username']);
  assert.equal((await api.get('/api/teams')).body.count, 3);
});

// ---------------------------------------------------------------- update

test('PATCH /api/teams/:id changes name and description only; members stay; updatedAt later', async (t) => {
  const { api, clock } = await testApp(t);
  clock.advance(60_000);
  const res = await api.patch('/api/teams/team_001', {
    name: 'Platform & Infra',
    description: 'Everything below the API',
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, {
    ...TEAM_001,
    name: 'Platform & Infra',
    description: 'Everything below the API',
    updatedAt: '2026-11-22T10:01:00.000Z',
  });
  assert.deepEqual((await api.get('/api/teams/team_001')).body.data, res.body.data);
});

test('PATCH /api/teams/:id with members replaces the whole list; memberCount in the list follows', async (t) => {
  const { api } = await testApp(t);
  const res = await api.patch('/api/teams/team_002', {
    members: [{ username: 'zoe', role: 'researcher', extra: true }],
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data.members, [{ username: 'zoe', role: 'researcher' }]);
  assert.equal(res.body.data.name, 'Product Design');
  const list = await api.get('/api/teams');
  assert.deepEqual(
    list.body.data.map((x: any) => [x.id, x.memberCount]),
    [
      ['team_001', 3],
      ['team_002', 1],
      ['team_003', 3],
    ],
  );
  const emptied = await api.patch('/api/teams/team_002', { members: [] });
  assert.deepEqual(emptied.body.data.members, []);
  assert.equal((await api.get('/api/teams')).body.data[1].memberCount, 0);
});

test('PATCH /api/teams/:id ignores id, createdAt, memberCount and unknown fields', async (t) => {
  const { api } = await testApp(t);
  const res = await api.patch('/api/teams/team_001', {
    id: 'team_x',
    createdAt: '2000-01-01T00:00:00.000Z',
    memberCount: 10,
    colour: 'red',
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, { ...TEAM_001, updatedAt: '2026-11-22T10:00:00.000Z' });
});

test('PATCH /api/teams/:id: updatedAt strictly later when the clock has not moved', async (t) => {
  const { api } = await testApp(t);
  const first = await api.patch('/api/teams/team_003', { name: 'Mobile Apps' });
  const second = await api.patch('/api/teams/team_003', { name: 'Mobile Apps' });
  assert.ok(second.body.data.updatedAt > first.body.data.updatedAt);
  assert.equal(second.body.data.updatedAt, '2026-11-22T10:00:00.001Z');
});

test('PATCH /api/teams/:id with invalid fields or a duplicated member is 400 and changes nothing', async (t) => {
  const { api } = await testApp(t);
  const cases: [unknown, string[]][] = [
    [{ name: '' }, ['name']],
    [{ name: null }, ['name']],
    [{ name: 'ok', members: [{ username: 'x' }] }, ['members[0].role']],
    [
      {
        members: [
          { username: 'x', role: 'a' },
          { username: 'x', role: 'b' },
        ],
      },
      ['members[1].username'],
    ],
    [{ members: 'all' }, ['members']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.patch('/api/teams/team_001', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(res), fields, JSON.stringify(body));
  }
  assert.deepEqual((await api.get('/api/teams/team_001')).body.data, TEAM_001);
});

test('PATCH /api/teams/:id with an unknown id is 404', async (t) => {
  const { api } = await testApp(t);
  const res = await api.patch('/api/teams/team_nope', { name: 'x' });
  assert.equal(res.status, 404);
  assert.equal(errorOf(res).code, 'NOT_FOUND');
  assert.match(errorOf(res).message, /team_nope/);
});

// ---------------------------------------------------------------- delete

test('DELETE /api/teams/:id answers the delete shape; the projects on that team get teamId null', async (t) => {
  const { api, clock } = await testApp(t);
  clock.advance(5_000);
  const res = await api.delete('/api/teams/team_001');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { data: { id: 'team_001', deleted: true } });
  for (const id of ['proj_002', 'proj_004']) {
    const project = (await api.get(`/api/projects/${id}`)).body.data;
    assert.equal(project.teamId, null, id);
    assert.equal(project.updatedAt, '2026-11-22T10:00:05.000Z', id);
  }
  // Projects of other teams are untouched; the projects themselves remain.
  assert.equal((await api.get('/api/projects/proj_001')).body.data.teamId, 'team_002');
  assert.equal((await api.get('/api/projects/proj_003')).body.data.teamId, 'team_003');
  assert.equal((await api.get('/api/projects')).body.count, 5);
  assert.deepEqual(ids(await api.get('/api/teams')), ['team_002', 'team_003']);
  assert.equal((await api.get('/api/teams')).body.count, 2);
});

test('DELETE /api/teams/:id: a get or second delete afterwards is 404; an unknown id is 404', async (t) => {
  const { api } = await testApp(t);
  assert.equal((await api.delete('/api/teams/team_003')).status, 200);
  const gone = await api.get('/api/teams/team_003');
  assert.equal(gone.status, 404);
  assert.equal(errorOf(gone).code, 'NOT_FOUND');
  const again = await api.delete('/api/teams/team_003');
  assert.equal(again.status, 404);
  assert.match(errorOf(again).message, /team_003/);
  assert.equal((await api.delete('/api/teams/team_nope')).status, 404);
  // A deleted team cannot be referenced any more.
  const project = await api.post('/api/projects', { name: 'X', teamId: 'team_003' });
  assert.equal(project.status, 400);
  assert.deepEqual(fieldsOf(project), ['teamId']);
});

// ---------------------------------------------------------------- methods

test('PUT on a team is 405 METHOD_NOT_ALLOWED with Allow', async (t) => {
  const { api } = await testApp(t);
  const res = await api.put('/api/teams/team_001', { name: 'x' });
  assert.equal(res.status, 405);
  assert.equal(errorOf(res).code, 'METHOD_NOT_ALLOWED');
  assert.equal(res.headers.allow, 'DELETE, GET, HEAD, PATCH');
  assert.equal((await api.get('/api/teams/team_001')).body.data.name, 'Platform');
  const onCollection = await api.delete('/api/teams');
  assert.equal(onCollection.status, 405);
  assert.equal(onCollection.headers.allow, 'GET, HEAD, POST');
});
