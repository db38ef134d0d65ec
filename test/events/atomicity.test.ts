/** A change, its activity entries and its notifications commit together or not at all, on every store. */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { EventBus } from '../../src/events/bus.ts';
import type { Store } from '../../src/store/store.ts';
import { errorOf, testApp, type Api } from '../helpers/app.ts';
import { breakWrites, onEveryStore } from './stores.ts';

/** What a failed change must leave as it was: the records it touches, the log, the inboxes. */
async function state(api: Api, ...paths: string[]) {
  const records = await Promise.all(paths.map(async (path) => (await api.get(path)).body));
  const log = (await api.get('/api/activity-log')).body;
  const inbox = (await api.get('/api/notifications')).body;
  return { records, log, inbox };
}

/** An app on `store` whose bus also tells the test which events were released after commit. */
async function appOn(t: TestContext, fresh: () => Promise<Store>) {
  const events = new EventBus(pino({ level: 'silent' }));
  const released: string[] = [];
  const ctx = await testApp(t, { store: await fresh(), events });
  events.subscribe('test', (event) => {
    released.push(event.type);
  });
  return { ...ctx, released };
}

onEveryStore('atomic changes', (fresh) => {
  test('an assignment whose notification cannot be written answers 500 and changes nothing', async (t) => {
    const { api, store, released } = await appOn(t, fresh);
    const failing = breakWrites(store, 'notifications');
    const before = await state(api, '/api/tasks/task_003');

    const res = await api.patch('/api/tasks/task_003', { assignee: 'erin', status: 'done' }, { 'x-actor': 'dana' });
    assert.equal(res.status, 500);
    assert.equal(errorOf(res).code, 'INTERNAL_ERROR');
    assert.deepEqual(await state(api, '/api/tasks/task_003'), before);
    assert.deepEqual(released, []);

    // The same change goes through once the table works: the failure was the only reason.
    failing.on = false;
    assert.equal((await api.patch('/api/tasks/task_003', { assignee: 'erin' }, { 'x-actor': 'dana' })).status, 200);
    const after = await state(api, '/api/tasks/task_003');
    assert.equal(after.records[0].data.assignee, 'erin');
    assert.deepEqual(
      after.log.data.slice(0, 2).map((e: any) => e.action),
      ['task.assigned', 'task.updated'],
    );
    assert.deepEqual(
      after.inbox.data.map((n: any) => [n.username, n.type, n.resourceId]),
      [['erin', 'task_assigned', 'task_003']],
    );
    assert.deepEqual(released, ['task.updated', 'notification.created']);
  });

  test('a create whose activity entry cannot be written answers 500 and stores no record', async (t) => {
    const { api, store, released } = await appOn(t, fresh);
    breakWrites(store, 'activity');
    const before = await state(api, '/api/tasks?projectId=proj_002');
    const res = await api.post('/api/tasks', { projectId: 'proj_002', title: 'Lost', assignee: 'bob' });
    assert.equal(res.status, 500);
    assert.deepEqual(await state(api, '/api/tasks?projectId=proj_002'), before);
    assert.deepEqual(released, []);
  });

  test('a project delete whose cascade cannot be recorded leaves the project and everything in it', async (t) => {
    const { api, store, released } = await appOn(t, fresh);
    breakWrites(store, 'activity');
    const paths = [
      '/api/projects/proj_001',
      '/api/tasks?projectId=proj_001',
      '/api/comments',
      '/api/time-entries',
      '/api/milestones?projectId=proj_001',
    ];
    const before = await state(api, ...paths);
    assert.equal((await api.delete('/api/projects/proj_001', { 'x-actor': 'dana' })).status, 500);
    assert.deepEqual(await state(api, ...paths), before);
    assert.deepEqual(released, []);
  });

  test('a posted activity entry that cannot be written is not released to webhooks', async (t) => {
    const { api, store, released } = await appOn(t, fresh);
    breakWrites(store, 'activity');
    const res = await api.post('/api/activity-log', {
      action: 'sprint.started',
      actor: 'alice',
      resourceType: 'project',
      resourceId: 'proj_002',
    });
    assert.equal(res.status, 500);
    assert.deepEqual(released, []);
  });
});
