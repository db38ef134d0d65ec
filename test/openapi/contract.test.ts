import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tasks } from '../../src/store/seed-data.ts';
import { testApp } from '../helpers/app.ts';
import { contract, type Received } from '../helpers/contract.ts';

// The check every `Api` response goes through (test/helpers/contract.ts), shown to catch what it is for.

const json = 'application/json; charset=utf-8';
const got = (method: string, url: string, status: number, body?: unknown, contentType = json): Received => ({
  method,
  url,
  status,
  contentType: body === undefined ? undefined : contentType,
  text: body === undefined ? '' : JSON.stringify(body),
});
const notFound = { error: { code: 'NOT_FOUND', message: "Task 'task_999' was not found" } };

test('a response as documented passes', async () => {
  const c = await contract();
  assert.deepEqual(c.check(got('GET', '/api/tasks/task_001?x=1', 200, { data: tasks[0] })), []);
  assert.deepEqual(c.check(got('GET', '/api/tasks/task_999', 404, notFound)), []);
  assert.deepEqual(c.check(got('GET', '/api/tasks/task_001', 304)), []);
  assert.deepEqual(c.check(got('HEAD', '/api/tasks/task_001', 200)), []);
  assert.deepEqual(c.check(got('OPTIONS', '/api/tasks', 204)), []);
});

test('a body that does not match the schema of its status fails, naming the field', async () => {
  const c = await contract();
  const [problem] = c.check(got('GET', '/api/tasks/task_001', 200, { data: { ...tasks[0], status: 'bogus' } }));
  assert.match(problem!, /GET \/api\/tasks\/\{id\} → 200.*\/data\/status must be equal to one of the allowed values/);
  assert.match(c.check(got('GET', '/api/tasks', 200, { data: [tasks[0]] }))[0]!, /must have required property 'count'/);
  assert.match(c.check(got('GET', '/api/tasks/task_001', 304, { data: tasks[0] }))[0]!, /documented without a body/);
  assert.match(
    c.check(got('GET', '/api/tasks/task_001', 200, { data: tasks[0] }, 'text/html'))[0]!,
    /content-type text\/html/,
  );
});

test('a status the operation does not list fails', async () => {
  const c = await contract();
  const [problem] = c.check(got('GET', '/api/tasks/task_001', 409, notFound));
  assert.match(problem!, /status 409 is not documented \(listed: 200, 304, 404, 405, 408, 431, 500, 503\)/);
  assert.match(
    c.check(got('DELETE', '/api/tasks/task_001', 201, { data: tasks[0] }))[0]!,
    /status 201 is not documented/,
  );
});

test('answers to paths without an operation must be the shared error', async () => {
  const c = await contract();
  assert.deepEqual(
    c.check(got('GET', '/api/nope', 404, { error: { code: 'NOT_FOUND', message: 'No route for GET /api/nope' } })),
    [],
  );
  assert.deepEqual(
    c.check(got('PUT', '/api/activity-log/act_001', 405, { error: { code: 'METHOD_NOT_ALLOWED', message: 'x' } })),
    [],
  );
  assert.match(
    c.check(got('GET', '/api/nope', 404, { message: 'Not Found' }))[0]!,
    /the shared error.*must have required property 'error'/,
  );
  assert.match(c.check(got('GET', '/api/nope', 200, { data: [] }))[0]!, /no such operation/);
  // A path that is not valid URL encoding is refused before routing: never taken for an operation.
  assert.deepEqual(
    c.check(got('GET', '/api/tasks/%E0%A4%A', 400, { error: { code: 'VALIDATION_ERROR', message: 'x' } })),
    [],
  );
});

test('paths are matched to templates as the router does: static segments first, per method', async () => {
  const c = await contract();
  assert.equal(c.templateFor('PATCH', '/api/notifications/read-all'), '/api/notifications/read-all');
  assert.equal(c.templateFor('GET', '/api/notifications/read-all'), '/api/notifications/{id}');
  assert.equal(c.templateFor('GET', '/api/tasks/'), '/api/tasks');
  assert.equal(
    c.templateFor('POST', '/api/webhooks/wh_001/deliveries/dlv_1/redeliver'),
    '/api/webhooks/{id}/deliveries/{deliveryId}/redeliver',
  );
  assert.equal(c.templateFor('PUT', '/api/tasks/task_001'), undefined);
  assert.equal(c.templateFor('GET', '/api/tasks/task_001/extra'), undefined);
});

test('Api.request fails the test whose request got an answer outside the contract', async (t) => {
  const { store, api } = await testApp(t);
  const get = store.tasks.get.bind(store.tasks);
  store.tasks.get = async (id) => {
    const task = await get(id);
    return task && { ...task, status: 'bogus' as 'todo' };
  };
  await assert.rejects(api.get('/api/tasks/task_001'), /breaks the OpenAPI contract:\n.*\/data\/status/);

  // A client error outside the catalogue is answered 400, which this operation does not list.
  store.tasks.get = async () => {
    throw Object.assign(new Error('conflict'), { statusCode: 409 });
  };
  await assert.rejects(api.get('/api/tasks/task_001'), /status 400 is not documented/);
});
