import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { testApp } from '../helpers/app.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The app on a real socket (an ephemeral port on loopback), closed when the test ends. */
async function listening(t: import('node:test').TestContext) {
  const { app, clock } = await testApp(t);
  await app.listen({ port: 0, host: '127.0.0.1' });
  // testApp already closes the app after the test; closing twice is harmless but the listener must go.
  t.after(async () => {
    if (app.server.listening) await app.close();
  });
  const { port } = app.server.address() as AddressInfo;
  return { app, clock, base: `http://127.0.0.1:${port}` };
}

test('over real HTTP: create a task, read it, update it, delete it', async (t) => {
  const { base, clock } = await listening(t);

  const created = await fetch(`${base}/api/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': 'http-create-1' },
    body: JSON.stringify({ projectId: 'proj_002', title: 'Over the wire', assignee: 'carol' }),
  });
  assert.equal(created.status, 201);
  assert.equal(created.headers.get('content-type'), JSON_TYPE);
  assert.equal(created.headers.get('x-request-id'), 'http-create-1');
  const task = ((await created.json()) as any).data;
  assert.deepEqual(task, {
    id: 'task_test00000001',
    projectId: 'proj_002',
    title: 'Over the wire',
    description: '',
    status: 'todo',
    priority: 'medium',
    assignee: 'carol',
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
  });

  const read = await fetch(`${base}/api/tasks/${task.id}`);
  assert.equal(read.status, 200);
  assert.match(String(read.headers.get('x-request-id')), UUID);
  assert.deepEqual(await read.json(), { data: task });

  clock.advance(1_000);
  const patched = await fetch(`${base}/api/tasks/${task.id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'in_progress', projectId: 'proj_001' }),
  });
  assert.equal(patched.status, 200);
  assert.deepEqual(((await patched.json()) as any).data, {
    ...task,
    status: 'in_progress',
    updatedAt: '2026-11-22T10:00:01.000Z',
  });

  const list = await fetch(`${base}/api/tasks?projectId=proj_002&status=in_progress`);
  assert.deepEqual(
    ((await list.json()) as any).data.map((x: any) => x.id),
    ['task_005', 'task_test00000001'],
  );

  // DELETE sent with a JSON content type and no body, as some clients do.
  const deleted = await fetch(`${base}/api/tasks/${task.id}`, {
    method: 'DELETE',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(deleted.status, 200);
  assert.deepEqual(await deleted.json(), { data: { id: task.id, deleted: true } });
});

test('over real HTTP: 404 body, 405 Allow, 400 on bad JSON, CORS and request id headers', async (t) => {
  const { base } = await listening(t);

  const missing = await fetch(`${base}/api/tasks/task_nope`, { headers: { 'x-request-id': 'trace-404' } });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('content-type'), JSON_TYPE);
  assert.equal(missing.headers.get('x-request-id'), 'trace-404');
  const body = (await missing.json()) as any;
  assert.deepEqual(Object.keys(body), ['error']);
  assert.equal(body.error.code, 'NOT_FOUND');
  assert.match(body.error.message, /task_nope/);

  const wrong = await fetch(`${base}/api/projects/proj_001`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get('allow'), 'DELETE, GET, HEAD, PUT');
  assert.equal(((await wrong.json()) as any).error.code, 'METHOD_NOT_ALLOWED');

  const badJson = await fetch(`${base}/api/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"title":',
  });
  assert.equal(badJson.status, 400);
  assert.equal(((await badJson.json()) as any).error.code, 'INVALID_JSON');

  const cors = await fetch(`${base}/api/tasks`, { headers: { origin: 'https://board.example.com' } });
  assert.equal(cors.status, 200);
  assert.equal(cors.headers.get('access-control-allow-origin'), '*');
  assert.equal(((await cors.json()) as any).count, 10);

  const preflight = await fetch(`${base}/api/tasks/task_001`, {
    method: 'OPTIONS',
    headers: { origin: 'https://board.example.com', 'access-control-request-method': 'PATCH' },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
  assert.match(String(preflight.headers.get('access-control-allow-methods')), /PATCH/);

  const unsafeId = await fetch(`${base}/api/health`, { headers: { 'x-request-id': 'a'.repeat(300) } });
  assert.match(String(unsafeId.headers.get('x-request-id')), UUID);
  assert.deepEqual(await unsafeId.json(), { status: 'ok', timestamp: '2026-11-22T10:00:00.000Z' });
});

test('over real HTTP: a body over the limit is 413 in the JSON shape', async (t) => {
  const { base } = await listening(t);
  const res = await fetch(`${base}/api/tasks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ projectId: 'proj_001', title: 'x', description: 'a'.repeat(1_100_000) }),
  });
  assert.equal(res.status, 413);
  assert.equal(res.headers.get('content-type'), JSON_TYPE);
  assert.equal(((await res.json()) as any).error.code, 'PAYLOAD_TOO_LARGE');
});
