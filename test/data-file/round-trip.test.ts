import { after, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/index.ts';
import { MemoryStore } from '../../src/store/memory/store.ts';
import { testApp } from '../helpers/app.ts';
import { testServer } from '../store/sql-harness.ts';
import { run, withoutTime } from './commands.ts';

const dir = mkdtempSync(join(tmpdir(), 'pm-round-trip-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => join(dir, name);
const found = await testServer();
const server = 'server' in found ? found.server : undefined;
after(async () => server?.dropAll());

/**
 * The memory store's records, changed a little through the API, as `GET /api/export` writes them (`memory.json`):
 * made once, by the first test that needs it.
 */
let memoryExport: Promise<string> | undefined;
const fromMemory = (t: TestContext) => (memoryExport ??= exportMemory(t));

async function exportMemory(t: TestContext): Promise<string> {
  const { api, clock } = await testApp(t, { store: new MemoryStore() });
  clock.set('2026-11-23T08:00:00.000Z');
  const made = await api.post('/api/tasks', { projectId: 'proj_002', title: 'Ship it', assignee: 'bob' });
  assert.equal(made.status, 201);
  clock.advance(1000);
  assert.equal((await api.patch(`/api/tasks/${made.body.data.id}`, { status: 'in_progress' })).status, 200);
  assert.equal((await api.delete('/api/projects/proj_004')).status, 200);
  const res = await api.get('/api/export');
  assert.equal(res.status, 200);
  assert.ok(res.text.includes('"Ship it"'));
  writeFileSync(file('memory.json'), res.text);
  return res.text;
}

/** What a store is imported into and exported from: the command-line arguments naming it. */
type Target = () => Promise<string[]>;

const targets: [string, Target, string | undefined][] = [
  ['the embedded store', async () => ['--data-dir', mkdtempSync(join(dir, 'data-'))], undefined],
  ['PostgreSQL', async () => ['--database-url', await server!.database()], 'skip' in found ? found.skip : undefined],
];

for (const [name, target, skip] of targets) {
  describe(`round trip through ${name}`, { skip: skip ?? false }, () => {
    test('memory → import → export: the same file but for exportedAt; the totals kept right', async (t) => {
      const memory = await fromMemory(t);
      const store = await target();
      const imported = await run('import', [file('memory.json'), ...store]);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stderr, /^imported 3 teams, 4 projects, .*activityLog into /);
      const exported = await run('export', store);
      assert.equal(exported.code, 0, exported.stderr);
      assert.equal(withoutTime(exported.stdout), withoutTime(memory));

      const written = JSON.parse(memory);
      const opened = await openStore(storeOptions(store));
      const { api } = await testApp(t, { store: opened, seed: false });
      const tasks = await api.get('/api/tasks?limit=1');
      assert.equal(tasks.headers['x-total-count'], String(written.tasks.length));
      const log = await api.get('/api/activity-log?limit=1');
      assert.equal(log.headers['x-total-count'], String(written.activityLog.length));
      assert.deepEqual(log.body.data[0], written.activityLog.at(-1), 'the newest entry first, as before');
    });

    test('with --include-secrets: secrets and tokens carried over, the files equal whole', async (t) => {
      await fromMemory(t);
      const first = await target();
      assert.equal((await run('import', [file('memory.json'), ...first])).code, 0);
      const opened = await openStore(storeOptions(first));
      await opened.tokens.insert({
        id: 'tok_roundtrip01',
        username: 'alice',
        scopes: ['read', 'admin'],
        description: 'CI',
        expiresAt: null,
        createdAt: '2026-11-23T08:00:00.000Z',
        lastUsedAt: null,
        hash: 'a'.repeat(64),
      });
      await opened.close();
      const withSecrets = await run('export', [...first, '--include-secrets']);
      assert.equal(withSecrets.code, 0, withSecrets.stderr);
      const written = JSON.parse(withSecrets.stdout);
      assert.equal(written.secrets, true);
      assert.match(written.webhooks[0].secret, /^whsec_[A-Za-z0-9]{12}$/);
      assert.deepEqual(
        written.tokens.map((t: { id: string; hash: string }) => [t.id, t.hash]),
        [['tok_roundtrip01', 'a'.repeat(64)]],
      );
      writeFileSync(file(`secrets-${name}.json`), withSecrets.stdout);

      const second = await target();
      assert.equal((await run('import', [file(`secrets-${name}.json`), ...second])).code, 0);
      const again = await run('export', [...second, '--include-secrets']);
      assert.equal(withoutTime(again.stdout), withoutTime(withSecrets.stdout));
      const plain = await run('export', second);
      assert.doesNotMatch(plain.stdout, /whsec_|"tokens"|"hash"/, 'no secret without --include-secrets');
    });

    test('a store with records is refused unchanged; --replace replaces them; a bad file changes nothing', async (t) => {
      const memory = await fromMemory(t);
      const store = await target();
      assert.equal((await run('import', [file('memory.json'), ...store])).code, 0);
      const fixture = file(`fixture-${name}.json`);
      writeFileSync(
        fixture,
        JSON.stringify({
          format: 'pm-service/1',
          projects: [project('proj_only', 'The only one')],
          tasks: [task('task_only', 'proj_only')],
        }),
      );
      const refused = await run('import', [fixture, ...store]);
      assert.equal(refused.code, 3);
      assert.match(refused.stderr, /holds records already: nothing imported \(--replace empties it first\)\n$/);
      assert.equal(withoutTime((await run('export', store)).stdout), withoutTime(memory));

      const bad = file(`bad-${name}.json`);
      writeFileSync(bad, JSON.stringify({ format: 'pm-service/1', tasks: [task('task_x', 'proj_missing')] }));
      const badRun = await run('import', [bad, ...store, '--replace']);
      assert.equal(badRun.code, 2);
      assert.match(badRun.stderr, /tasks\[0\]\.projectId/);
      assert.doesNotMatch(badRun.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(withoutTime((await run('export', store)).stdout), withoutTime(memory));

      const replaced = await run('import', [fixture, ...store, '--replace']);
      assert.equal(replaced.code, 0, replaced.stderr);
      const now = JSON.parse((await run('export', store)).stdout);
      assert.deepEqual(
        now.projects.map((p: { id: string }) => p.id),
        ['proj_only'],
      );
      assert.deepEqual(
        now.tasks.map((t: { id: string }) => t.id),
        ['task_only'],
      );
      assert.deepEqual([now.teams, now.activityLog, now.webhooks], [[], [], []]);
    });
  });
}

describe(
  'import refuses a PostgreSQL database other connections use',
  { skip: 'skip' in found ? found.skip : false },
  () => {
    test('an instance connected: exit 3 and one line; nothing imported', async (t) => {
      await fromMemory(t);
      const url = await server!.database();
      const serving = await openStore({ databaseUrl: url });
      try {
        await serving.ping();
        const refused = await run('import', [file('memory.json'), '--database-url', url, '--replace']);
        assert.equal(refused.code, 3);
        assert.match(refused.stderr, /is in use: \d+ other connections? to the database/);
        assert.equal((await serving.tasks.list()).length, 10, 'still the sample records');
      } finally {
        await serving.close();
      }
    });
  },
);

describe('the commands without a durable store', () => {
  test('export: nothing to export from memory, and where to ask instead', async () => {
    const res = await run('export', []);
    assert.equal(res.code, 2);
    assert.match(res.stderr, /nothing to export: .* GET \/api\/export/);
    assert.equal(res.stdout, '');
  });

  test('import: nothing to import into, and a usage mistake, each one line and exit 2', async (t) => {
    await fromMemory(t);
    assert.match((await run('import', [file('memory.json')])).stderr, /nothing to import into/);
    const both = await run('import', [file('memory.json'), '--data-dir', dir, '--database-url', 'postgres://x/y']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /not both/);
  });
});

function storeOptions(args: string[]): { dataDir?: string; databaseUrl?: string } {
  return args[0] === '--data-dir' ? { dataDir: args[1]! } : { databaseUrl: args[1]! };
}

function project(id: string, name: string) {
  const at = '2026-11-01T09:00:00.000Z';
  return { id, name, description: '', status: 'active', teamId: null, createdAt: at, updatedAt: at };
}

function task(id: string, projectId: string) {
  const at = '2026-11-01T09:00:00.000Z';
  return {
    id,
    projectId,
    title: 'One task',
    description: '',
    status: 'todo',
    priority: 'medium',
    assignee: null,
    createdAt: at,
    updatedAt: at,
  };
}
