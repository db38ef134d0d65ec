/**
 * SEED_FILE through the real start command: a bad file ends the start with exit 2 and one line per problem, no
 * stack, nothing loaded; a good one is what the service starts with in memory, and what an empty DATA_DIR folder
 * is filled with (and again on RESET_DATA=true), never a folder that already holds records.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killAll, runUntilExit, startServer, type ServerProcess } from '../helpers/server-process.ts';
import { TEN_TASKS, tempDir, tenTasks, writeFile } from './helpers.ts';

const GOOD = fileURLToPath(TEN_TASKS);

/** What the service wrote to stderr: npm's own lines (`npm warn …`) left out. */
const ownLines = (stderr: string) => stderr.split('\n').filter((l) => l !== '' && !l.startsWith('npm '));

/** A fresh embedded database takes seconds to make, many more while other suites run beside it. */
const SLOW = { startTimeoutMs: 90_000 };

async function start(t: TestContext, env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServer([], env, SLOW);
  t.after(() => killAll(server.child));
  return server;
}

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0, server.errors());
}

async function get(server: ServerProcess, path: string): Promise<{ status: number; total: string | null; body: any }> {
  const res = await fetch(new URL(path, server.baseUrl));
  return { status: res.status, total: res.headers.get('x-total-count'), body: await res.json() };
}

/** The ids of the tasks the service answers, in its order. */
const taskIds = async (server: ServerProcess) =>
  ((await get(server, '/api/tasks')).body.data as { id: string }[]).map((task) => task.id);

const FIXTURE_IDS = tenTasks().tasks.map((task: { id: string }) => task.id);

test('npm start with a bad SEED_FILE: exit 2, one line per problem naming file, place and mistake, no stack', async (t) => {
  const file = tenTasks();
  file.tasks[3].projectId = 'proj_x';
  file.tasks[5].id = 'task_f02';
  file.projects[0].status = 'paused';
  const path = writeFile(tempDir(t), file);
  const { code, stdout, stderr } = await runUntilExit(['--port', '0'], { SEED_FILE: path }, { npm: true });
  assert.equal(code, 2, stderr);
  assert.deepEqual(ownLines(stderr), [
    'fixtures.json: tasks[5].id: "task_f02" is already the id of tasks[1]',
    'fixtures.json: projects[0].status: must be one of: planned, active, completed',
    'fixtures.json: tasks[3].projectId: no project "proj_x"',
  ]);
  assert.doesNotMatch(stderr + stdout, /^\s+at /m);
  assert.doesNotMatch(stdout, /Server listening/);
});

test('--seed-file naming no file, or a file that is not JSON: exit 2 with one line', async (t) => {
  const dir = tempDir(t);
  const missing = await runUntilExit(['--port', '0', '--seed-file', join(dir, 'fixtures.json')]);
  assert.equal(missing.code, 2, missing.stderr);
  assert.deepEqual(ownLines(missing.stderr), ['fixtures.json: cannot be read: no such file']);

  const text = await runUntilExit(['--port', '0', '--seed-file', writeFile(dir, 'id,title\n')]);
  assert.equal(text.code, 2, text.stderr);
  assert.deepEqual(ownLines(text.stderr), ['fixtures.json: line 1, column 1: not JSON: expected a value']);
});

test('in memory, SEED_FILE is what the service starts with instead of the samples', async (t) => {
  const server = await start(t, { SEED_FILE: GOOD });
  assert.deepEqual(await taskIds(server), FIXTURE_IDS);
  assert.equal((await get(server, '/api/tasks?limit=2')).total, '10');
  assert.equal((await get(server, '/api/projects/proj_001')).status, 404);
  await stop(server);
});

test('DATA_DIR: SEED_FILE fills an empty folder, not one with records; RESET_DATA loads it again; a bad file changes nothing', async (t) => {
  const dir = tempDir(t);
  const env = { DATA_DIR: join(dir, 'data'), SEED_FILE: GOOD };

  // An empty folder: filled from the file.
  let server = await start(t, env);
  assert.deepEqual(await taskIds(server), FIXTURE_IDS);
  const created = await fetch(new URL('/api/tasks', server.baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ projectId: 'proj_app', title: 'Kept across restarts' }),
  });
  assert.equal(created.status, 201);
  const task = ((await created.json()) as { data: { id: string } }).data;
  await stop(server);

  // The folder holds records: the file is not loaded again, the records stay as they are.
  server = await start(t, env);
  assert.deepEqual(await taskIds(server), [...FIXTURE_IDS, task.id]);
  await stop(server);

  // RESET_DATA with a bad file: exit 2, and the reset did not happen.
  const bad = tenTasks();
  bad.timeEntries[0].taskId = 'task_gone';
  const badPath = writeFile(dir, bad);
  const refused = await runUntilExit(['--port', '0'], { ...env, SEED_FILE: badPath, RESET_DATA: 'true' }, SLOW);
  assert.equal(refused.code, 2, refused.stderr);
  assert.deepEqual(ownLines(refused.stderr), ['fixtures.json: timeEntries[0].taskId: no task "task_gone"']);
  server = await start(t, env);
  assert.deepEqual(await taskIds(server), [...FIXTURE_IDS, task.id]);
  await stop(server);

  // RESET_DATA with the good file: exactly the file again.
  server = await start(t, { ...env, RESET_DATA: 'true' });
  assert.deepEqual(await taskIds(server), FIXTURE_IDS);
  assert.equal((await get(server, `/api/tasks/${task.id}`)).status, 404);
  await stop(server);
});

test('DATA_DIR: a folder first filled with the samples keeps them when a SEED_FILE is set later', async (t) => {
  const env = { DATA_DIR: join(tempDir(t), 'data') };
  let server = await start(t, env);
  const samples = await taskIds(server);
  assert.ok(samples.includes('task_001'));
  await stop(server);

  server = await start(t, { ...env, SEED_FILE: GOOD });
  assert.deepEqual(await taskIds(server), samples);
  await stop(server);
});
