/** Cascades are changes too: every record a delete takes with it, or detaches, has its entry and its event. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { EventBus } from '../../src/events/bus.ts';
import type { DomainEvent } from '../../src/events/types.ts';
import { onEveryStore } from '../events/stores.ts';
import { testApp, type Api } from '../helpers/app.ts';
import { appWithReceivers, receiver, subscribe } from '../webhooks/helpers.ts';

/** Entries written since the seeds, oldest first. */
async function newEntries(api: Api) {
  const res = await api.get('/api/activity-log');
  return res.body.data.filter((e: any) => e.id.startsWith('act_test')).reverse();
}
const brief = (e: any) => [e.action, e.actor, e.resourceId, e.metadata];

onEveryStore('cascades', (fresh) => {
  test('a project delete records each task, comment, time entry and milestone it takes, children first', async (t) => {
    const events = new EventBus(pino({ level: 'silent' }));
    const released: DomainEvent[] = [];
    const { api } = await testApp(t, { store: await fresh(), events });
    events.subscribe('test', (event) => void released.push(event));
    const before = (await api.get('/api/tasks/task_002')).body.data;

    assert.equal((await api.delete('/api/projects/proj_001', { 'x-actor': 'dana' })).status, 200);
    const of = { cascadeOf: 'proj_001' };
    const expected = [
      ['comment.deleted', 'dana', 'cmt_001', of],
      ['comment.deleted', 'dana', 'cmt_002', of],
      ['time_entry.deleted', 'dana', 'te_001', of],
      ['time_entry.deleted', 'dana', 'te_002', of],
      ['time_entry.deleted', 'dana', 'te_003', of],
      ['task.deleted', 'dana', 'task_001', of],
      ['task.deleted', 'dana', 'task_002', of],
      ['task.deleted', 'dana', 'task_003', of],
      ['milestone.deleted', 'dana', 'ms_001', of],
      ['milestone.deleted', 'dana', 'ms_002', of],
      ['comment.deleted', 'dana', 'cmt_006', of],
      ['project.deleted', 'dana', 'proj_001', {}],
    ];
    const entries = await newEntries(api);
    assert.deepEqual(entries.map(brief), expected);
    assert.equal(entries[6].summary, "Deleted task 'Build the responsive navigation' (cascade: proj_001 deleted)");
    assert.equal(entries[11].summary, "Deleted project 'Website Redesign'");
    // The same changes, in the same order, reach what follows committed changes; deletes carry the record as it was.
    assert.deepEqual(
      released.map((e) => [
        e.type,
        e.actor,
        (e.record as { id: string }).id,
        e.cascadeOf ? { cascadeOf: e.cascadeOf } : {},
      ]),
      expected,
    );
    assert.deepEqual(released[6]!.record, before);
    for (const path of [
      '/api/tasks/task_001',
      '/api/comments/cmt_001',
      '/api/time-entries/te_003',
      '/api/milestones/ms_002',
    ]) {
      assert.equal((await api.get(path)).status, 404, path);
    }
    assert.equal((await api.get('/api/notifications')).body.count, 0);
  });

  test('a task delete records its comments and time entries; without X-Actor all are by system', async (t) => {
    const { api } = await testApp(t, { store: await fresh() });
    await api.delete('/api/tasks/task_002');
    const of = { cascadeOf: 'task_002' };
    assert.deepEqual((await newEntries(api)).map(brief), [
      ['comment.deleted', 'system', 'cmt_002', of],
      ['time_entry.deleted', 'system', 'te_002', of],
      ['time_entry.deleted', 'system', 'te_003', of],
      ['task.deleted', 'system', 'task_002', {}],
    ]);
    const left = (await api.get('/api/time-entries')).body.data;
    assert.deepEqual(
      left.filter((e: any) => e.taskId === 'task_002'),
      [],
    );
    assert.ok(left.some((e: any) => e.id === 'te_001'));
  });

  test('a team delete detaches its projects: project.updated with teamId null, each strictly later', async (t) => {
    const { api, clock } = await testApp(t, { store: await fresh() });
    const before = (await api.get('/api/projects')).body.data.filter((p: any) => p.teamId === 'team_001');
    assert.deepEqual(
      before.map((p: any) => p.id),
      ['proj_002', 'proj_004'],
    );
    clock.set('2026-12-01T08:00:00.000Z');
    await api.delete('/api/teams/team_001', { 'x-actor': 'alice' });
    const of = { fields: ['teamId'], cascadeOf: 'team_001' };
    const entries = await newEntries(api);
    assert.deepEqual(entries.map(brief), [
      ['project.updated', 'alice', 'proj_002', of],
      ['project.updated', 'alice', 'proj_004', of],
      ['team.deleted', 'alice', 'team_001', {}],
    ]);
    assert.match(entries[0].summary, /^Updated project '.+': teamId \(cascade: team_001 deleted\)$/);
    for (const p of before) {
      const now = (await api.get(`/api/projects/${p.id}`)).body.data;
      assert.deepEqual(now, { ...p, teamId: null, updatedAt: '2026-12-01T08:00:00.000Z' });
    }
    // The team is gone: nobody to tell.
    assert.equal((await api.get('/api/notifications')).body.count, 0);
  });

  test('a delete goes through while its children are being created all along, and leaves none behind', async (t) => {
    const { api } = await testApp(t, { store: await fresh() });
    const project = (await api.post('/api/projects', { name: 'Busy' })).body.data.id;
    const task = (await api.post('/api/tasks', { projectId: project, title: 'Busy' })).body.data.id;
    let stop = false;
    const statuses: number[] = [];
    const write = async (body: () => Record<string, unknown>, path: string) => {
      while (!stop) statuses.push((await api.post(path, body())).status);
    };
    const writers = [
      ...Array.from({ length: 6 }, () =>
        write(() => ({ targetType: 'task', targetId: task, author: 'w', body: 'c' }), '/api/comments'),
      ),
      ...Array.from({ length: 4 }, () => write(() => ({ projectId: project, title: 't' }), '/api/tasks')),
    ];
    await new Promise((r) => setTimeout(r, 300));
    const deletedTask = await api.delete(`/api/tasks/${task}`);
    const deletedProject = await api.delete(`/api/projects/${project}`);
    stop = true;
    await Promise.all(writers);
    assert.equal(deletedTask.status, 200, deletedTask.text);
    assert.equal(deletedProject.status, 200, deletedProject.text);
    assert.deepEqual([...new Set(statuses)].sort(), statuses.includes(400) ? [201, 400] : [201]);
    assert.equal((await api.get(`/api/comments?targetId=${task}`)).body.count, 0);
    assert.equal((await api.get(`/api/tasks?projectId=${project}`)).body.count, 0);
  });

  test('a delete with nothing depending on it records only itself', async (t) => {
    const { api } = await testApp(t, { store: await fresh() });
    await api.delete('/api/tasks/task_010', { 'x-actor': 'erin' });
    assert.deepEqual((await newEntries(api)).map(brief), [['task.deleted', 'erin', 'task_010', {}]]);
  });
});

test('webhooks receive the deletes and detaches of a cascade like any other', async (t) => {
  const { api } = await appWithReceivers(t);
  const r = await receiver(t);
  await subscribe(api, r.url, ['*']);
  const task = (await api.get('/api/tasks/task_002')).body.data;
  await api.delete('/api/projects/proj_001');
  await api.delete('/api/teams/team_001');
  // Webhook types only: time entries and milestones have none, nor teams.
  const expected = [
    ['comment.deleted', 'cmt_001'],
    ['comment.deleted', 'cmt_002'],
    ['task.deleted', 'task_001'],
    ['task.deleted', 'task_002'],
    ['task.deleted', 'task_003'],
    ['comment.deleted', 'cmt_006'],
    ['project.deleted', 'proj_001'],
    ['project.updated', 'proj_002'],
    ['project.updated', 'proj_004'],
  ];
  await r.arrived(expected.length);
  const bodies = r.requests.map((q) => JSON.parse(q.body));
  const key = (b: string[]) => b.join(' ');
  assert.deepEqual(bodies.map((b) => key([b.type, b.data.id])).sort(), expected.map(key).sort());
  assert.deepEqual(bodies.find((b) => b.data.id === 'task_002').data, task);
  for (const b of bodies.filter((b) => b.type === 'project.updated')) assert.equal(b.data.teamId, null);
});
