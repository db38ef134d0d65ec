/**
 * The store as the app sees it. What its failures become over HTTP: an unreachable database is 503
 * SERVICE_UNAVAILABLE (never a 500, never a hang), a write the schema refused is the contract's 400 naming the
 * field; the readiness check says which store serves; buildApp's own store is bounded by its setting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConstraintViolationError, StoreUnavailableError } from '../../src/store/errors.ts';
import { MemoryStore } from '../../src/store/memory/store.ts';
import { translateError } from '../../src/store/sql/driver.ts';
import { buildApp } from '../../src/app.ts';
import { Api, testApp } from '../helpers/app.ts';
import { assertError } from './assert-error.ts';

const unavailable = () => new StoreUnavailableError('the database is unavailable: connect ECONNREFUSED 127.0.0.1:5432');

test('GET /api/health/ready: 200 {status: ready, store: memory} on the memory store; /api/health unchanged', async (t) => {
  const { api } = await testApp(t);
  const ready = await api.get('/api/health/ready');
  assert.equal(ready.status, 200);
  assert.deepEqual(ready.body, { status: 'ready', store: 'memory' });
  const health = await api.get('/api/health');
  assert.equal(health.status, 200);
  assert.deepEqual(Object.keys(health.body), ['status', 'timestamp']);
  assert.equal(health.body.status, 'ok');
});

test('a store that cannot reach its database: ready and every request answer 503 in the error shape', async (t) => {
  const store = new MemoryStore();
  const { api } = await testApp(t, { store });
  store.ping = async () => {
    throw unavailable();
  };
  store.tasks.list = async () => {
    throw unavailable();
  };
  store.transaction = async () => {
    throw unavailable();
  };
  const ready = await api.get('/api/health/ready');
  const e = assertError(ready, 503, 'SERVICE_UNAVAILABLE');
  assert.doesNotMatch(e.message, /ECONNREFUSED|5432/, 'the cause stays in the log');
  assert.equal(ready.headers['retry-after'], '1');
  assertError(await api.get('/api/tasks'), 503, 'SERVICE_UNAVAILABLE');
  assertError(await api.post('/api/projects', { name: 'Lost' }), 503, 'SERVICE_UNAVAILABLE');
  // Liveness does not depend on the store.
  assert.equal((await api.get('/api/health')).status, 200);
});

test('a 503 says why the database could not answer: unreachable, too slow, or writes that kept colliding', async (t) => {
  const store = new MemoryStore();
  const { api } = await testApp(t, { store });
  const messages = new Map<string, string>();
  for (const reason of ['unreachable', 'timeout', 'contention', 'schema'] as const) {
    store.transaction = async () => {
      throw new StoreUnavailableError(`the cause (${reason})`, undefined, reason);
    };
    const res = await api.post('/api/projects', { name: 'Refused' });
    const e = assertError(res, 503, 'SERVICE_UNAVAILABLE');
    assert.equal(res.headers['retry-after'], '1');
    assert.doesNotMatch(e.message, /cause/, 'the cause stays in the log');
    messages.set(reason, e.message);
  }
  assert.equal(messages.get('unreachable'), 'The database is unavailable; try again shortly');
  assert.equal(messages.get('timeout'), 'The database did not answer in time; try again shortly');
  assert.match(messages.get('contention')!, /colliding with concurrent changes/);
  // Tables gone (the database made again empty): unavailable, as far as a client can tell.
  assert.equal(messages.get('schema'), messages.get('unreachable'));
});

test('a write the schema refused: 400 naming the field (a missing reference, a taken key), never 500', async (t) => {
  const store = new MemoryStore();
  const { api } = await testApp(t, { store });
  const refusals: [Error, number, string, string | undefined][] = [
    [new ConstraintViolationError('reference', 'projectId', 'fk'), 400, 'VALIDATION_ERROR', 'projectId'],
    [new ConstraintViolationError('invalid', 'status', 'check'), 400, 'VALIDATION_ERROR', 'status'],
    [new ConstraintViolationError('invalid', undefined, 'check'), 400, 'VALIDATION_ERROR', 'body'],
    [new ConstraintViolationError('conflict', 'id', 'unique'), 400, 'VALIDATION_ERROR', 'id'],
  ];
  for (const [error, status, code, field] of refusals) {
    store.transaction = async () => {
      throw error;
    };
    const e = assertError(await api.post('/api/projects', { name: 'Refused' }), status, code);
    assert.equal(e.details?.[0]?.field, field);
  }
});

test("the SQL drivers' errors are translated: connection failures, timeouts and constraint violations", () => {
  const pgError = (code: string, extra: object = {}) =>
    Object.assign(new Error(`pg ${code}`), { code, severity: 'ERROR', ...extra });
  const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  for (const e of [
    socket,
    pgError('57P01'), // pg_terminate_backend
    pgError('08006'),
    pgError('3D000'), // the database was dropped or renamed
    pgError('57014'), // statement_timeout
    new Error('Connection terminated unexpectedly'),
    new Error('timeout exceeded when trying to connect'),
    new Error('Query read timeout'),
  ]) {
    const translated = translateError(e);
    assert.ok(translated instanceof StoreUnavailableError, e.message);
    assert.equal(translated.cause, e);
  }
  // Why, for the answer and the log line: a cut connection, a statement or lock past its timeout, a collision.
  const reasons = [
    [socket, 'unreachable', /^the database is unavailable: /],
    [pgError('57P01'), 'unreachable', /^the database is unavailable: /],
    [pgError('57014'), 'timeout', /^the database did not answer in time: /],
    [pgError('55P03'), 'timeout', /^the database did not answer in time: /],
    [pgError('40001'), 'contention', /^the write kept colliding with concurrent writes: /],
    [pgError('40P01'), 'contention', /^the write kept colliding with concurrent writes: /],
    [pgError('42P01'), 'schema', /^the database does not hold the service's tables \(made again empty\? /],
  ] as const;
  for (const [e, reason, message] of reasons) {
    const translated = translateError(e) as StoreUnavailableError;
    assert.equal(translated.reason, reason, e.message);
    assert.match(translated.message, message);
  }
  const fk = translateError(
    pgError('23503', { detail: 'Key (project_id)=(proj_x) is not present in table "projects".' }),
  ) as ConstraintViolationError;
  assert.deepEqual([fk.kind, fk.field], ['reference', 'projectId']);
  const check = translateError(pgError('23514', { column: undefined })) as ConstraintViolationError;
  assert.deepEqual([check.kind, check.field], ['invalid', undefined]);
  const unique = translateError(pgError('23505', { detail: 'Key (id)=(t1) already exists.' }));
  assert.deepEqual(
    [(unique as ConstraintViolationError).kind, (unique as ConstraintViolationError).field],
    ['conflict', 'id'],
  );
  // Anything else, the service's own errors among them, passes unchanged.
  const own = new Error('a rule');
  assert.equal(translateError(own), own);
  const syntax = pgError('42601');
  assert.equal(translateError(syntax), syntax);
});

test('the default store of buildApp is the memory store bounded by activityLogMax', async (t) => {
  const app = await buildApp({ config: { logLevel: 'silent', activityLogMax: 3 } });
  t.after(() => app.close());
  const api = new Api(app);
  assert.equal((await api.post('/api/projects', { name: 'One more entry' })).status, 201);
  const log = await api.get('/api/activity-log');
  assert.equal(log.body.total, 3);
  assert.equal(log.body.data[0].action, 'project.created');
});
