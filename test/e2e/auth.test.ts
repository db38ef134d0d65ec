/**
 * AUTH=token and RATE_LIMIT through the real start command: a start without ADMIN_TOKEN fails with exit code 2
 * naming it; over real HTTP, the 401 with its challenge, a token issued, used and revoked, the rate-limit headers
 * and 429, tokens kept across a restart on a durable store, and no credential in the process's output.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { openStore } from '../../src/store/index.ts';
import { killAll, runUntilExit, startServer, type ServerProcess } from '../helpers/server-process.ts';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdefghijklmnop';

test('AUTH=token without ADMIN_TOKEN, or with a short one, ends the start with exit code 2 naming it', async () => {
  const missing = await runUntilExit(['--auth', 'token']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^invalid configuration: ADMIN_TOKEN \(--admin-token\): is required with AUTH=token/);
  assert.equal(missing.stderr.trim().split('\n').length, 1);
  const short = await runUntilExit([], { AUTH: 'token', ADMIN_TOKEN: 'too-short-a-secret' });
  assert.equal(short.code, 2);
  assert.match(short.stderr, /ADMIN_TOKEN \(--admin-token\): must be at least 32 characters long/);
  assert.doesNotMatch(short.stderr + short.stdout, /too-short-a-secret/);
});

async function call(server: ServerProcess, path: string, init: RequestInit & { token?: string } = {}) {
  const { token, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token) headers.set('authorization', `Bearer ${token}`);
  if (rest.body) headers.set('content-type', 'application/json');
  const res = await fetch(new URL(path, server.baseUrl), { ...rest, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text) };
}

test('over real HTTP: 401 with its challenge, a token issued, used and revoked, 429; no credential in the logs', async (t) => {
  const server = await startServer([], { AUTH: 'token', ADMIN_TOKEN, RATE_LIMIT: '40/1m', LOG_LEVEL: 'info' });
  t.after(() => killAll(server.child));

  const anonymous = await call(server, '/api/tasks');
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body.error.code, 'UNAUTHENTICATED');
  assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer realm="pm-service"');
  assert.equal(anonymous.headers.get('x-ratelimit-limit'), '40');
  assert.equal((await call(server, '/api/health')).status, 200);

  const created = await call(server, '/api/tokens', {
    method: 'POST',
    token: ADMIN_TOKEN,
    body: JSON.stringify({ username: 'dana', scopes: ['write'] }),
  });
  assert.equal(created.status, 201);
  const { token, id } = created.body.data as { token: string; id: string };
  const patched = await call(server, '/api/tasks/task_001', {
    method: 'PATCH',
    token,
    headers: { 'x-actor': 'mallory' },
    body: JSON.stringify({ priority: 'low' }),
  });
  assert.equal(patched.status, 200);
  const [entry] = (await call(server, '/api/activity-log?resourceId=task_001&limit=1', { token })).body.data;
  assert.equal(entry.actor, 'dana');
  assert.equal((await call(server, `/api/tasks?access_token=${token}`)).status, 401);

  const used = await call(server, `/api/tokens/${id}`, { token: ADMIN_TOKEN });
  assert.notEqual(used.body.data.lastUsedAt, null);
  assert.equal((await call(server, '/api/tasks/task_001', { headers: { 'x-api-key': token } })).status, 200);

  assert.equal((await call(server, `/api/tokens/${id}`, { method: 'DELETE', token: ADMIN_TOKEN })).status, 200);
  assert.equal((await call(server, '/api/tasks/task_001', { token })).status, 401);

  // The limit: 40 a minute per token; the admin token has used a few of its own.
  let limited: Awaited<ReturnType<typeof call>> | undefined;
  for (let i = 0; i < 45 && !limited; i++) {
    const res = await call(server, '/api/projects', { token: ADMIN_TOKEN });
    if (res.status === 429) limited = res;
  }
  assert.ok(limited, 'a 429 within 45 requests');
  assert.equal(limited.body.error.code, 'RATE_LIMITED');
  assert.ok(Number(limited.headers.get('retry-after')) > 0);
  assert.equal(limited.headers.get('x-ratelimit-remaining'), '0');

  server.child.kill('SIGTERM');
  await server.exited;
  const output = server.output() + server.errors();
  assert.match(output, /"url":"\/api\/tasks\?access_token=\[Redacted\]"/);
  for (const secret of [ADMIN_TOKEN, token, token.slice(4)]) assert.ok(!output.includes(secret), 'a token in the logs');
});

test('a durable store keeps tokens across a restart: the same value works, its lastUsedAt is kept', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-auth-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const config = { logLevel: 'silent' as const, auth: 'token' as const, adminToken: ADMIN_TOKEN };
  const open = async () => buildApp({ config, store: await openStore({ dataDir: dir }), seed: false });
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  const first = await open();
  const created = await first.inject({
    method: 'POST',
    url: '/api/tokens',
    headers: admin,
    payload: { username: 'erin', scopes: ['read'] },
  });
  const { token, id } = created.json().data as { token: string; id: string };
  assert.equal((await first.inject({ url: '/api/projects', headers: { 'x-api-key': token } })).statusCode, 200);
  await first.close();

  const second = await open();
  t.after(() => second.close());
  assert.equal((await second.inject({ url: '/api/projects', headers: { 'x-api-key': token } })).statusCode, 200);
  const kept = (await second.inject({ url: `/api/tokens/${id}`, headers: admin })).json().data;
  assert.equal(kept.username, 'erin');
  assert.notEqual(kept.lastUsedAt, null);
  assert.equal((await second.inject({ method: 'DELETE', url: `/api/tokens/${id}`, headers: admin })).statusCode, 200);
  assert.equal((await second.inject({ url: '/api/projects', headers: { 'x-api-key': token } })).statusCode, 401);
});
