import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type Api } from '../helpers/app.ts';

async function inbox(api: Api, query = '') {
  const res = await api.get(`/api/notifications${query}`);
  return res.body.data.map((n: any) => [n.username, n.type, n.resourceType, n.resourceId]).sort();
}

test('task_assigned goes to the new assignee, on create and on update, never to the actor', async (t) => {
  const { api } = await testApp(t);
  const created = await api.post(
    '/api/tasks',
    { projectId: 'proj_002', title: 'A', assignee: 'bob' },
    { 'x-actor': 'alice' },
  );
  await api.post('/api/tasks', { projectId: 'proj_002', title: 'B', assignee: 'carol' }, { 'x-actor': 'carol' });
  await api.patch('/api/tasks/task_003', { assignee: 'erin' }, { 'x-actor': 'dana' });
  await api.patch('/api/tasks/task_003', { assignee: null }, { 'x-actor': 'dana' });
  assert.deepEqual(await inbox(api), [
    ['bob', 'task_assigned', 'task', created.body.data.id],
    ['erin', 'task_assigned', 'task', 'task_003'],
  ]);
  const n = (await api.get('/api/notifications?username=bob')).body.data[0];
  assert.equal(n.message, "alice assigned you to task 'A'");
  assert.equal(n.read, false);
});

test('comment_added: to the task assignee, or to the project team, never to the author', async (t) => {
  const { api } = await testApp(t);
  const onTask = await api.post('/api/comments', {
    targetType: 'task',
    targetId: 'task_005',
    author: 'alice',
    body: 'x',
  });
  await api.post('/api/comments', { targetType: 'task', targetId: 'task_005', author: 'bob', body: 'own task' });
  await api.post('/api/comments', {
    targetType: 'task',
    targetId: 'task_003',
    author: 'dana',
    body: 'unassigned task',
  });
  const onProject = await api.post('/api/comments', {
    targetType: 'project',
    targetId: 'proj_002',
    author: 'carol',
    body: 'y',
  });
  await api.post('/api/comments', { targetType: 'project', targetId: 'proj_005', author: 'carol', body: 'no team' });
  assert.deepEqual(await inbox(api), [
    ['alice', 'comment_added', 'comment', onProject.body.data.id],
    ['bob', 'comment_added', 'comment', onTask.body.data.id],
    ['bob', 'comment_added', 'comment', onProject.body.data.id],
  ]);
});

test('milestone_reached to the project team except the actor, once', async (t) => {
  const { api } = await testApp(t);
  await api.patch('/api/milestones/ms_003', { status: 'reached' }, { 'x-actor': 'alice' });
  await api.patch('/api/milestones/ms_003', { status: 'reached' }, { 'x-actor': 'alice' });
  assert.deepEqual(await inbox(api), [
    ['bob', 'milestone_reached', 'milestone', 'ms_003'],
    ['carol', 'milestone_reached', 'milestone', 'ms_003'],
  ]);
});

test('project_updated to the team of the project, not for a no-op update', async (t) => {
  const { api } = await testApp(t);
  const current = (await api.get('/api/projects/proj_004')).body.data;
  await api.put('/api/projects/proj_004', {
    name: current.name,
    description: current.description,
    status: current.status,
    teamId: current.teamId,
  });
  assert.deepEqual(await inbox(api), []);
  await api.put(
    '/api/projects/proj_004',
    { name: 'Warehouse', status: 'completed', teamId: 'team_001' },
    { 'x-actor': 'bob' },
  );
  assert.deepEqual(await inbox(api), [
    ['alice', 'project_updated', 'project', 'proj_004'],
    ['carol', 'project_updated', 'project', 'proj_004'],
  ]);
  const n = (await api.get('/api/notifications?username=alice')).body.data[0];
  assert.equal(n.message, "bob updated project 'Warehouse' (name, description)");
});

test('project_updated for a project moved to another team or to none: the team it left hears of it too', async (t) => {
  const { api } = await testApp(t);
  const actor = { 'x-actor': 'frank' };
  // proj_001 belongs to team_002 (dana, erin); team_003 is frank, grace and heidi.
  const { name, description, status } = (await api.get('/api/projects/proj_001')).body.data;
  const moved = await api.put('/api/projects/proj_001', { name, description, status, teamId: 'team_003' }, actor);
  assert.equal(moved.status, 200);
  assert.deepEqual(await inbox(api), [
    ['dana', 'project_updated', 'project', 'proj_001'],
    ['erin', 'project_updated', 'project', 'proj_001'],
    ['grace', 'project_updated', 'project', 'proj_001'],
    ['heidi', 'project_updated', 'project', 'proj_001'],
  ]);
  await api.patch('/api/notifications/read-all');
  await api.put('/api/projects/proj_001', { name, description, status, teamId: null }, actor);
  assert.deepEqual(await inbox(api, '?read=false'), [
    ['grace', 'project_updated', 'project', 'proj_001'],
    ['heidi', 'project_updated', 'project', 'proj_001'],
  ]);
});
