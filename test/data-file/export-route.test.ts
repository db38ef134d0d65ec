import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, testApp } from '../helpers/app.ts';
import { AS_ADMIN, authApp } from '../helpers/auth.ts';

const LOAD_ORDER = [
  'teams',
  'projects',
  'milestones',
  'tasks',
  'comments',
  'timeEntries',
  'webhooks',
  'notifications',
  'activityLog',
];

test('GET /api/export: the whole store as a download, every record as the API shows it, in load order', async (t) => {
  const { api, clock } = await testApp(t);
  clock.set('2026-11-23T08:30:00.000Z');
  const made = await api.post('/api/tasks', { projectId: 'proj_001', title: 'Written before the export' });
  assert.equal(made.status, 201);
  const res = await api.get('/api/export');
  assert.equal(res.status, 200);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.equal(res.headers['content-disposition'], 'attachment; filename="pm-service-2026-11-23.json"');
  const file = res.body;
  assert.deepEqual(Object.keys(file), ['format', 'exportedAt', ...LOAD_ORDER]);
  assert.equal(file.format, 'pm-service/1');
  assert.equal(file.exportedAt, '2026-11-23T08:30:00.000Z');
  // A team's list shows its member count; the team itself, its members.
  const teams = await api.get('/api/teams');
  const shown = await Promise.all(teams.body.data.map(async ({ id }: { id: string }) => api.get(`/api/teams/${id}`)));
  assert.deepEqual(
    file.teams,
    shown.map((one) => one.body.data),
  );
  for (const [name, path] of [
    ['projects', '/api/projects'],
    ['milestones', '/api/milestones'],
    ['tasks', '/api/tasks'],
    ['comments', '/api/comments'],
    ['timeEntries', '/api/time-entries'],
    ['webhooks', '/api/webhooks'],
  ] as const) {
    const listed = await api.get(path);
    assert.equal(listed.status, 200, path);
    assert.deepEqual(file[name], listed.body.data, name);
  }
  assert.ok(file.tasks.some((task: { title: string }) => task.title === 'Written before the export'));
  const log = await api.get('/api/activity-log?limit=1000');
  assert.deepEqual(file.activityLog, [...log.body.data].reverse(), 'the activity log, oldest first');
  assert.ok(file.webhooks.length > 0);
  for (const webhook of file.webhooks) assert.equal('secret' in webhook, false, 'no secret over HTTP');
});

test('GET /api/export with AUTH=token: admin only (403 otherwise), and never a secret nor a token hash', async (t) => {
  const { api, issue } = await authApp(t);
  const reader = await issue({ username: 'rita', scopes: ['read', 'write'] });
  const refused = await api.get('/api/export', { authorization: `Bearer ${reader.token}` });
  assert.equal(refused.status, 403);
  assert.equal(errorOf(refused).code, 'FORBIDDEN');
  assert.equal((await api.get('/api/export')).status, 401);

  const res = await api.get('/api/export', AS_ADMIN);
  assert.equal(res.status, 200);
  assert.equal('tokens' in res.body, false);
  assert.equal('secrets' in res.body, false);
  assert.doesNotMatch(res.text, /whsec_/);
  assert.doesNotMatch(res.text, /"hash"/);
  assert.doesNotMatch(res.text, new RegExp(reader.token));
});
