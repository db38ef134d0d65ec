/**
 * Conflicting writes at once on one PostgreSQL database from two instances of the service (issue 14 point 5):
 * `If-Match` lets exactly one of them win, and a project deleted while tasks are created in it leaves no task
 * behind; nothing answers 500. Each instance has its own connection pool, as two processes would.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/app.ts';
import { openStore } from '../../src/store/index.ts';
import { Api, type Res } from '../helpers/app.ts';
import { assertError } from '../http/assert-error.ts';
import { testServer } from '../store/sql-harness.ts';

const found = await testServer();
const skip = 'skip' in found ? found.skip : undefined;

/** Two instances on one new database, both closed (and the database dropped) when the test ends. */
async function twoInstances(t: { after: (fn: () => Promise<void>) => void }): Promise<[Api, Api]> {
  if (!('server' in found)) throw new Error('no server');
  const server = found.server;
  t.after(() => server.dropAll());
  const url = await server.database();
  const apis: Api[] = [];
  for (let i = 0; i < 2; i++) {
    const store = await openStore({ databaseUrl: url, poolSize: 10 });
    const app = await buildApp({ store, seed: false, config: { logLevel: 'silent' } });
    t.after(() => app.close());
    apis.push(new Api(app));
  }
  return apis as [Api, Api];
}

const statuses = (answers: Res[]) => answers.map((r) => r.status).sort((a, b) => a - b);

test('20 PATCHes with the same If-Match from two instances: exactly one wins, 19 are 412', { skip }, async (t) => {
  const [a, b] = await twoInstances(t);
  const current = await a.get('/api/tasks/task_001');
  const etag = current.headers.etag as string;
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      (i % 2 === 0 ? a : b).patch('/api/tasks/task_001', { title: `Title ${i}` }, { 'if-match': etag }),
    ),
  );
  const winners = answers.filter((r) => r.status === 200);
  assert.equal(winners.length, 1, `statuses: ${statuses(answers).join(', ')}`);
  for (const r of answers.filter((r) => r.status !== 200)) assertError(r, 412, 'PRECONDITION_FAILED');
  // Both instances read the winner's write, at the version it answered.
  for (const api of [a, b]) {
    const now = await api.get('/api/tasks/task_001');
    assert.equal(now.body.data.title, winners[0]!.body.data.title);
    assert.equal(now.headers.etag, winners[0]!.headers.etag);
  }
});

test(
  '120 PATCHes of one task at once from two instances, without If-Match: every one is applied, none is a 503',
  { skip },
  async (t) => {
    const [a, b] = await twoInstances(t);
    const changes = (i: number) => ({
      status: (['todo', 'in_progress', 'done'] as const)[i % 3],
      assignee: ['alice', 'bob', 'carol', 'dana'][i % 4],
      priority: (['low', 'medium', 'high'] as const)[i % 3],
    });
    const answers = await Promise.all(
      Array.from({ length: 120 }, (_, i) => (i % 2 === 0 ? a : b).patch('/api/tasks/task_001', changes(i))),
    );
    assert.deepEqual(
      statuses(answers),
      Array(120).fill(200),
      'writes to one record queue behind each other instead of giving up',
    );
    // The last one applied is what both instances read.
    const last = answers.reduce((x, y) => (y.body.data.updatedAt > x.body.data.updatedAt ? y : x));
    for (const api of [a, b]) assert.deepEqual((await api.get('/api/tasks/task_001')).body.data, last.body.data);
  },
);

test('concurrent DELETEs with the same If-Match: one 200, the rest 412 or 404', { skip }, async (t) => {
  const [a, b] = await twoInstances(t);
  const etag = (await a.get('/api/tasks/task_002')).headers.etag as string;
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).delete('/api/tasks/task_002', { 'if-match': etag })),
  );
  assert.equal(answers.filter((r) => r.status === 200).length, 1, statuses(answers).join(', '));
  for (const r of answers.filter((r) => r.status !== 200)) {
    assert.ok(r.status === 404 || r.status === 412, `${r.status} ${r.text}`);
  }
});

test(
  'a project deleted by two instances while tasks are created in it: no task outlives it, no 500',
  { skip },
  async (t) => {
    const [a, b] = await twoInstances(t);
    for (let round = 0; round < 3; round++) {
      const project = (await a.post('/api/projects', { name: `Doomed ${round}` })).body.data.id as string;
      const creates = Array.from({ length: 12 }, (_, i) =>
        (i % 2 === 0 ? a : b).post('/api/tasks', { projectId: project, title: `Task ${i}` }),
      );
      const deletes = [a.delete(`/api/projects/${project}`), b.delete(`/api/projects/${project}`)];
      const created = await Promise.all(creates);
      const deleted = await Promise.all(deletes);

      assert.deepEqual(statuses(deleted), [200, 404], 'one delete wins, the other finds it gone');
      assertError(
        deleted.find((r) => r.status === 404)!,
        404,
        'NOT_FOUND',
      );
      for (const r of created) {
        if (r.status === 201) continue;
        const e = assertError(r, 400, 'VALIDATION_ERROR');
        assert.equal(e.details?.[0]?.field, 'projectId', r.text);
      }
      // Every task acknowledged went with its project, on both instances.
      for (const api of [a, b]) {
        assert.deepEqual((await api.get(`/api/tasks?projectId=${project}`)).body.data, []);
        for (const r of created.filter((r) => r.status === 201)) {
          assert.equal((await api.get(`/api/tasks/${r.body.data.id}`)).status, 404);
        }
      }
    }
  },
);
