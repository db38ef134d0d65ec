import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startServer } from '../helpers/server-process.ts';

// The tests' servers check nesting (helpers/server-process.ts); as users start it, the same API without the check.
for (const env of [{}, { CHECK_NESTED_TRANSACTIONS: 'false' }] as Record<string, string>[]) {
  const name = `the server process serves the seeded API over real HTTP${env.CHECK_NESTED_TRANSACTIONS ? ', without the nesting check' : ''}`;
  test(name, async (t) => {
    const server = await startServer([], env);
    t.after(() => server.child.kill('SIGKILL'));
    const api = (path: string, init?: RequestInit) => fetch(`${server.baseUrl}${path}`, init);

    const health = await api('/api/health');
    assert.equal(health.status, 200);
    const body = (await health.json()) as any;
    assert.equal(body.status, 'ok');
    assert.ok(!Number.isNaN(Date.parse(body.timestamp)));

    const counts: Record<string, number> = { projects: 5, tasks: 10, teams: 3, comments: 6 };
    for (const [path, count] of Object.entries(counts)) {
      const res = await api(`/api/${path}`);
      assert.equal(((await res.json()) as any).count, count, path);
    }

    const created = await api('/api/tasks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ projectId: 'proj_002', title: 'Ship it', assignee: 'bob' }),
    });
    assert.equal(created.status, 201);
    assert.match(created.headers.get('content-type') ?? '', /^application\/json; charset=utf-8/);
    const task = ((await created.json()) as any).data;
    assert.match(task.id, /^task_[A-Za-z0-9]{12,}$/);
    assert.equal(task.status, 'todo');

    const patched = await api(`/api/tasks/${task.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'done' }),
    });
    const after = ((await patched.json()) as any).data;
    assert.equal(after.status, 'done');
    assert.ok(after.updatedAt > task.updatedAt);

    const missing = await api('/api/tasks/task_missing', { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('x-request-id'), 'trace-123');
    assert.deepEqual(Object.keys(((await missing.json()) as any).error).sort(), ['code', 'message']);
  });
}

test('SIGTERM: the listener closes, a request already in flight completes, the process exits 0', async (t) => {
  const server = await startServer();
  t.after(() => server.child.kill('SIGKILL'));
  const url = new URL('/api/projects', server.baseUrl);
  const payload = JSON.stringify({ name: 'Shutdown survivor' });

  // Send the headers and half the body, then signal, then finish the body: the request is in flight.
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': payload.length } },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.write(payload.slice(0, 5));
    setTimeout(() => {
      server.child.kill('SIGTERM');
      setTimeout(() => req.end(payload.slice(5)), 300);
    }, 300);
  });

  const res = await response;
  assert.equal(res.status, 201);
  assert.equal(JSON.parse(res.body).data.name, 'Shutdown survivor');
  assert.equal(await server.exited, 0);
  assert.match(server.output(), /shutting down/);
  // The listener is closed: new connections are refused.
  await assert.rejects(fetch(`${server.baseUrl}/api/health`));
});
