import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldsOf, testApp } from '../helpers/app.ts';
import { AS_ADMIN, authApp, bearer } from '../helpers/auth.ts';
import { assertError } from '../http/assert-error.ts';

const NOW = '2026-11-22T10:00:00.000Z';
const VALUE = /^pmt_[A-Za-z0-9]{40}$/;
const PUBLIC_KEYS = ['createdAt', 'description', 'expiresAt', 'id', 'lastUsedAt', 'scopes', 'username'];
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

test('POST /api/tokens answers 201 with the value, once; reads never show it; only its SHA-256 is stored', async (t) => {
  const { api, store } = await testApp(t);
  const created = await api.post('/api/tokens', {
    username: 'ci-bot',
    scopes: ['write'],
    description: 'CI',
    expiresAt: '2027-01-01T00:00:00Z',
  });
  assert.equal(created.status, 201);
  const { token, ...fields } = created.body.data;
  assert.match(token, VALUE);
  assert.match(fields.id, /^tok_/);
  assert.deepEqual(fields, {
    id: fields.id,
    username: 'ci-bot',
    scopes: ['write'],
    description: 'CI',
    expiresAt: '2027-01-01T00:00:00.000Z',
    createdAt: NOW,
    lastUsedAt: null,
  });

  const one = await api.get(`/api/tokens/${fields.id}`);
  assert.equal(one.status, 200);
  assert.deepEqual(one.body.data, fields);
  const list = await api.get('/api/tokens');
  assert.deepEqual(list.body, { data: [fields], count: 1 });
  assert.deepEqual((await api.get('/api/tokens?username=nobody')).body, { data: [], count: 0 });
  for (const res of [one, list]) assert.doesNotMatch(res.text, /pmt_|hash/);

  const stored = await store.tokens.get(fields.id);
  assert.deepEqual(Object.keys(stored!).sort(), [...PUBLIC_KEYS, 'hash'].sort());
  assert.equal(stored!.hash, sha256(token));
  assert.doesNotMatch(JSON.stringify(await store.tokens.list()), new RegExp(token.slice(4)));
  // Tokens are credentials, not project records: no activity entry.
  assert.equal((await api.get('/api/activity-log?resourceType=token')).body.total, 0);

  const second = await api.post('/api/tokens', { username: 'ci-bot', scopes: ['read', 'read'] });
  assert.notEqual(second.body.data.token, token);
  assert.deepEqual(second.body.data.scopes, ['read'], 'duplicate scopes are removed');
  assert.equal(second.body.data.expiresAt, null);
  assert.equal(second.body.data.description, '');
});

test('POST /api/tokens refuses a missing username, unknown or no scopes, and an expiry not in the future or not storable', async (t) => {
  const { api } = await testApp(t);
  const cases: [object, string[]][] = [
    [{ scopes: ['read'] }, ['username']],
    [{ username: '  ', scopes: ['read'] }, ['username']],
    [{ username: 'a', scopes: ['read', 'superuser'] }, ['scopes[1]']],
    [{ username: 'a', scopes: [] }, ['scopes']],
    [{ username: 'a' }, ['scopes']],
    [{ username: 'a', scopes: 'read' }, ['scopes']],
    [{ username: 'a', scopes: ['read'], expiresAt: '2026-11-22T09:59:59.999Z' }, ['expiresAt']],
    [{ username: 'a', scopes: ['read'], expiresAt: NOW }, ['expiresAt']],
    [{ username: 'a', scopes: ['read'], expiresAt: 'tomorrow' }, ['expiresAt']],
    // RFC 3339 allows a leap second; JavaScript cannot read one, and no store keeps it.
    [{ username: 'a', scopes: ['read'], expiresAt: '2027-01-01T23:59:60Z' }, ['expiresAt']],
    [{ username: 'a', scopes: ['read'], expiresAt: '9999-12-31T23:59:59-01:00' }, ['expiresAt']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.post('/api/tokens', body);
    assertError(res, 400, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(res), fields, JSON.stringify(body));
  }
  assert.equal((await api.get('/api/tokens')).body.count, 0);
});

test('tokens have no update (405); an unknown one is 404; DELETE answers the delete shape', async (t) => {
  const { api } = await testApp(t);
  const { id } = (await api.post('/api/tokens', { username: 'a', scopes: ['read'] })).body.data;
  assertError(await api.patch(`/api/tokens/${id}`, { scopes: ['admin'] }), 405, 'METHOD_NOT_ALLOWED');
  assertError(await api.get('/api/tokens/tok_999'), 404, 'NOT_FOUND');
  assert.deepEqual((await api.delete(`/api/tokens/${id}`)).body, { data: { id, deleted: true } });
  assertError(await api.delete(`/api/tokens/${id}`), 404, 'NOT_FOUND');
});

test('AUTH=token: a token works until DELETE revokes it, at once', async (t) => {
  const { api, issue } = await authApp(t);
  const { token, id } = await issue({ username: 'bob', scopes: ['read'] });
  assert.equal((await api.get('/api/tasks/task_001', bearer(token))).status, 200);
  assert.equal((await api.delete(`/api/tokens/${id}`, AS_ADMIN)).status, 200);
  const refused = assertError(await api.get('/api/tasks/task_001', bearer(token)), 401, 'UNAUTHENTICATED');
  assert.match(refused.message, /unknown, revoked or expired/);
  assertError(await api.get('/api/tasks/task_001', { 'x-api-key': token }), 401, 'UNAUTHENTICATED');
});

test('AUTH=token: a token stops working when it expires', async (t) => {
  const { api, issue, clock } = await authApp(t);
  const { token } = await issue({ username: 'bob', scopes: ['read'], expiresAt: '2026-11-22T11:00:00.000Z' });
  assert.equal((await api.get('/api/projects', bearer(token))).status, 200);
  clock.set('2026-11-22T10:59:59.999Z');
  assert.equal((await api.get('/api/projects', bearer(token))).status, 200);
  clock.set('2026-11-22T11:00:00.000Z');
  const res = await api.get('/api/projects', bearer(token));
  assertError(res, 401, 'UNAUTHENTICATED');
  assert.equal(res.headers['www-authenticate'], 'Bearer realm="pm-service", error="invalid_token"');
});

test('AUTH=token: lastUsedAt is the time of the last use, written at most once a second per token', async (t) => {
  const { api, issue, clock } = await authApp(t);
  const { token, id } = await issue({ username: 'bob', scopes: ['read'] });
  const lastUsed = async () => (await api.get(`/api/tokens/${id}`, AS_ADMIN)).body.data.lastUsedAt;
  assert.equal(await lastUsed(), null);

  await api.get('/api/tasks', bearer(token));
  assert.equal(await lastUsed(), NOW);
  clock.advance(999);
  await api.get('/api/tasks', { 'x-api-key': token });
  assert.equal(await lastUsed(), NOW, 'within the second: not written again');
  clock.advance(1);
  await api.get('/api/tasks', bearer(token));
  assert.equal(await lastUsed(), '2026-11-22T10:00:01.000Z');
  // A refused request still uses the token (it was valid): 403 counts too.
  clock.advance(5_000);
  assertError(await api.delete('/api/tasks/task_001', bearer(token)), 403, 'FORBIDDEN');
  assert.equal(await lastUsed(), '2026-11-22T10:00:06.000Z');
});
