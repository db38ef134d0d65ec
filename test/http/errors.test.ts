import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, ERROR_CATALOGUE, ERROR_CODES } from '../../src/errors.ts';
import type { Task } from '../../src/model/task.ts';
import { MemoryCollection } from '../../src/store/memory/collection.ts';
import { MemoryStore } from '../../src/store/memory/store.ts';
import type { Filter } from '../../src/model/list.ts';
import { fieldsOf, testApp, type Api, type Res } from '../helpers/app.ts';
import { assertError } from './assert-error.ts';

const TASK = { projectId: 'proj_001', title: 'x' };

/** A raw request with a JSON content type and the body text exactly as given. */
const raw = (
  api: Api,
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload: string,
  contentType = 'application/json',
) => api.request({ method, url, payload, headers: { 'content-type': contentType } });

// ---------------------------------------------------------------- one error shape

test('every kind of error answers the one JSON shape {error:{code,message,details?}}', async (t) => {
  const { api } = await testApp(t);
  const cases: [string, () => Promise<Res>, number, string][] = [
    ['validation', () => api.post('/api/tasks', {}), 400, 'VALIDATION_ERROR'],
    ['bad query', () => api.get('/api/tasks?status=nope'), 400, 'VALIDATION_ERROR'],
    ['invalid json', () => raw(api, 'POST', '/api/tasks', '{nope'), 400, 'INVALID_JSON'],
    [
      'invalid events',
      () => api.post('/api/webhooks', { url: 'https://x.example.com/h', events: ['nope'] }),
      400,
      'INVALID_EVENTS',
    ],
    ['unknown id', () => api.get('/api/tasks/task_nope'), 404, 'NOT_FOUND'],
    ['unknown route', () => api.get('/api/nope'), 404, 'NOT_FOUND'],
    ['wrong method', () => api.put('/api/tasks/task_001', TASK), 405, 'METHOD_NOT_ALLOWED'],
    [
      'too large',
      () => raw(api, 'POST', '/api/tasks', JSON.stringify({ ...TASK, description: 'a'.repeat(1_100_000) })),
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    [
      'media type',
      () => raw(api, 'POST', '/api/tasks', 'title=x', 'application/x-www-form-urlencoded'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    ['bad path', () => api.get('/api/tasks/%E0%A4%A'), 400, 'VALIDATION_ERROR'],
  ];
  for (const [label, send, status, code] of cases) {
    const res = await send();
    await t.test(label, () => {
      assertError(res, status, code);
      assert.ok(res.headers['x-request-id'], 'carries X-Request-Id');
    });
  }
});

test('a validation error has one detail per problem, each naming its field', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/tasks', { title: 5, status: 'nope' });
  const e = assertError(res, 400, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(res), ['projectId', 'status', 'title']);
  assert.equal(e.details!.length, 3);
  // A single problem is spelled out in the message as well.
  const one = assertError(await api.post('/api/tasks', { projectId: 'proj_001' }), 400, 'VALIDATION_ERROR');
  assert.equal(one.message, 'title: is required');
});

// ---------------------------------------------------------------- the catalogue

test('an AppError takes its status, and its message when none is given, from the catalogue', () => {
  for (const code of ERROR_CODES) {
    const e = new AppError(code);
    assert.equal(e.statusCode, ERROR_CATALOGUE[code].status, code);
    assert.equal(e.message, ERROR_CATALOGUE[code].message, code);
    assert.deepEqual(e.toBody(), { error: { code, message: ERROR_CATALOGUE[code].message } });
  }
  const given = new AppError('NOT_FOUND', "Task 'x' was not found", [{ field: 'id', message: 'unknown' }]);
  assert.equal(given.statusCode, 404);
  assert.deepEqual(given.toBody().error.details, [{ field: 'id', message: 'unknown' }]);
});

test("docs/api.md's error table lists every code of the catalogue with its status, in its order", () => {
  const page = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const start = page.indexOf('| Status | Code | When |');
  assert.ok(start > 0, 'the table is in docs/api.md');
  const table = page.slice(start, page.indexOf('\n\n', start));
  const rows = [...table.matchAll(/^\| (\d{3}) \| `([A-Z_]+)` \|/gm)].map((m) => [Number(m[1]), m[2]]);
  assert.deepEqual(
    rows,
    ERROR_CODES.map((code) => [ERROR_CATALOGUE[code].status, code]),
  );
});

test('a client error raised with a status outside the catalogue is 400 VALIDATION_ERROR; with one of its own, its code', async (t) => {
  const { store, api } = await testApp(t);
  const tasks = store.tasks;
  tasks.list = async () => {
    throw Object.assign(new Error('internal detail'), { statusCode: 418 });
  };
  const e = assertError(await api.get('/api/tasks'), 400, 'VALIDATION_ERROR');
  assert.equal(e.message, 'The request could not be processed');
  tasks.get = async () => {
    throw Object.assign(new Error('internal detail'), { statusCode: 404 });
  };
  const missing = assertError(await api.get('/api/tasks/task_001'), 404, 'NOT_FOUND');
  assert.equal(missing.message, ERROR_CATALOGUE.NOT_FOUND.message);
});

// ---------------------------------------------------------------- JSON bodies

test('a body that is not parseable JSON is 400 INVALID_JSON and changes nothing', async (t) => {
  const { api } = await testApp(t);
  for (const text of ['{nope', '{"title": "x"', "{'title':'x'}", '{"title":"x",}', 'undefined', '{"a":1}{"b":2}']) {
    assertError(await raw(api, 'POST', '/api/tasks', text), 400, 'INVALID_JSON');
    assertError(await raw(api, 'PATCH', '/api/tasks/task_001', text), 400, 'INVALID_JSON');
  }
  assert.equal((await api.get('/api/tasks')).body.count, 10);
  assert.equal((await api.get('/api/tasks/task_001')).body.data.title, 'Design the new homepage');
});

test('a JSON body that is not an object (array, string, number, boolean, null) is 400 VALIDATION_ERROR', async (t) => {
  const { api } = await testApp(t);
  const targets: ['POST' | 'PUT' | 'PATCH', string][] = [
    ['POST', '/api/tasks'],
    ['PATCH', '/api/tasks/task_001'],
    ['POST', '/api/teams'],
    ['PATCH', '/api/teams/team_001'],
    ['POST', '/api/comments'],
    ['PATCH', '/api/comments/cmt_001'],
    ['PUT', '/api/projects/proj_001'],
  ];
  for (const [method, url] of targets) {
    for (const text of ['[]', '[{"title":"x"}]', '"title"', '42', 'true', 'null']) {
      const e = assertError(await raw(api, method, url, text), 400, 'VALIDATION_ERROR');
      assert.deepEqual(
        e.details?.map((d) => d.field),
        ['body'],
        `${method} ${url} ${text}`,
      );
    }
  }
  assert.equal((await api.get('/api/tasks')).body.count, 10);
  assert.equal((await api.get('/api/tasks/task_001')).body.data.updatedAt, '2026-09-30T09:00:00.000Z');
  assert.equal((await api.get('/api/projects/proj_001')).body.data.name, 'Website Redesign');
});

test('a __proto__ or constructor.prototype key in a body is refused with 400 and pollutes nothing', async (t) => {
  const { api } = await testApp(t);
  const bodies: ['POST' | 'PATCH', string, string][] = [
    ['POST', '/api/tasks', '{"projectId":"proj_001","title":"x","__proto__":{"polluted":"yes"}}'],
    ['PATCH', '/api/tasks/task_001', '{"__proto__":{"polluted":"yes","title":"hacked"}}'],
    ['POST', '/api/teams', '{"name":"T","members":[{"username":"a","role":"b","__proto__":{"polluted":"yes"}}]}'],
    ['POST', '/api/tasks', '{"projectId":"proj_001","title":"x","constructor":{"prototype":{"polluted":"yes"}}}'],
  ];
  for (const [method, url, text] of bodies) {
    const res = await raw(api, method, url, text);
    assert.equal(res.status, 400, text);
    // Refused by the parser (src/http/body.ts), with a message that says why: the text itself is valid JSON.
    assert.match(assertError(res, 400, 'INVALID_JSON').message, /"__proto__".*"constructor".*prototype poisoning/);
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
  assert.equal((await api.get('/api/tasks')).body.count, 10);
  assert.equal((await api.get('/api/tasks/task_001')).body.data.title, 'Design the new homepage');
  assert.equal((await api.get('/api/teams')).body.count, 3);
});

test('a body with another media type is 415 UNSUPPORTED_MEDIA_TYPE', async (t) => {
  const { api } = await testApp(t);
  const cases: [string, string][] = [
    ['text/plain', '{"projectId":"proj_001","title":"x"}'],
    ['application/xml', '<task><title>x</title></task>'],
    ['application/x-www-form-urlencoded', 'projectId=proj_001&title=x'],
    ['multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nx\r\n--b--'],
  ];
  for (const [type, text] of cases) {
    assertError(await raw(api, 'POST', '/api/tasks', text, type), 415, 'UNSUPPORTED_MEDIA_TYPE');
    assertError(await raw(api, 'PATCH', '/api/tasks/task_001', text, type), 415, 'UNSUPPORTED_MEDIA_TYPE');
  }
  // No Content-Type at all with a body is refused too.
  assertError(
    await api.request({ method: 'POST', url: '/api/tasks', payload: '{"projectId":"proj_001","title":"x"}' }),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  );
  assert.equal((await api.get('/api/tasks')).body.count, 10);
  assert.equal((await api.get('/api/tasks/task_001')).body.data.title, 'Design the new homepage');
});

test('application/json with a charset or in other letter case is accepted', async (t) => {
  const { api } = await testApp(t);
  const text = JSON.stringify(TASK);
  assert.equal((await raw(api, 'POST', '/api/tasks', text, 'application/json; charset=utf-8')).status, 201);
  assert.equal((await raw(api, 'POST', '/api/tasks', text, 'Application/JSON')).status, 201);
});

test('an id of any length that no record has is a 404 NOT_FOUND from its route', async (t) => {
  const { api } = await testApp(t);
  for (const length of [101, 1_000, 1_001, 5_000]) {
    const id = 'a'.repeat(length);
    for (const res of [await api.get(`/api/projects/${id}`), await api.delete(`/api/tasks/${id}`)]) {
      assertError(res, 404, 'NOT_FOUND');
      assert.ok(res.text.length < 400, `${length}: an answer of ${res.text.length} characters`);
    }
    const patch = await api.patch(`/api/comments/${id}`, { body: 'x' });
    assertError(patch, 404, 'NOT_FOUND');
  }
});

test('a body in another charset or compressed is 415, one whose bytes are not UTF-8 is 400; nothing is stored', async (t) => {
  const { api } = await testApp(t);
  const send = (payload: Buffer, headers: Record<string, string | undefined>) =>
    api.request({
      method: 'POST',
      url: '/api/projects',
      payload,
      headers: { 'content-type': 'application/json', ...headers },
    });
  const projects = (await api.get('/api/projects')).body.count;
  const latin1 = Buffer.from('{"name":"caf\xe9"}', 'latin1');
  const charset = assertError(
    await send(latin1, { 'content-type': 'application/json; charset=iso-8859-1' }),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  );
  assert.match(charset.message, /UTF-8.*iso-8859-1/);
  assert.match(assertError(await send(latin1, {}), 400, 'INVALID_JSON').message, /UTF-8/);
  const body = Buffer.from(JSON.stringify({ name: 'café' }));
  const gzipped = assertError(
    await send(gzipSync(body), { 'content-encoding': 'gzip' }),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
  );
  assert.match(gzipped.message, /compressed.*gzip/);
  assertError(await send(body, { 'content-encoding': 'br' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  assert.equal((await api.get('/api/projects')).body.count, projects);

  for (const headers of [
    { 'content-type': 'application/json; charset=UTF-8' },
    { 'content-type': 'application/json;charset="utf8"' },
    { 'content-encoding': 'identity' },
  ]) {
    const made = await send(body, headers);
    assert.equal(made.status, 201, JSON.stringify(headers));
    assert.equal(made.body.data.name, 'café');
  }
  // A byte order mark before the text is dropped.
  const bom = await send(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]), {});
  assert.equal(bom.status, 201);
  assert.equal((await api.get(`/api/projects/${bom.body.data.id}`)).body.data.name, 'café');
});

test('a body over 1 MiB is 413 PAYLOAD_TOO_LARGE; a body of exactly 1 MiB is read', async (t) => {
  const { api } = await testApp(t);
  const padded = (size: number) => {
    const head = '{"projectId":"proj_001","title":"x","description":"';
    return head + 'a'.repeat(size - head.length - 2) + '"}';
  };
  assert.equal(Buffer.byteLength(padded(1_048_577)), 1_048_577);
  assertError(await raw(api, 'POST', '/api/tasks', padded(1_048_577)), 413, 'PAYLOAD_TOO_LARGE');
  assertError(await raw(api, 'PATCH', '/api/tasks/task_001', padded(2_000_000)), 413, 'PAYLOAD_TOO_LARGE');
  // At the limit the body is parsed and validated: the description is too long, a 400 not a 413.
  const atLimit = await raw(api, 'POST', '/api/tasks', padded(1_048_576));
  assertError(atLimit, 400, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(atLimit), ['description']);
  assert.equal((await api.get('/api/tasks')).body.count, 10);
});

test('the body limit follows config.bodyLimit', async (t) => {
  const { api } = await testApp(t, { config: { bodyLimit: 2048, logLevel: 'silent' } });
  assertError(await api.post('/api/tasks', { ...TASK, description: 'a'.repeat(2100) }), 413, 'PAYLOAD_TOO_LARGE');
  const small = await api.post('/api/tasks', { ...TASK, description: 'a'.repeat(1900) });
  assert.equal(small.status, 201);
  assert.equal(small.body.data.description.length, 1900);
});

test('an empty body with Content-Type: application/json is no body: DELETE and the notification read marks accept it', async (t) => {
  const { api } = await testApp(t);
  const del = await raw(api, 'DELETE', '/api/tasks/task_010', '');
  assert.equal(del.status, 200);
  assert.deepEqual(del.body, { data: { id: 'task_010', deleted: true } });

  const created = await api.post('/api/notifications', {
    username: 'bob',
    type: 'task_assigned',
    message: 'You were assigned task_005',
    resourceType: 'task',
    resourceId: 'task_005',
  });
  assert.equal(created.status, 201);
  const id = created.body.data.id;
  const one = await raw(api, 'PATCH', `/api/notifications/${id}/read`, '');
  assert.equal(one.status, 200);
  assert.equal(one.body.data.read, true);

  await api.post('/api/notifications', {
    username: 'bob',
    type: 'comment_added',
    message: 'm',
    resourceType: 'comment',
    resourceId: 'cmt_003',
  });
  const all = await raw(api, 'PATCH', '/api/notifications/read-all', '');
  assert.equal(all.status, 200);
  assert.deepEqual(all.body, { data: { markedRead: 1 } });
  // Also without any Content-Type.
  const bare = await api.request({ method: 'PATCH', url: '/api/notifications/read-all' });
  assert.deepEqual(bare.body, { data: { markedRead: 0 } });
});

test('an empty body with another Content-Type is no body either (415 is for non-empty bodies)', async (t) => {
  const { api } = await testApp(t);
  const del = await raw(api, 'DELETE', '/api/comments/cmt_001', '', 'text/plain');
  assert.equal(del.status, 200);
  assert.deepEqual(del.body, { data: { id: 'cmt_001', deleted: true } });
  const all = await raw(api, 'PATCH', '/api/notifications/read-all', '', 'application/xml');
  assert.equal(all.status, 200);
  // A route that needs a body still refuses an empty one, through its schema.
  const e = assertError(await raw(api, 'POST', '/api/tasks', ''), 400, 'VALIDATION_ERROR');
  assert.deepEqual(
    e.details?.map((d) => d.field),
    ['body'],
  );
});

// ---------------------------------------------------------------- query strings

test('a query parameter given twice is 400 VALIDATION_ERROR naming it', async (t) => {
  const { api } = await testApp(t);
  const cases: [string, string][] = [
    ['/api/tasks?status=todo&status=done', 'status'],
    ['/api/tasks?projectId=proj_001&projectId=proj_002', 'projectId'],
    ['/api/tasks?assignee=bob&assignee=bob', 'assignee'],
    ['/api/comments?author=dana&author=erin', 'author'],
  ];
  for (const [url, field] of cases) {
    const res = await api.get(url);
    assertError(res, 400, 'VALIDATION_ERROR');
    assert.deepEqual([...new Set(fieldsOf(res))], [field], url);
  }
});

test('an empty query value is handled without a 500', async (t) => {
  const { api } = await testApp(t);
  const empty = await api.get('/api/tasks?projectId=');
  assert.equal(empty.status, 200);
  assert.equal(empty.body.count, empty.body.data.length);
  assert.deepEqual(empty.body, { data: [], count: 0 }); // no task has projectId ""
  // An empty enum value is outside the enum.
  assertError(await api.get('/api/tasks?status='), 400, 'VALIDATION_ERROR');
  assertError(await api.get('/api/comments?targetType='), 400, 'VALIDATION_ERROR');
  for (const url of [
    '/api/tasks?assignee=',
    '/api/comments?author=&targetId=',
    '/api/tasks?=x',
    '/api/tasks?&&',
    '/api/tasks?projectId=%E0%A4%A',
  ]) {
    const res = await api.get(url);
    assert.ok(res.status < 500, `${url}: ${res.status} ${res.text.slice(0, 200)}`);
    if (res.status >= 400) assertError(res, res.status, res.body.error.code);
  }
});

test('unknown query parameters are ignored', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/tasks?colour=red&status=done');
  assert.equal(res.status, 200);
  assert.deepEqual(
    res.body.data.map((x: any) => x.id),
    ['task_001', 'task_004', 'task_009'],
  );
});

// ---------------------------------------------------------------- X-Actor

test('an X-Actor header longer than 100 characters (or blank) is 400 VALIDATION_ERROR naming X-Actor; nothing changes', async (t) => {
  const { api } = await testApp(t);
  for (const actor of ['a'.repeat(101), '   ']) {
    const create = await api.post('/api/tasks', TASK, { 'x-actor': actor });
    const e = assertError(create, 400, 'VALIDATION_ERROR');
    assert.deepEqual(
      e.details?.map((d) => d.field),
      ['X-Actor'],
    );
    assertError(await api.patch('/api/tasks/task_001', { title: 'y' }, { 'x-actor': actor }), 400, 'VALIDATION_ERROR');
    assertError(await api.delete('/api/tasks/task_002', { 'x-actor': actor }), 400, 'VALIDATION_ERROR');
  }
  assert.equal((await api.get('/api/tasks')).body.count, 10);
  assert.equal((await api.get('/api/tasks/task_001')).body.data.title, 'Design the new homepage');
  assert.equal((await api.get('/api/tasks/task_002')).status, 200);
  // 100 characters is fine.
  assert.equal((await api.post('/api/tasks', TASK, { 'x-actor': 'a'.repeat(100) })).status, 201);
});

// ---------------------------------------------------------------- unexpected failures

/** A store whose task list fails the way a broken database would. */
class ExplodingStore extends MemoryStore {
  override readonly tasks = new (class extends MemoryCollection<Task> {
    override async list(_filter?: Filter<Task>): Promise<Task[]> {
      throw new Error('db exploded at /secret/path');
    }
  })(['projectId', 'assignee', 'status']);
}

interface LogLine {
  level: string;
  bindings: Record<string, unknown>;
  obj: unknown;
  msg?: string;
}

/** A logger that keeps what it is given, with the bindings of its children (Fastify binds `reqId`). */
function recordingLogger(lines: LogLine[], bindings: Record<string, unknown> = {}): FastifyBaseLogger {
  const at = (level: string) => (obj: unknown, msg?: string) => {
    lines.push({ level, bindings, obj, ...(msg !== undefined ? { msg } : {}) });
  };
  return {
    level: 'info',
    info: at('info'),
    error: at('error'),
    warn: at('warn'),
    debug: at('debug'),
    trace: at('trace'),
    fatal: at('fatal'),
    silent: () => {},
    child: (more: Record<string, unknown>) => recordingLogger(lines, { ...bindings, ...more }),
  } as unknown as FastifyBaseLogger;
}

test('each request is logged once, when it completes, with its id; one that logs nothing else makes no child logger', async (t) => {
  const lines: LogLine[] = [];
  let children = 0; // made at any depth
  const counted = (l: FastifyBaseLogger): FastifyBaseLogger =>
    ({
      ...l,
      child: (b: Record<string, unknown>) => (children++, counted(l.child(b))),
    }) as unknown as FastifyBaseLogger;
  const logger = counted(recordingLogger(lines));
  const { api } = await testApp(t, { logger });
  const before = children;
  assert.equal((await api.get('/api/tasks/task_001', { 'x-request-id': 'req-ok' })).status, 200);
  const access = lines.filter((l) => l.msg === 'request completed');
  assert.equal(access.length, 1);
  const line = access[0]!.obj as Record<string, unknown>;
  assert.deepEqual(
    { ...line, responseTime: typeof line.responseTime },
    {
      reqId: 'req-ok',
      method: 'GET',
      url: '/api/tasks/task_001',
      statusCode: 200,
      responseTime: 'number',
    },
  );
  assert.equal(lines.filter((l) => l.msg === 'incoming request').length, 0);
  assert.equal(children, before, 'no per-request child logger was made');
});

test('an unexpected exception is 500 INTERNAL_ERROR that says nothing internal, logged with the request id', async (t) => {
  const lines: LogLine[] = [];
  const { api } = await testApp(t, { store: new ExplodingStore(), logger: recordingLogger(lines) });
  const res = await api.get('/api/tasks', { 'x-request-id': 'req-500' });
  const e = assertError(res, 500, 'INTERNAL_ERROR');
  assert.equal(e.details, undefined);
  assert.doesNotMatch(res.text, /exploded|secret|\/path|Error:/);
  assert.equal(res.headers['x-request-id'], 'req-500');
  // The failure is logged, with the request id and the real error.
  const logged = lines.filter((l) => l.level === 'error');
  assert.equal(logged.length, 1);
  assert.equal(logged[0]!.bindings.reqId, 'req-500');
  assert.match(String((logged[0]!.obj as { err?: Error }).err?.message), /db exploded/);
  // The rest of the service keeps working.
  assert.equal((await api.get('/api/tasks/task_001')).status, 200);
  assert.equal((await api.get('/api/projects')).body.count, 5);
});
