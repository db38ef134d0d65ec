/** The event stream with AUTH=token: a read token, by header or (as a browser's EventSource must) in the query. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AS_ADMIN, authApp, bearer } from '../helpers/auth.ts';
import { listening, SseReader } from './sse.ts';

test('AUTH=token: the stream needs a token, by header or access_token=, and only it takes one in the query', async (t) => {
  const app = await authApp(t);
  const base = await listening(app.app);
  const { token, id } = await app.issue({ username: 'wallboard', scopes: ['read'] });

  const refused = await fetch(`${base}/api/stream`);
  assert.equal(refused.status, 401);
  assert.match(refused.headers.get('www-authenticate') ?? '', /^Bearer/);
  assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'UNAUTHENTICATED');

  const readers: SseReader[] = [];
  t.after(() => readers.forEach((r) => r.close()));
  for (const [query, headers] of [
    [`?access_token=${token}`, {}],
    ['', bearer(token)],
  ] as const) {
    const reader = await SseReader.open(`${base}/api/stream${query}`, headers);
    readers.push(reader);
    assert.equal(reader.response.status, 200, query || 'header');
    assert.match(reader.response.headers.get('content-type') ?? '', /^text\/event-stream/);
  }
  const created = await app.api.post('/api/tasks', { projectId: 'proj_001', title: 'On the wall' }, AS_ADMIN);
  assert.equal(created.status, 201);
  for (const reader of readers) {
    const [event] = await reader.take(1);
    assert.equal(event!.event, 'task.created');
    assert.equal(JSON.parse(event!.data).data.id, created.body.data.id);
  }

  // Other routes never read a token from the query.
  const list = await fetch(`${base}/api/tasks?access_token=${token}`);
  assert.equal(list.status, 401);
  await list.body?.cancel();

  // Revoked: refused at once.
  assert.equal((await app.api.delete(`/api/tokens/${id}`, AS_ADMIN)).status, 200);
  const revoked = await fetch(`${base}/api/stream?access_token=${token}`);
  assert.equal(revoked.status, 401);
  await revoked.body?.cancel();
});
