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

test(
  'AUTH=token: a stream ends at once when its token is revoked here, and nothing after it reaches the client',
  { timeout: 10_000 },
  async (t) => {
    const app = await authApp(t);
    const base = await listening(app.app);
    const { token, id } = await app.issue({ username: 'leaver', scopes: ['read'] });
    const other = await app.issue({ username: 'stayer', scopes: ['read'] });
    const leaving = await SseReader.open(`${base}/api/stream?access_token=${token}`);
    const staying = await SseReader.open(`${base}/api/stream`, bearer(other.token));
    const admin = await SseReader.open(`${base}/api/stream`, AS_ADMIN);
    t.after(() => [leaving, staying, admin].forEach((r) => r.close()));

    assert.equal((await app.api.delete(`/api/tokens/${id}`, AS_ADMIN)).status, 200);
    await leaving.ended;
    assert.ok(
      leaving.comments.some((c) => /revoked or has expired/.test(c)),
      leaving.comments.join('\n'),
    );
    const created = await app.api.post(
      '/api/tasks',
      { projectId: 'proj_002', title: 'After the revocation' },
      AS_ADMIN,
    );
    assert.equal(created.status, 201);
    // The other streams go on, and are sent the change; the revoked one was not.
    for (const reader of [staying, admin]) assert.equal((await reader.take(1))[0]!.event, 'task.created');
    assert.equal(leaving.events.length, 0);
  },
);

test(
  'AUTH=token: a stream whose token expires, or is revoked elsewhere, ends at the next heartbeat',
  { timeout: 10_000 },
  async (t) => {
    const app = await authApp(t, { streamHeartbeatMs: 100 });
    const base = await listening(app.app);
    const now = app.clock.now().getTime();
    const expiring = await app.issue({
      username: 'temp',
      scopes: ['read'],
      expiresAt: new Date(now + 60_000).toISOString(),
    });
    // Revoked by another instance of the service: gone from the store, and this instance not told.
    const elsewhere = await app.issue({ username: 'moved', scopes: ['read'] });
    const lasting = await app.issue({ username: 'stays', scopes: ['read'] });
    const [a, b, c] = await Promise.all(
      [expiring, elsewhere, lasting].map((x) => SseReader.open(`${base}/api/stream`, bearer(x.token))),
    );
    t.after(() => [a, b, c].forEach((r) => r!.close()));

    await app.store.transaction((tx) => tx.tokens.delete(elsewhere.id));
    await b!.ended;
    await new Promise((resolve) => setTimeout(resolve, 300)); // three heartbeats: the expiring token still holds
    assert.ok(c!.comments.some((line) => /keep-alive/.test(line)));
    assert.ok(!a!.comments.some((line) => /revoked/.test(line)), 'not yet expired');
    app.clock.advance(60_000);
    await a!.ended;
    assert.ok(a!.comments.some((line) => /revoked or has expired/.test(line)));
    const created = await app.api.post('/api/tasks', { projectId: 'proj_002', title: 'Later' }, AS_ADMIN);
    assert.equal(created.status, 201);
    assert.equal((await c!.take(1))[0]!.event, 'task.created');
  },
);
