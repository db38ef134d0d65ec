import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp } from '../helpers/app.ts';
import { JSON_TYPE, assertError } from './assert-error.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ORIGIN = 'https://board.example.com';

// ---------------------------------------------------------------- content type

test('every JSON answer is application/json; charset=utf-8', async (t) => {
  const { api } = await testApp(t);
  const answers = [
    await api.get('/api/tasks'),
    await api.get('/api/tasks/task_001'),
    await api.post('/api/tasks', { projectId: 'proj_001', title: 'x' }),
    await api.patch('/api/tasks/task_001', { title: 'y' }),
    await api.delete('/api/tasks/task_002'),
    await api.get('/api/teams'),
    await api.get('/api/health'),
  ];
  for (const res of answers) assert.equal(res.headers['content-type'], JSON_TYPE, res.text.slice(0, 80));
});

// ---------------------------------------------------------------- CORS

test('a CORS preflight is 204 and allows any origin and the service methods and headers', async (t) => {
  const { api } = await testApp(t);
  for (const url of ['/api/tasks', '/api/tasks/task_001']) {
    const res = await api.request({
      method: 'OPTIONS',
      url,
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'content-type, x-actor',
      },
    });
    assert.equal(res.status, 204, url);
    assert.equal(res.text, '');
    assert.equal(res.headers['access-control-allow-origin'], '*');
    const methods = String(res.headers['access-control-allow-methods']).split(/,\s*/);
    for (const m of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) assert.ok(methods.includes(m), `${m} in ${methods}`);
    const headers = String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
    for (const h of ['content-type', 'x-actor', 'x-request-id']) assert.ok(headers.includes(h), `${h} in ${headers}`);
    assert.ok(res.headers['x-request-id']);
  }
});

test('normal answers carry access-control-allow-origin: * and expose X-Request-Id', async (t) => {
  const { api } = await testApp(t);
  const ok = await api.get('/api/tasks', { origin: ORIGIN });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers['access-control-allow-origin'], '*');
  const exposed = String(ok.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
  assert.ok(exposed.includes('x-request-id'), exposed.join());
  const created = await api.post('/api/tasks', { projectId: 'proj_001', title: 'x' }, { origin: ORIGIN });
  assert.equal(created.headers['access-control-allow-origin'], '*');
  // Errors too, so a browser can read them.
  for (const res of [
    await api.get('/api/tasks/task_nope', { origin: ORIGIN }),
    await api.get('/api/nope', { origin: ORIGIN }),
    await api.put('/api/tasks/task_001', {}, { origin: ORIGIN }),
    await api.post('/api/tasks', {}, { origin: ORIGIN }),
    await api.get('/api/tasks/%E0%A4%A', { origin: ORIGIN }),
  ]) {
    assert.ok(res.status >= 400);
    assert.equal(res.headers['access-control-allow-origin'], '*', `${res.status} ${res.text.slice(0, 80)}`);
  }
});

test('an OPTIONS request that is not a CORS preflight (no Origin or no Access-Control-Request-Method) answers JSON, never text/plain', async (t) => {
  const { api } = await testApp(t);
  for (const headers of [{}, { origin: ORIGIN }, { 'access-control-request-method': 'GET' }] as Record<
    string,
    string
  >[]) {
    const res = await api.request({ method: 'OPTIONS', url: '/api/tasks', headers });
    if (res.status >= 400) assertError(res, res.status, res.body?.error?.code);
    else assert.equal(res.status, 204, JSON.stringify(headers));
  }
});

// ---------------------------------------------------------------- X-Request-Id

test('X-Request-Id is generated (a UUID) when absent, different on every request', async (t) => {
  const { api } = await testApp(t);
  const a = await api.get('/api/tasks');
  const b = await api.get('/api/tasks');
  assert.match(String(a.headers['x-request-id']), UUID);
  assert.match(String(b.headers['x-request-id']), UUID);
  assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
});

test('X-Request-Id is echoed when a plain token is sent, on success and on errors', async (t) => {
  const { api } = await testApp(t);
  for (const id of [
    'abc-123',
    'req_42.retry:1',
    'user@host',
    '0f9c2a5e-1d7b-4c3a-9e8f-123456789abc',
    'x'.repeat(128),
  ]) {
    assert.equal((await api.get('/api/tasks', { 'x-request-id': id })).headers['x-request-id'], id);
  }
  const id = 'trace-77';
  assert.equal((await api.get('/api/tasks/task_nope', { 'x-request-id': id })).headers['x-request-id'], id);
  assert.equal((await api.post('/api/tasks', {}, { 'x-request-id': id })).headers['x-request-id'], id);
  assert.equal((await api.delete('/api/tasks', { 'x-request-id': id })).headers['x-request-id'], id);
  assert.equal((await api.get('/nope', { 'x-request-id': id })).headers['x-request-id'], id);
});

test('an unsafe X-Request-Id (too long, spaces, markup, empty) is replaced by a generated one', async (t) => {
  const { api } = await testApp(t);
  for (const sent of [
    'a'.repeat(300),
    'x'.repeat(129),
    'has spaces',
    'id\twith\ttabs',
    '<script>alert(1)</script>',
    'a/b',
    '',
  ]) {
    const res = await api.get('/api/tasks', { 'x-request-id': sent });
    assert.equal(res.status, 200);
    assert.notEqual(res.headers['x-request-id'], sent);
    assert.match(String(res.headers['x-request-id']), UUID, JSON.stringify(sent));
  }
});
