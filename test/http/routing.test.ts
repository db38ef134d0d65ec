import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp } from '../helpers/app.ts';
import { assertError } from './assert-error.ts';

// ---------------------------------------------------------------- 404

test('an unknown route is 404 NOT_FOUND in the JSON shape, inside and outside /api', async (t) => {
  const { api } = await testApp(t);
  for (const url of ['/api/nope', '/api/tasks/task_001/comments', '/api', '/nope', '/index.html', '/api//tasks']) {
    const e = assertError(await api.get(url), 404, 'NOT_FOUND');
    assert.match(e.message, /No route/, url);
  }
  assertError(await api.post('/api/nope', { a: 1 }), 404, 'NOT_FOUND');
  assertError(await api.delete('/somewhere/else'), 404, 'NOT_FOUND');
});

test('an unknown record is 404 NOT_FOUND whose message names the resource and the id', async (t) => {
  const { api } = await testApp(t);
  const cases: [string, RegExp][] = [
    ['/api/tasks/task_zz', /Task 'task_zz'/],
    ['/api/teams/team_zz', /Team 'team_zz'/],
    ['/api/comments/cmt_zz', /Comment 'cmt_zz'/],
    ['/api/projects/proj_zz', /Project 'proj_zz'/],
  ];
  for (const [url, message] of cases) {
    assert.match(assertError(await api.get(url), 404, 'NOT_FOUND').message, message);
    assert.match(assertError(await api.delete(url), 404, 'NOT_FOUND').message, message);
  }
});

// ---------------------------------------------------------------- 405

test('a known path with another method is 405 METHOD_NOT_ALLOWED with an Allow header listing the methods', async (t) => {
  const { api } = await testApp(t);
  const cases: ['GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', string, string][] = [
    ['PATCH', '/api/projects/proj_001', 'DELETE, GET, HEAD, PUT'],
    ['DELETE', '/api/teams', 'GET, HEAD, POST'],
    ['PUT', '/api/teams/team_001', 'DELETE, GET, HEAD, PATCH'],
    ['PUT', '/api/tasks/task_001', 'DELETE, GET, HEAD, PATCH'],
    ['POST', '/api/tasks/task_001', 'DELETE, GET, HEAD, PATCH'],
    ['DELETE', '/api/tasks', 'GET, HEAD, POST'],
    ['PATCH', '/api/comments', 'GET, HEAD, POST'],
    ['PUT', '/api/comments/cmt_001', 'DELETE, GET, HEAD, PATCH'],
    ['POST', '/api/health', 'GET, HEAD'],
    ['PUT', '/api/activity-log/act_001', 'GET, HEAD'],
    ['PATCH', '/api/activity-log/act_001', 'GET, HEAD'],
    ['DELETE', '/api/activity-log/act_001', 'GET, HEAD'],
    // Unknown ids too: the path pattern exists.
    ['PUT', '/api/tasks/task_nope', 'DELETE, GET, HEAD, PATCH'],
  ];
  for (const [method, url, allow] of cases) {
    const res = await api.request({
      method,
      url,
      payload: method === 'GET' || method === 'DELETE' ? undefined : '{}',
      headers: { 'content-type': 'application/json' },
    });
    const e = assertError(res, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(res.headers.allow, allow, `${method} ${url}`);
    assert.match(e.message, new RegExp(method));
  }
  // Nothing was changed by a refused method.
  assert.equal((await api.get('/api/projects/proj_001')).body.data.name, 'Website Redesign');
  assert.equal((await api.get('/api/teams')).body.count, 3);
  assert.equal((await api.get('/api/activity-log')).body.total, 10);
});

test('405 with a trailing slash still lists the methods', async (t) => {
  const { api } = await testApp(t);
  const res = await api.patch('/api/projects/proj_001/', { name: 'x' });
  assertError(res, 405, 'METHOD_NOT_ALLOWED');
  assert.equal(res.headers.allow, 'DELETE, GET, HEAD, PUT');
});

test('a path with an empty segment that the router does not match is 404, never a 405 that allows the method', async (t) => {
  const { api } = await testApp(t);
  // Before the fix in src/http/route-table.ts this was "405 GET is not allowed" with Allow: GET, HEAD, POST.
  const res = await api.get('/api//tasks');
  assertError(res, 404, 'NOT_FOUND');
  assert.equal(res.headers.allow, undefined);
  assertError(await api.get('/api/tasks//task_001'), 404, 'NOT_FOUND');
});

// ---------------------------------------------------------------- malformed paths

test('malformed percent-encoding in the path is 400 in the JSON shape, with X-Request-Id', async (t) => {
  const { api } = await testApp(t);
  for (const url of ['/api/tasks/%E0%A4%A', '/api/%E0%A4%A', '/api/tasks/%', '/api/tasks/%zz']) {
    const res = await api.get(url, { 'x-request-id': 'bad-url-1' });
    assertError(res, 400, 'VALIDATION_ERROR');
    assert.equal(res.headers['x-request-id'], 'bad-url-1', url);
  }
  const generated = await api.get('/api/tasks/%E0%A4%A');
  assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/);
});

test('a well-formed percent-encoded id is decoded', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/tasks/task%5F001');
  assert.equal(res.status, 200);
  assert.equal(res.body.data.id, 'task_001');
});

// ---------------------------------------------------------------- trailing slash

test('a trailing slash is ignored', async (t) => {
  const { api } = await testApp(t);
  const list = await api.get('/api/tasks/');
  assert.equal(list.status, 200);
  assert.equal(list.body.count, 10);
  const one = await api.get('/api/tasks/task_001/');
  assert.equal(one.status, 200);
  assert.equal(one.body.data.id, 'task_001');
  const filtered = await api.get('/api/tasks/?status=done');
  assert.deepEqual(
    filtered.body.data.map((x: any) => x.id),
    ['task_001', 'task_004', 'task_009'],
  );
  const created = await api.post('/api/teams/', { name: 'Slash' });
  assert.equal(created.status, 201);
  const patched = await api.patch('/api/teams/team_001/', { name: 'Platform 2' });
  assert.equal(patched.body.data.name, 'Platform 2');
  assert.equal((await api.delete('/api/comments/cmt_001/')).status, 200);
  assertError(await api.get('/api/tasks/task_nope/'), 404, 'NOT_FOUND');
});

test('HEAD is answered where GET is, without a body', async (t) => {
  const { api } = await testApp(t);
  const res = await api.request({ method: 'HEAD', url: '/api/tasks/task_001' });
  assert.equal(res.status, 200);
  assert.equal(res.text, '');
  const missing = await api.request({ method: 'HEAD', url: '/api/tasks/task_nope' });
  assert.equal(missing.status, 404);
  assert.equal(missing.text, '');
});
