/** What a delivery says of its change: an update's `previous` holds the old values of exactly the fields it changed. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook as Verifier } from 'standardwebhooks';
import { appWithReceivers, receiver, subscribe, type Receiver } from '../webhooks/helpers.ts';

/** The bodies received, verified with the webhook's secret; in no particular order (none is promised). */
const bodies = (r: Receiver, secret: string) =>
  r.requests.map((q) => new Verifier(secret).verify(q.body, q.headers as Record<string, string>) as any);
const find = (all: any[], type: string, id: string) => {
  const found = all.filter((b) => b.type === type && b.data.id === id);
  assert.equal(found.length, 1, `one ${type} of ${id}`);
  return found[0];
};

test('an update carries `previous`: the old values of exactly the fields it changed', async (t) => {
  const { api } = await appWithReceivers(t);
  const r = await receiver(t);
  const hook = await subscribe(api, r.url, ['task.updated', 'project.updated', 'comment.updated']);

  const moved = (await api.patch('/api/tasks/task_006', { status: 'in_progress', assignee: 'dana', priority: 'high' }))
    .body.data;
  await api.patch('/api/tasks/task_010', { assignee: 'erin' });
  await api.patch('/api/tasks/task_002', { assignee: null });
  const project = (await api.get('/api/projects/proj_003')).body.data;
  await api.put('/api/projects/proj_003', { ...project, name: 'Mobile App v2', status: 'completed' });
  await api.patch('/api/comments/cmt_001', { body: 'Darker, please.' });
  await api.patch('/api/tasks/task_001', { status: 'done' }); // no change: nothing sent

  await r.arrived(5);
  const all = bodies(r, hook.secret);
  assert.equal(all.length, 5);
  for (const b of all) assert.deepEqual(Object.keys(b), ['type', 'timestamp', 'data', 'previous']);

  // A status change and a reassignment; `priority` was sent unchanged and is not listed.
  const task = find(all, 'task.updated', 'task_006');
  assert.deepEqual(task.previous, { status: 'todo', assignee: 'carol' });
  assert.deepEqual(task.data, moved);
  assert.equal(task.timestamp, moved.updatedAt);
  assert.deepEqual(find(all, 'task.updated', 'task_010').previous, { assignee: null });
  assert.deepEqual(find(all, 'task.updated', 'task_002').previous, { assignee: 'erin' });
  // A replace names only what it changed, whatever the body restated.
  assert.deepEqual(find(all, 'project.updated', 'proj_003').previous, { name: project.name, status: project.status });
  assert.deepEqual(find(all, 'comment.updated', 'cmt_001').previous, {
    body: 'Looks great. Can we try a darker hero image?',
  });
});

test('creates and deletes carry no `previous`; nor does milestone.reached', async (t) => {
  const { api } = await appWithReceivers(t);
  const r = await receiver(t);
  const hook = await subscribe(api, r.url, ['*']);
  const task = (await api.post('/api/tasks', { projectId: 'proj_005', title: 'Pick a theme' })).body.data;
  await api.delete(`/api/tasks/${task.id}`);
  await api.patch('/api/milestones/ms_004', { status: 'reached' });

  await r.arrived(3);
  const all = bodies(r, hook.secret);
  assert.deepEqual(all.map((b) => b.type).sort(), ['milestone.reached', 'task.created', 'task.deleted']);
  for (const b of all) assert.deepEqual(Object.keys(b), ['type', 'timestamp', 'data']);
  assert.deepEqual(find(all, 'task.deleted', task.id).data, task);
});

test("a cascade's detaches carry `previous`; its deletes are delivered like any delete", async (t) => {
  const { api } = await appWithReceivers(t);
  const r = await receiver(t);
  const hook = await subscribe(api, r.url, ['project.updated', 'task.deleted', 'comment.deleted']);
  const detached = (await api.get('/api/projects/proj_002')).body.data;
  const task = (await api.get('/api/tasks/task_010')).body.data;
  await api.delete('/api/teams/team_001');
  await api.delete('/api/projects/proj_005');

  await r.arrived(3);
  const all = bodies(r, hook.secret);
  assert.deepEqual(all.map((b) => `${b.type} ${b.data.id}`).sort(), [
    'project.updated proj_002',
    'project.updated proj_004',
    'task.deleted task_010',
  ]);
  const update = find(all, 'project.updated', 'proj_002');
  assert.deepEqual(update.previous, { teamId: 'team_001' });
  assert.deepEqual(update.data, { ...detached, teamId: null, updatedAt: update.data.updatedAt });
  assert.deepEqual(find(all, 'project.updated', 'proj_004').previous, { teamId: 'team_001' });
  const deleted = find(all, 'task.deleted', 'task_010');
  assert.deepEqual(Object.keys(deleted), ['type', 'timestamp', 'data']);
  assert.deepEqual(deleted.data, task);
});
