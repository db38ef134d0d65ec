import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testApp } from '../helpers/app.ts';
import { ADMIN_TOKEN, AS_ADMIN, authApp, bearer } from '../helpers/auth.ts';
import { assertError } from './assert-error.ts';
import { StoreUnavailableError } from '../../src/store/errors.ts';

const CHALLENGE = 'Bearer realm="pm-service"';

test('without AUTH, everything answers as before: no token needed, credentials ignored, no new headers', async (t) => {
  const { api } = await testApp(t);
  const sent: Record<string, string>[] = [{}, { authorization: 'Bearer nonsense' }, { 'x-api-key': 'nonsense' }];
  for (const headers of sent) {
    const res = await api.get('/api/tasks', headers);
    assert.equal(res.status, 200);
    assert.equal(res.headers['www-authenticate'], undefined);
    assert.equal(res.headers['x-ratelimit-limit'], undefined);
  }
  const created = await api.post('/api/tasks', { projectId: 'proj_001', title: 'x' }, { 'x-actor': 'erin' });
  assert.equal(created.status, 201);
  const [entry] = (await api.get(`/api/activity-log?resourceId=${created.body.data.id}`)).body.data;
  assert.equal(entry.actor, 'erin');
  const preflight = await api.request({
    method: 'OPTIONS',
    url: '/api/tasks',
    headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
  });
  assert.equal(
    preflight.headers['access-control-allow-headers'],
    'Content-Type, X-Actor, X-Request-Id, If-Match, If-None-Match',
  );
  const doc = (await api.get('/api/openapi.json')).body;
  assert.deepEqual(doc.security, []);
  assert.equal(doc.components.securitySchemes, undefined);
});

test('AUTH=token: no token, an unknown one or a malformed header is 401 UNAUTHENTICATED with WWW-Authenticate', async (t) => {
  const { api } = await authApp(t);
  const missing = await api.get('/api/tasks');
  assertError(missing, 401, 'UNAUTHENTICATED');
  assert.equal(missing.headers['www-authenticate'], CHALLENGE);
  for (const headers of [bearer('pmt_unknown'), { 'x-api-key': 'pmt_unknown' }, { authorization: 'Basic YTpi' }]) {
    const res = await api.post('/api/tasks', { projectId: 'proj_001', title: 'x' }, headers);
    assertError(res, 401, 'UNAUTHENTICATED');
    assert.equal(res.headers['www-authenticate'], `${CHALLENGE}, error="invalid_token"`);
  }
  // Unknown paths and methods need a token too: nothing about the API is told to a caller without one.
  assertError(await api.get('/api/nothing-here'), 401, 'UNAUTHENTICATED');
  assertError(await api.get('/api/nothing-here', AS_ADMIN), 404, 'NOT_FOUND');
  assertError(await api.put('/api/tasks/task_001', {}, AS_ADMIN), 405, 'METHOD_NOT_ALLOWED');
});

test('AUTH=token: the health checks, the OpenAPI document, the data file schema, the docs page and / need no token', async (t) => {
  const { app, api } = await authApp(t);
  for (const url of [
    '/api/health',
    '/api/health/ready',
    '/api/openapi.json',
    '/api/export.schema.json',
    '/',
    '/api/health/',
  ]) {
    assert.equal((await api.get(url)).status, 200, url);
  }
  assert.equal((await app.inject({ url: '/docs' })).statusCode, 200);
  assert.equal((await app.inject({ url: '/docs/static/swagger-initializer.js' })).statusCode, 200);
  // A CORS preflight carries no credentials: it is answered, and allows the headers that carry the token.
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/api/tasks',
    headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
  });
  assert.equal(preflight.statusCode, 204);
  assert.match(String(preflight.headers['access-control-allow-headers']), /Authorization, X-API-Key/);
});

test('AUTH=token: the routes that need no token never read one, so they answer while the store does not', async (t) => {
  const { api, issue, store } = await authApp(t);
  const { token } = await issue({ username: 'probe', scopes: ['read'] });
  const tokens = store.tokens as { list: (...args: unknown[]) => Promise<unknown> };
  tokens.list = () => Promise.reject(new StoreUnavailableError('the database is away'));
  for (const url of ['/api/health', '/api/openapi.json', '/']) {
    for (const headers of [bearer(token), bearer('pmt_unknown'), { 'x-api-key': token }]) {
      assert.equal((await api.get(url, headers)).status, 200, `${url} ${JSON.stringify(headers)}`);
    }
  }
  // A route that needs one reads it, and answers what the store's absence means.
  assertError(await api.get('/api/tasks', bearer(token)), 503, 'SERVICE_UNAVAILABLE');
});

test('AUTH=token: a path or method with no route is a 404 or 405 for any valid token, whatever its scopes', async (t) => {
  const { api, issue } = await authApp(t);
  const read = bearer((await issue({ username: 'r', scopes: ['read'] })).token);
  assertError(await api.post('/api/nothing-here', {}, read), 404, 'NOT_FOUND');
  assertError(await api.delete('/api/nothing-here', read), 404, 'NOT_FOUND');
  assertError(await api.put('/api/activity-log/act_001', {}, read), 405, 'METHOD_NOT_ALLOWED');
  assertError(await api.delete('/api/activity-log/act_001', read), 405, 'METHOD_NOT_ALLOWED');
  // A route that exists still needs its scope.
  assertError(await api.delete('/api/tasks/task_001', read), 403, 'FORBIDDEN');
});

test("AUTH=token: a path part of any length needs a token, and then is the route's 404", async (t) => {
  const { api } = await authApp(t);
  const long = 'a'.repeat(1_001);
  for (const url of [`/api/tokens/${long}`, `/api/webhooks/${long}/deliveries`, `/api/nothing-here/${long}`]) {
    assertError(await api.get(url), 401, 'UNAUTHENTICATED');
    assertError(await api.get(url, AS_ADMIN), 404, 'NOT_FOUND');
  }
});

test('AUTH=token: ADMIN_TOKEN and issued tokens, as Bearer (any case) or X-API-Key', async (t) => {
  const { api, issue } = await authApp(t);
  const { token } = await issue({ username: 'bob', scopes: ['read'] });
  for (const headers of [
    AS_ADMIN,
    { 'x-api-key': ADMIN_TOKEN },
    bearer(token),
    { authorization: `bearer ${token}` },
    { authorization: `BEARER   ${token}  ` },
    { 'x-api-key': token },
  ]) {
    assert.equal((await api.get('/api/tasks/task_001', headers)).status, 200, JSON.stringify(headers));
  }
});

test('AUTH=token: only ADMIN_TOKEN itself is the admin: not a part of it, nor it with more after it, nor one byte off', async (t) => {
  const { api } = await authApp(t);
  const last = ADMIN_TOKEN.at(-1)!;
  for (const near of [
    ADMIN_TOKEN.slice(0, -1),
    `${ADMIN_TOKEN}x`,
    `${ADMIN_TOKEN.slice(0, -1)}${last === 'a' ? 'b' : 'a'}`,
    `x${ADMIN_TOKEN.slice(1)}`,
    `${ADMIN_TOKEN}${ADMIN_TOKEN}`,
  ]) {
    assertError(await api.get('/api/tasks/task_001', bearer(near)), 401, 'UNAUTHENTICATED');
  }
  assert.equal((await api.get('/api/tasks/task_001', AS_ADMIN)).status, 200);
});

test('AUTH=token: scopes: read is GET; write adds changes but not webhooks or tokens; admin is everything', async (t) => {
  const { api, issue } = await authApp(t);
  const read = bearer((await issue({ username: 'r', scopes: ['read'] })).token);
  const write = bearer((await issue({ username: 'w', scopes: ['write'] })).token);
  const admin = bearer((await issue({ username: 'a', scopes: ['admin'] })).token);
  const task = { projectId: 'proj_001', title: 'Scoped' };
  const hook = { url: 'https://hooks.example.com/x', events: ['task.created'] };

  for (const who of [read, write, admin]) {
    assert.equal((await api.get('/api/tasks', who)).status, 200);
    assert.equal((await api.request({ method: 'HEAD', url: '/api/projects/proj_001', headers: who })).status, 200);
    assert.equal((await api.get('/api/webhooks', who)).status, 200);
  }
  const forbidden = assertError(await api.post('/api/tasks', task, read), 403, 'FORBIDDEN');
  assert.match(forbidden.message, /needs the write scope; the token has read/);
  assertError(await api.delete('/api/tasks/task_001', read), 403, 'FORBIDDEN');
  assertError(await api.patch('/api/notifications/read-all?username=bob', undefined, read), 403, 'FORBIDDEN');
  assertError(await api.get('/api/tokens', read), 403, 'FORBIDDEN');

  assert.equal((await api.post('/api/tasks', task, write)).status, 201);
  assert.equal((await api.patch('/api/tasks/task_002', { status: 'done' }, write)).status, 200);
  assert.equal((await api.delete('/api/comments/cmt_001', write)).status, 200);
  assertError(await api.post('/api/webhooks', hook, write), 403, 'FORBIDDEN');
  assertError(await api.patch('/api/webhooks/wh_001', { active: false }, write), 403, 'FORBIDDEN');
  assertError(await api.post('/api/webhooks/wh_001/ping', undefined, write), 403, 'FORBIDDEN');
  assertError(await api.get('/api/tokens', write), 403, 'FORBIDDEN');
  assertError(await api.post('/api/tokens', { username: 'x', scopes: ['admin'] }, write), 403, 'FORBIDDEN');

  assert.equal((await api.post('/api/webhooks', hook, admin)).status, 201);
  assert.equal((await api.get('/api/tokens', admin)).status, 200);
  assert.equal((await api.post('/api/tokens', { username: 'x', scopes: ['read'] }, admin)).status, 201);
});

test("AUTH=token: the actor of every change is the token's username; X-Actor is ignored", async (t) => {
  const { api, issue } = await authApp(t);
  const carol = bearer((await issue({ username: 'carol', scopes: ['write'] })).token);
  // X-Actor is not even read: one that would be refused without AUTH is ignored.
  const lies = { ...carol, 'x-actor': 'x'.repeat(500) };
  const res = await api.patch('/api/tasks/task_004', { assignee: 'bob', status: 'done' }, lies);
  assert.equal(res.status, 200);
  const entries = (await api.get('/api/activity-log?resourceId=task_004&since=2026-11-22', carol)).body.data;
  assert.ok(entries.length >= 2);
  for (const e of entries) assert.equal(e.actor, 'carol', e.action);
  const [notification] = (await api.get('/api/notifications?username=bob&type=task_assigned', carol)).body.data;
  assert.match(notification.message, /carol/);

  const comment = await api.post(
    '/api/comments',
    { targetType: 'task', targetId: 'task_004', author: 'bob', body: 'Done' },
    { ...carol, 'x-actor': 'mallory' },
  );
  const [created] = (await api.get(`/api/activity-log?resourceId=${comment.body.data.id}`, carol)).body.data;
  assert.equal(created.actor, 'carol', "not the comment's author, not X-Actor");

  await api.delete('/api/projects/proj_005', AS_ADMIN);
  const deletes = (await api.get('/api/activity-log?action=task.deleted&since=2026-11-22', AS_ADMIN)).body.data;
  assert.deepEqual(
    deletes.map((e: { actor: string }) => e.actor),
    ['admin'],
    'ADMIN_TOKEN acts as admin, cascades included',
  );
});

test('AUTH=token: ?access_token= is read only on routes whose config says queryToken', async (t) => {
  const { app } = await testApp(t, { config: { logLevel: 'silent', auth: 'token', adminToken: ADMIN_TOKEN } });
  app.get('/api/test-query-token', { config: { queryToken: true } }, async (request) => ({
    username: request.principal?.username,
  }));
  const ok = await app.inject({ url: `/api/test-query-token?access_token=${ADMIN_TOKEN}` });
  assert.equal(ok.statusCode, 200);
  assert.deepEqual(ok.json(), { username: 'admin' });
  assert.equal((await app.inject({ url: '/api/test-query-token', headers: AS_ADMIN })).statusCode, 200);
  assert.equal((await app.inject({ url: '/api/test-query-token?access_token=pmt_wrong' })).statusCode, 401);
  assert.equal((await app.inject({ url: `/api/test-query-token?access_token=` })).statusCode, 401);
  // Given twice, it is no token.
  const twice = `/api/test-query-token?access_token=${ADMIN_TOKEN}&access_token=${ADMIN_TOKEN}`;
  assert.equal((await app.inject({ url: twice })).statusCode, 401);
  // Anywhere else the query string is never read for a token.
  const elsewhere = await app.inject({ url: `/api/tasks?access_token=${ADMIN_TOKEN}` });
  assert.equal(elsewhere.statusCode, 401);
  assert.equal(elsewhere.json().error.code, 'UNAUTHENTICATED');
});
