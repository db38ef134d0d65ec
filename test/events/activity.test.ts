import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type Api } from '../helpers/app.ts';
import pino from 'pino';
import { EventBus } from '../../src/events/bus.ts';

/** Entries written since the seeds (which end with act_010), oldest first. */
async function newEntries(api: Api) {
  const res = await api.get('/api/activity-log');
  return res.body.data.filter((e: any) => e.id.startsWith('act_test')).reverse();
}
const brief = (e: any) => [e.action, e.actor, e.resourceType, e.resourceId, e.metadata];

test('creating a task writes task.created, and task.assigned when it has an assignee', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post(
    '/api/tasks',
    { projectId: 'proj_002', title: 'Ship', assignee: 'bob' },
    { 'x-actor': 'alice' },
  );
  const id = res.body.data.id;
  const entries = await newEntries(api);
  assert.deepEqual(entries.map(brief), [
    ['task.created', 'alice', 'task', id, {}],
    ['task.assigned', 'alice', 'task', id, { from: null, to: 'bob' }],
  ]);
  assert.equal(entries[0].timestamp, '2026-11-22T10:00:00.000Z');
  assert.match(entries[0].summary, /Created task 'Ship'/);
});

test('a task update writes task.updated with the changed fields, task.status_changed and task.assigned', async (t) => {
  const { api } = await testApp(t);
  await api.patch('/api/tasks/task_006', { status: 'in_progress', assignee: 'alice' }, { 'x-actor': 'carol' });
  assert.deepEqual((await newEntries(api)).map(brief), [
    ['task.updated', 'carol', 'task', 'task_006', { fields: ['status', 'assignee'] }],
    ['task.status_changed', 'carol', 'task', 'task_006', { from: 'todo', to: 'in_progress' }],
    ['task.assigned', 'carol', 'task', 'task_006', { from: 'carol', to: 'alice' }],
  ]);
});

test('an update that changes nothing writes nothing; without X-Actor the actor is system', async (t) => {
  const { api } = await testApp(t);
  await api.patch('/api/tasks/task_006', { status: 'todo', title: 'Deprecate the v1 auth endpoints' });
  assert.deepEqual(await newEntries(api), []);
  await api.patch('/api/tasks/task_006', { priority: 'low' });
  assert.deepEqual((await newEntries(api)).map(brief), [
    ['task.updated', 'system', 'task', 'task_006', { fields: ['priority'] }],
  ]);
});

test('project.updated carries the names of the fields that changed; delete writes project.deleted', async (t) => {
  const { api } = await testApp(t);
  await api.put('/api/projects/proj_005', {
    name: 'Wiki',
    description: 'One place for team documentation',
    status: 'active',
  });
  await api.delete('/api/projects/proj_005', { 'x-actor': 'dana' });
  assert.deepEqual((await newEntries(api)).map(brief), [
    ['project.updated', 'system', 'project', 'proj_005', { fields: ['name', 'status'] }],
    ['task.deleted', 'dana', 'task', 'task_010', { cascadeOf: 'proj_005' }],
    ['project.deleted', 'dana', 'project', 'proj_005', {}],
  ]);
});

test('milestone.reached with projectId, once; leaving and re-entering reached does not repeat it', async (t) => {
  const { api } = await testApp(t);
  await api.patch('/api/milestones/ms_003', { status: 'reached' }, { 'x-actor': 'alice' });
  await api.patch('/api/milestones/ms_003', { status: 'reached' });
  const entries = await newEntries(api);
  assert.deepEqual(entries.map(brief), [
    ['milestone.updated', 'alice', 'milestone', 'ms_003', { fields: ['status', 'reachedAt'] }],
    ['milestone.reached', 'alice', 'milestone', 'ms_003', { projectId: 'proj_002' }],
  ]);
});

test('webhook.created carries the events and never the secret', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/webhooks', { url: 'https://h.example.com/x', events: ['task.created', '*'] });
  const entries = await newEntries(api);
  assert.deepEqual(entries.map(brief), [
    ['webhook.created', 'system', 'webhook', res.body.data.id, { events: ['task.created', '*'] }],
  ]);
  const log = await api.get('/api/activity-log');
  assert.equal(log.text.includes(res.body.data.secret), false);
});

test('comment changes are by the comment author unless X-Actor says otherwise; every resource is audited', async (t) => {
  const { api } = await testApp(t);
  const c = await api.post('/api/comments', { targetType: 'task', targetId: 'task_001', author: 'erin', body: 'hi' });
  await api.patch(`/api/comments/${c.body.data.id}`, { body: 'hello' }, { 'x-actor': 'dana' });
  const team = await api.post('/api/teams', { name: 'Ops' });
  const te = await api.post('/api/time-entries', { taskId: 'task_001', username: 'dana', hours: 1 });
  await api.delete(`/api/time-entries/${te.body.data.id}`);
  assert.deepEqual(
    (await newEntries(api)).map((e: any) => [e.action, e.actor, e.resourceId]),
    [
      ['comment.created', 'erin', c.body.data.id],
      ['comment.updated', 'dana', c.body.data.id],
      ['team.created', 'system', team.body.data.id],
      ['time_entry.created', 'system', te.body.data.id],
      ['time_entry.deleted', 'system', te.body.data.id],
    ],
  );
});

test('posting an activity entry or a notification writes no further entry; a refused request writes none', async (t) => {
  const { api } = await testApp(t);
  await api.post('/api/activity-log', {
    action: 'sprint.started',
    actor: 'alice',
    resourceType: 'project',
    resourceId: 'proj_002',
  });
  await api.post('/api/notifications', { username: 'bob', type: 'project_updated', message: 'x' });
  await api.post('/api/tasks', { projectId: 'proj_nope', title: 'x' });
  await api.patch('/api/tasks/task_001', { status: 'bogus' });
  assert.deepEqual(
    (await newEntries(api)).map((e: any) => e.action),
    ['sprint.started'],
  );
});

test('a failing consumer neither fails the request nor stops the other consumers', async (t) => {
  const events = new EventBus(pino({ level: 'silent' }));
  const { api } = await testApp(t, { events });
  let after = 0;
  events.subscribe('broken', () => {
    throw new Error('consumer down');
  });
  events.subscribe('async-broken', async () => Promise.reject(new Error('also down')));
  events.subscribe('counter', () => {
    after++;
  });
  const res = await api.post('/api/tasks', { projectId: 'proj_001', title: 'Still works' });
  assert.equal(res.status, 201);
  assert.equal(after, 1);
  assert.equal((await newEntries(api)).length, 1);
});
