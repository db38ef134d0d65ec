import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { ADMIN_TOKEN } from '../helpers/auth.ts';
import { rawExchange } from './raw.ts';

/** A request on a fresh connection with these header lines, as bytes (latin1, so any byte can be sent). */
const request = (path: string, lines: string[]) =>
  Buffer.from(
    `GET ${path} HTTP/1.1\r\nhost: x\r\n${lines.map((l) => `${l}\r\n`).join('')}connection: close\r\n\r\n`,
    'latin1',
  );

// Hostile and malformed credentials, sent as raw bytes to the real server: each one is a 401 in the error shape
// with the challenge, never a 500, a hang or a token taken for another.
test('AUTH=token: malformed Authorization and X-API-Key headers are 401 UNAUTHENTICATED, never more', async (t) => {
  const app = await buildApp({ config: { logLevel: 'silent', auth: 'token', adminToken: ADMIN_TOKEN } });
  t.after(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;

  const refused: string[][] = [
    ['authorization: Bearer'],
    ['authorization: Bearer '],
    ['authorization: Bearer\t'],
    ['authorization: Bearerx' + ADMIN_TOKEN],
    [`authorization: Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`],
    [`authorization: Bearer ${ADMIN_TOKEN} extra`],
    [`authorization: Bearer ${ADMIN_TOKEN},`],
    [`authorization: Bearer "${ADMIN_TOKEN}"`],
    [`authorization: ${ADMIN_TOKEN}`],
    [`authorization: Bearer ${ADMIN_TOKEN.slice(0, -1)}`],
    [`authorization: Bearer ${ADMIN_TOKEN}x`],
    [`authorization: Bearer ${ADMIN_TOKEN.toUpperCase()}`],
    [`authorization: Bearer ${'A'.repeat(8_000)}`],
    ['authorization: Bearer pmt_\u00e9\u00ff\u0080token'],
    ['authorization: Bearer %00%0a'],
    ['authorization: '],
    ['x-api-key: '],
    ['x-api-key:    '],
    ['x-api-key: pmt_\u00e9'],
    [`x-api-key: ${ADMIN_TOKEN} ${ADMIN_TOKEN}`],
    // A second X-API-Key joins the first (Node's rule for unknown headers): no longer one token.
    [`x-api-key: ${ADMIN_TOKEN}`, `x-api-key: ${ADMIN_TOKEN}`],
    // Authorization, when sent, is the one read: a bad one is not rescued by a good X-API-Key.
    ['authorization: Bearer pmt_nonsense', `x-api-key: ${ADMIN_TOKEN}`],
    // A token in the query string of a route that does not take one there.
    [],
  ];
  for (const lines of refused) {
    const path = lines.length === 0 ? `/api/tasks?access_token=${ADMIN_TOKEN}` : '/api/tasks';
    const res = await rawExchange(port, [request(path, lines)], { giveUpMs: 5_000 });
    const what = JSON.stringify(lines).slice(0, 120);
    assert.equal(res.status, 401, `${what}: ${res.body.slice(0, 200)}`);
    assert.match(res.headers['www-authenticate'] ?? '', /^Bearer realm="pm-service"/, what);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', what);
    assert.equal(JSON.parse(res.body).error.code, 'UNAUTHENTICATED', what);
    assert.ok(!res.body.includes(ADMIN_TOKEN.slice(10)), `${what}: the answer repeats the token`);
  }

  // Node keeps the first of two Authorization headers: the request is the first one's.
  const twice = await rawExchange(port, [
    request('/api/tasks/task_001', [`authorization: Bearer ${ADMIN_TOKEN}`, 'authorization: Bearer pmt_other']),
  ]);
  assert.equal(twice.status, 200);
  const swapped = await rawExchange(port, [
    request('/api/tasks/task_001', ['authorization: Bearer pmt_other', `authorization: Bearer ${ADMIN_TOKEN}`]),
  ]);
  assert.equal(swapped.status, 401);
  // Headers over MAX_HEADER_SIZE are refused before any of this.
  const huge = await rawExchange(port, [request('/api/tasks', [`authorization: Bearer ${'A'.repeat(20_000)}`])]);
  assert.equal(huge.status, 431);
});
