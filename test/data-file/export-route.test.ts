import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, testApp } from '../helpers/app.ts';
import { AS_ADMIN, authApp } from '../helpers/auth.ts';
import { testStore } from '../helpers/store.ts';
import { MemoryStore } from '../../src/store/memory/store.ts';
import { listening } from '../stream/sse.ts';

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

  const head = await api.request({ method: 'HEAD', url: '/api/export' });
  assert.deepEqual([head.status, head.text], [200, ''], 'HEAD: the headers, no export');
  assert.equal(head.headers['content-disposition'], 'attachment; filename="pm-service-2026-11-23.json"');
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

test(
  'a client that leaves in the middle of an export frees the store: the next request is answered',
  { timeout: 120_000 },
  async (t) => {
    // The embedded store has one connection, which an export left open would hold: every request after it would wait.
    const { app, store } = await testApp(t, { store: await testStore('embedded') });
    await store.transaction(async (tx) => {
      for (let i = 0; i < 20_000; i++) {
        await tx.tasks.insert({
          ...task,
          id: `task_many${i}`,
          title: `Task ${i} with a title long enough to fill a buffer`,
        });
      }
    });
    const base = await listening(app);
    const controller = new AbortController();
    const res = await fetch(`${base}/api/export`, { signal: controller.signal });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    assert.ok((await reader.read()).value!.length > 0);
    controller.abort();
    await reader.read().catch(() => undefined);
    const next = await fetch(`${base}/api/tasks/task_many0`, { signal: AbortSignal.timeout(10_000) });
    assert.equal(next.status, 200);
    const whole = await fetch(`${base}/api/export`, { signal: AbortSignal.timeout(60_000) });
    assert.equal(((await whole.json()) as { tasks: unknown[] }).tasks.length, 20_010);
  },
);

const task = {
  projectId: 'proj_001',
  description: '',
  status: 'todo',
  priority: 'low',
  assignee: null,
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
} as const;

test(
  'a client that leaves in the middle of an export ends it: the snapshot is let go early',
  { timeout: 60_000 },
  async (t) => {
    const store = new MemoryStore();
    const ended: Promise<string>[] = [];
    const snapshot = store.snapshot.bind(store);
    store.snapshot = (work) => {
      const run = snapshot(work);
      ended.push(
        run.then(
          () => 'written whole',
          () => 'ended early',
        ),
      );
      return run;
    };
    const { app } = await testApp(t, { store });
    await store.load(
      async (tx) => {
        for (let i = 0; i < 100_000; i++) {
          await tx.tasks.insert({
            ...task,
            id: `task_many${i}`,
            title: `Task ${i} with a title long enough to fill a buffer`,
          });
        }
      },
      { replace: true },
    );
    const base = await listening(app);
    const controller = new AbortController();
    const res = await fetch(`${base}/api/export`, { signal: controller.signal });
    const reader = res.body!.getReader();
    assert.ok((await reader.read()).value!.length > 0);
    controller.abort();
    await reader.read().catch(() => undefined);
    assert.equal(ended.length, 1);
    assert.equal(await ended[0], 'ended early');
  },
);
