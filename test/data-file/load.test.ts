/**
 * loadDataFile: a checked file's records go into a store in dependency order whatever the file's order, keep their
 * ids, timestamps and the activity log's order, and are served by the API right away (totals included). On memory,
 * the embedded store, and PostgreSQL when TEST_DATABASE_URL names a server that answers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkDataFile } from '../../src/data-file/check.ts';
import { loadDataFile } from '../../src/data-file/load.ts';
import { testApp } from '../helpers/app.ts';
import { testStore, type StoreKind } from '../helpers/store.ts';
import { testServer } from '../store/sql-harness.ts';
import { tempDir, tenTasks, writeFile } from './helpers.ts';

const found = await testServer();
const kinds: { kind: StoreKind; skip?: string }[] = [
  { kind: 'memory' },
  { kind: 'embedded' },
  { kind: 'postgres', ...('skip' in found && { skip: found.skip }) },
];

/** Activity entries with equal timestamps: their order in the file is the only order they have. */
const activity = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: `act_f${String(i + 1).padStart(2, '0')}`,
    action: 'task.created',
    actor: 'ana',
    resourceType: 'task',
    resourceId: `task_f${String(i + 1).padStart(2, '0')}`,
    summary: `Created task ${i + 1}`,
    metadata: { n: i + 1 },
    timestamp: '2026-03-10T09:00:00.000Z',
  }));

for (const { kind, skip } of kinds) {
  test(
    `[${kind}] the fixture of ten tasks loads (tasks before their projects in the file) and the API serves it`,
    { skip },
    async (t) => {
      const file: Record<string, any> = { ...tenTasks(), activityLog: activity(4) };
      const path = writeFile(tempDir(t), file);
      assert.deepEqual(await checkDataFile(path), []);

      const store = await testStore(kind);
      const counts = await store.transaction((tx) => loadDataFile(tx, path));
      assert.deepEqual(counts, {
        teams: 1,
        projects: 2,
        milestones: 1,
        tasks: 10,
        comments: 1,
        timeEntries: 1,
        webhooks: 1,
        notifications: 0,
        activityLog: 4,
        tokens: 0,
      });
      const { api } = await testApp(t, { store, seed: false });

      const page = await api.get('/api/tasks?limit=3');
      assert.equal(page.status, 200);
      assert.equal(page.headers['x-total-count'], '10');
      assert.deepEqual(
        page.body.data.map((task: { id: string }) => task.id),
        ['task_f01', 'task_f02', 'task_f03'],
      );
      // The file wrote `2026-03-01T09:00:00Z`: the API answers it as it writes every instant.
      assert.deepEqual((await api.get('/api/tasks/task_f01')).body.data, {
        ...file.tasks[0],
        createdAt: '2026-03-01T09:00:00.000Z',
      });
      assert.deepEqual((await api.get('/api/projects/proj_app')).body.data, file.projects[0]);
      assert.deepEqual((await api.get('/api/teams/team_app')).body.data, file.teams[0]);
      assert.deepEqual((await api.get('/api/milestones/ms_beta')).body.data, file.milestones[0]);
      assert.deepEqual((await api.get('/api/comments?targetId=task_f01')).body.data, file.comments);
      assert.deepEqual((await api.get('/api/time-entries')).body.data, file.timeEntries);
      assert.deepEqual((await api.get('/api/webhooks/wh_f01')).body.data, file.webhooks[0]);
      // Newest first; equal timestamps: the last in the file first.
      const log = await api.get('/api/activity-log');
      assert.deepEqual(
        log.body.data.map((e: { id: string }) => e.id),
        ['act_f04', 'act_f03', 'act_f02', 'act_f01'],
      );
      assert.deepEqual(log.body.data.at(-1), file.activityLog[0]);

      // The webhook had no secret: it got a fresh one, as a webhook created through the API does.
      assert.match((await store.webhooks.get('wh_f01'))!.secret, /^whsec_[A-Za-z0-9]{12}$/);
      // The loaded records are the store's own: a change through the API works on them.
      const patched = await api.patch('/api/tasks/task_f01', { status: 'done' });
      assert.equal(patched.status, 200);
      assert.equal((await api.get('/api/tasks?status=done&limit=1')).headers['x-total-count'], '4');
    },
  );
}

test('a webhook secret and tokens in a file written with secrets are loaded as they are', async (t) => {
  const file: Record<string, any> = { ...tenTasks(), secrets: true };
  file.webhooks[0].secret = 'whsec_AbCdEf123456';
  const token = {
    id: 'tok_f01',
    username: 'ana',
    scopes: ['write'],
    description: 'CI',
    expiresAt: null,
    createdAt: '2026-03-01T09:00:00.000Z',
    lastUsedAt: null,
    hash: 'b'.repeat(64),
  };
  file.tokens = [token];
  const path = writeFile(tempDir(t), file);
  assert.deepEqual(await checkDataFile(path), []);
  const store = await testStore('memory');
  await store.transaction((tx) => loadDataFile(tx, path));
  assert.equal((await store.webhooks.get('wh_f01'))!.secret, 'whsec_AbCdEf123456');
  assert.deepEqual(await store.tokens.get('tok_f01'), token);
});
