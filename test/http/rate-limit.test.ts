import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Api, testApp } from '../helpers/app.ts';
import { AS_ADMIN, authApp, bearer } from '../helpers/auth.ts';
import { Contract, type OpenApiDoc } from '../helpers/contract.ts';
import { assertError } from './assert-error.ts';
import { RateLimiter } from '../../src/http/rate-limit.ts';

const from = (remoteAddress: string, headers: Record<string, string> = {}) => ({
  method: 'GET' as const,
  url: '/api/projects',
  remoteAddress,
  headers,
});

test('RATE_LIMIT without AUTH: per client address, with X-RateLimit-* on every answer and 429 past it', async (t) => {
  const { app } = await testApp(t, { config: { logLevel: 'silent', rateLimit: { max: 3, windowMs: 60_000 } } });
  const doc = (await app.inject({ url: '/api/openapi.json', remoteAddress: '10.0.0.9' })).json() as OpenApiDoc;
  const api = new Api(app, async () => new Contract(doc));
  for (const remaining of [2, 1, 0]) {
    const res = await api.request(from('10.0.0.1'));
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-ratelimit-limit'], '3');
    assert.equal(res.headers['x-ratelimit-remaining'], String(remaining));
    assert.ok(Number(res.headers['x-ratelimit-reset']) > 0 && Number(res.headers['x-ratelimit-reset']) <= 60);
  }
  const limited = await api.request(from('10.0.0.1'));
  const e = assertError(limited, 429, 'RATE_LIMITED');
  assert.match(e.message, /at most 3 per 1m/);
  assert.ok(Number(limited.headers['retry-after']) > 0 && Number(limited.headers['retry-after']) <= 60);
  assert.equal(limited.headers['x-ratelimit-remaining'], '0');
  assert.equal(limited.headers['x-ratelimit-limit'], '3');
  // Errors count and carry the headers too; another address has its own budget.
  const other = await api.request({ ...from('10.0.0.2'), url: '/api/tasks/nope' });
  assert.equal(other.status, 404);
  assert.equal(other.headers['x-ratelimit-remaining'], '2');
  // Headers a browser may read.
  assert.match(String(other.headers['access-control-expose-headers']), /Retry-After, X-RateLimit-Limit/);
  assert.ok(doc.paths['/api/projects']!.get!.responses['429']);
});

test('RATE_LIMIT: a HEAD request counts once, as the GET it stands for; a path with no route counts too', async (t) => {
  const { app } = await testApp(t, { config: { logLevel: 'silent', rateLimit: { max: 5, windowMs: 60_000 } } });
  const head = await app.inject({ method: 'HEAD', url: '/api/projects', remoteAddress: '10.0.0.5' });
  assert.equal(head.statusCode, 200);
  assert.equal(head.headers['x-ratelimit-remaining'], '4');
  const get = await app.inject({ url: '/api/projects', remoteAddress: '10.0.0.5' });
  assert.equal(get.headers['x-ratelimit-remaining'], '3');
  const none = await app.inject({ url: '/api/nothing-here', remoteAddress: '10.0.0.5' });
  assert.equal(none.statusCode, 404);
  assert.equal(none.headers['x-ratelimit-remaining'], '2');
});

test('RATE_LIMIT with AUTH=token: per token; requests without a valid token count against their address', async (t) => {
  const { api, issue } = await authApp(t, { rateLimit: { max: 3, windowMs: 60_000 } });
  const alice = bearer((await issue({ username: 'alice', scopes: ['read'] })).token);
  const bob = bearer((await issue({ username: 'bob', scopes: ['read'] })).token);
  // authApp issued two tokens as admin (the document it fetched first, a public route, counted against its address):
  // one request of the admin token's budget is left, and no one else's is touched.
  assert.equal((await api.request(from('10.0.0.1', AS_ADMIN))).status, 200);
  assertError(await api.request(from('10.0.0.1', AS_ADMIN)), 429, 'RATE_LIMITED');

  // Two tokens from one address: each has its own budget.
  for (const who of [alice, alice, alice]) assert.equal((await api.request(from('10.0.0.1', who))).status, 200);
  assertError(await api.request(from('10.0.0.1', alice)), 429, 'RATE_LIMITED');
  assert.equal((await api.request(from('10.0.0.1', bob))).status, 200);
  // The same token from another address shares its budget: the limit is the token's.
  assertError(await api.request(from('10.0.0.7', alice)), 429, 'RATE_LIMITED');

  // Bad tokens do not each get a budget: they are counted against the address they come from.
  assertError(await api.request(from('10.0.0.3', bearer('pmt_guess1'))), 401, 'UNAUTHENTICATED');
  assertError(await api.request(from('10.0.0.3', bearer('pmt_guess2'))), 401, 'UNAUTHENTICATED');
  assertError(await api.request(from('10.0.0.3')), 401, 'UNAUTHENTICATED');
  const third = await api.request(from('10.0.0.3', bearer('pmt_guess3')));
  assertError(third, 429, 'RATE_LIMITED');
  assert.ok(Number(third.headers['retry-after']) > 0);
  assertError(await api.request(from('10.0.0.3', { 'x-api-key': 'pmt_guess4' })), 429, 'RATE_LIMITED');
});

test('RATE_LIMIT with AUTH=token: a valid token refused for its scopes counts against the token, not the address', async (t) => {
  const { api, issue } = await authApp(t, { rateLimit: { max: 3, windowMs: 60_000 } });
  const carol = bearer((await issue({ username: 'carol', scopes: ['read'] })).token);
  const write = (headers: Record<string, string>) => ({ ...from('10.0.0.4', headers), method: 'POST' as const });
  for (const remaining of ['2', '1', '0']) {
    const refused = await api.request({ ...write(carol), url: '/api/projects', payload: {} });
    assertError(refused, 403, 'FORBIDDEN');
    assert.equal(refused.headers['x-ratelimit-remaining'], remaining);
  }
  assertError(await api.request(from('10.0.0.4', carol)), 429, 'RATE_LIMITED');
  // The address's own budget is untouched: a request without a token from it is answered (401, not 429).
  const anonymous = await api.request(from('10.0.0.4'));
  assertError(anonymous, 401, 'UNAUTHENTICATED');
  assert.equal(anonymous.headers['x-ratelimit-remaining'], '2');
});

test('the window: it starts at the first request of a key, counts down its reset, and gives the whole budget back once over', () => {
  const limiter = new RateLimiter({ max: 2, windowMs: 60_000 });
  const answer = () => {
    const headers: Record<string, unknown> = {};
    return { headers, reply: { header: (name: string, value: unknown) => (headers[name] = value) } as never };
  };
  const at = (key: string, now: number) => {
    const { headers, reply } = answer();
    return { refusal: limiter.count(key, reply, now), headers };
  };
  const first = at('address:a', 1_000);
  assert.equal(first.refusal, undefined);
  assert.deepEqual(first.headers, { 'x-ratelimit-limit': 2, 'x-ratelimit-remaining': 1, 'x-ratelimit-reset': 60 });
  assert.equal(at('address:a', 30_500).headers['x-ratelimit-reset'], 31);
  const over = at('address:a', 59_000);
  assert.ok(over.refusal);
  assert.equal(over.refusal.statusCode, 429);
  assert.equal(over.refusal.message, 'Too many requests: at most 2 per 1m; try again in 2 seconds');
  assert.deepEqual(over.headers, {
    'x-ratelimit-limit': 2,
    'x-ratelimit-remaining': 0,
    'x-ratelimit-reset': 2,
    'retry-after': 2,
  });
  // Another key has its own window; the first key's ends 60 s after its first request, and the budget is whole again.
  assert.equal(at('token:t1', 59_000).headers['x-ratelimit-remaining'], 1);
  const again = at('address:a', 61_000);
  assert.equal(again.refusal, undefined);
  assert.equal(again.headers['x-ratelimit-remaining'], 1);
  assert.equal(again.headers['x-ratelimit-reset'], 60);
});

test("the guard runs before a route's own hooks: a docs URL the route answers 404 itself is still counted", async (t) => {
  const { app } = await testApp(t, { config: { logLevel: 'silent', rateLimit: { max: 1, windowMs: 60_000 } } });
  // The docs page's own hook answers its second copies of the document 404 (http/openapi.ts).
  const first = await app.inject({ url: '/docs/json', remoteAddress: '10.0.0.7' });
  assert.equal(first.statusCode, 404);
  assert.equal(first.headers['x-ratelimit-remaining'], '0');
  const second = await app.inject({ url: '/docs/json', remoteAddress: '10.0.0.7' });
  assert.equal(second.statusCode, 429);
  assert.equal(second.json().error.code, 'RATE_LIMITED');
});
