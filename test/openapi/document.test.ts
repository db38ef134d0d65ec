import { listQuery } from '../../src/http/list.ts';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ERROR_CATALOGUE, ERROR_CODES } from '../../src/errors.ts';
import { TaskCreate, TaskQuery } from '../../src/resources/tasks/schema.ts';
import { TaskList, Task } from '../../src/model/task.ts';
import { SUBSCRIBABLE } from '../../src/model/event-types.ts';
import { Api, testApp } from '../helpers/app.ts';
import { Contract, contract, escape, type OpenApiDoc, type Operation, type Response } from '../helpers/contract.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

function operations(doc: OpenApiDoc): [string, string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => [path, m, item[m]!] as [string, string, Operation]),
  );
}

test('GET /api/openapi.json is an OpenAPI 3.1 document named after the package', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/openapi.json');
  assert.equal(res.status, 200);
  assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8/);
  const doc = res.body as OpenApiDoc;
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.title, 'pm-service API');
  assert.equal(doc.info.version, pkg.version);
  assert.match(doc.info.description ?? '', /generated from the TypeBox schemas/);
  assert.deepEqual(doc.servers, [{ url: '/', description: 'The server this document came from' }]);
  // Its own pages are not operations of the API.
  assert.equal(doc.paths['/api/openapi.json'], undefined);
  assert.equal(
    Object.keys(doc.paths).some((p) => p.startsWith('/docs')),
    false,
  );
});

test('the document is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', async () => {
  const { doc } = await contract();
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  assert.deepEqual(result.errors, undefined, JSON.stringify(result.errors, null, 2));
  assert.equal(result.valid, true);
  assert.equal(validator.version, '3.1');
});

test('every route the service serves under /api is in the document, with every method', async (t) => {
  const { app } = await testApp(t);
  await app.ready();
  const { doc } = await contract();
  const served = routesOf(app.printRoutes({ commonPrefix: false }))
    .filter(([path]) => path.startsWith('/api/') && path !== '/api/openapi.json')
    .flatMap(([path, methods]) =>
      methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${path.replace(/:(\w+)/g, '{$1}')}`),
    );
  const documented = operations(doc)
    .filter(([path]) => path.startsWith('/api/'))
    .map(([path, method]) => `${method.toUpperCase()} ${path}`);
  assert.ok(served.length >= 40, `only ${served.length} routes found`);
  assert.deepEqual(documented.sort(), served.sort());
});

test('every operation has a unique operationId, a declared tag, a summary and the shared errors', async () => {
  const c = await contract();
  const { doc } = c;
  const tags = new Set((doc.tags as { name: string }[]).map((tag) => tag.name));
  const ids = new Set<string>();
  for (const [path, method, op] of operations(doc)) {
    const where = `${method.toUpperCase()} ${path}`;
    assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, `${where}: operationId`);
    assert.ok(!ids.has(op.operationId!), `${where}: operationId ${op.operationId} used twice`);
    ids.add(op.operationId!);
    assert.ok(op.tags?.length && op.tags.every((tag) => tags.has(tag)), `${where}: tags ${op.tags}`);
    assert.ok(op.summary, `${where}: summary`);
    for (const s of ['405', '408', '431', '500']) assert.ok(op.responses[s], `${where}: ${s}`);
    if (method !== 'get') for (const s of ['400', '413', '415']) assert.ok(op.responses[s], `${where}: ${s}`);
    for (const name of path.match(/\{\w+\}/g) ?? []) {
      const param = op.parameters?.find((p) => p.in === 'path' && `{${p.name}}` === name);
      assert.ok(param, `${where}: path parameter ${name}`);
    }
    for (const status of Object.keys(op.responses)) {
      const { response } = c.response(path, method, status)!;
      assert.ok(response.description, `${where} ${status}: description`);
      assert.equal(response.headers?.['x-request-id']?.required, true, `${where} ${status}: X-Request-Id`);
      // The event stream is the one answer of another media type.
      const schema = response.content?.['application/json']?.schema ?? response.content?.['text/event-stream']?.schema;
      if (Number(status) >= 400) {
        assert.deepEqual(schema, { $ref: '#/components/schemas/ErrorResponse' }, `${where} ${status}`);
      } else if (status !== '304') {
        assert.ok(schema, `${where} ${status}: a JSON body`);
      }
    }
  }
});

test('request and response schemas are the ones the routes validate and serialize with', async () => {
  const { doc } = await contract();
  const create = doc.paths['/api/tasks']!.post!;
  const body = create.requestBody!.content['application/json']!.schema as { required: string[]; properties: object };
  assert.deepEqual(body.required, TaskCreate.required);
  assert.deepEqual(Object.keys(body.properties), Object.keys(TaskCreate.properties));
  const list = doc.paths['/api/tasks']!.get!;
  assert.deepEqual(
    list.parameters!.map((p) => `${p.in}:${p.name}`),
    Object.keys(listQuery(TaskQuery, TaskList).properties).map((name) => `query:${name}`),
  );
  assert.deepEqual(
    list.parameters!.slice(0, 3).map((p) => p.name),
    ['projectId', 'assignee', 'status'],
  );
  // Responses name their records: one component per record schema, the same schema the route serializes with.
  const get = (doc.paths['/api/tasks/{id}']!.get!.responses['200'] as Response).content!['application/json']!.schema;
  assert.deepEqual(get, {
    type: 'object',
    required: ['data'],
    properties: { data: { $ref: '#/components/schemas/Task' } },
  });
  assert.deepEqual((doc.components.schemas.Task as { required: string[] }).required, Task.required);
  const update = doc.paths['/api/tasks/{id}']!.patch!;
  assert.deepEqual(
    update.parameters!.map((p) => `${p.in}:${p.name}`),
    ['path:id', 'header:if-match', 'header:x-actor'],
  );
});

test("a webhook's delivery log declares the paging, sort, any-of and range parameters of every list, but no q", async () => {
  const { doc } = await contract();
  const op = doc.paths['/api/webhooks/{id}/deliveries']!.get!;
  assert.deepEqual(
    op.parameters!.map((p) => `${p.in}:${p.name}`),
    [
      ...['status', 'eventType', 'since', 'until', 'limit', 'cursor', 'status[in]', 'eventType[in]'],
      ...['createdAt[gte]', 'createdAt[gt]', 'createdAt[lte]', 'createdAt[lt]', 'sort'],
    ]
      .map((name) => `query:${name}`)
      .concat('path:id'),
  );
  const param = (name: string) => op.parameters!.find((p) => p.name === name)!.schema as Record<string, any>;
  assert.deepEqual(param('sort').items.enum, ['createdAt', '-createdAt', 'status', '-status']);
  assert.deepEqual(param('status[in]').items.enum, ['pending', 'succeeded', 'failed', 'refused']);
  assert.equal(param('createdAt[gte]').format, 'iso-instant');
  const limit = op.parameters!.find((p) => p.name === 'limit')!.schema as { minimum: number; maximum: number };
  assert.deepEqual([limit.minimum, limit.maximum], [1, 1000]);
  assert.match(op.description ?? '', /newest first/i);
  const sort = op.parameters!.find((p) => p.name === 'sort') as { description?: string };
  assert.match(sort.description ?? param('sort').description, /pending < succeeded < refused < failed/);
  const ok = op.responses['200'] as Response & { headers: Record<string, unknown> };
  assert.ok(ok.headers['x-total-count'] && ok.headers.link, Object.keys(ok.headers).join());
  const list = doc.components.schemas.DeliveryRecordList as { properties: Record<string, unknown> };
  assert.deepEqual(Object.keys(list.properties), ['data', 'count', 'nextCursor']);
});

test('every list parameter is sent as the document declares it (comma-separated) and the service takes it', async (t) => {
  const { doc } = await contract();
  const { api } = await testApp(t);
  let arrays = 0;
  for (const [path, method, op] of operations(doc)) {
    if (method !== 'get' || path.includes('{')) continue;
    for (const p of (op.parameters ?? []) as { name: string; in: string; style?: string; explode?: boolean }[]) {
      const schema = (p as { schema?: { type?: string } }).schema;
      if (p.in !== 'query' || schema?.type !== 'array') continue;
      arrays++;
      // OpenAPI's defaults for a query parameter: `form`, exploded (one `name=value` per item).
      const exploded = p.explode ?? (p.style ?? 'form') === 'form';
      const { items: item } = schema as { items?: { enum?: string[]; format?: string; type?: string } };
      const samples =
        item?.enum ??
        (item?.format === 'date'
          ? ['2026-09-30', '2026-10-01']
          : item?.type === 'boolean'
            ? ['true', 'false']
            : ['x', 'y']);
      const items = samples.filter((v) => !v.startsWith('-')); // a sort names each field once
      const two = items.slice(0, 2).map(encodeURIComponent);
      const name = encodeURIComponent(p.name);
      const query = exploded ? two.map((v) => `${name}=${v}`).join('&') : `${name}=${two.join(',')}`;
      const res = await api.get(`${path}?${query}`);
      assert.equal(res.status, 200, `${path}?${query} (style ${p.style}, explode ${p.explode}): ${res.text}`);
    }
  }
  assert.ok(arrays > 20, `${arrays} list parameters`);
});

test('every answer carries the headers its document requires: X-RateLimit-* with RATE_LIMIT, Retry-After on a 503', async (t) => {
  const { app } = await testApp(t, { config: { logLevel: 'silent', rateLimit: { max: 1000, windowMs: 60_000 } } });
  const doc = (await app.inject({ url: '/api/openapi.json' })).json() as OpenApiDoc;
  for (const [path, method, op] of operations(doc)) {
    for (const [status, response] of Object.entries(op.responses)) {
      if ('$ref' in response) continue;
      const headers = (response as Response).headers ?? {};
      for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
        assert.equal(headers[name]?.required, true, `${method} ${path} ${status}: ${name}`);
      }
      if (status === '503') assert.equal(headers['retry-after']?.required, true, `${method} ${path} 503: retry-after`);
    }
  }
  // Held to that document (Api checks each answer against it, its required headers included).
  const published = new Contract(doc);
  const api = new Api(app, async () => published);
  assert.equal((await api.get('/api/tasks/task_001')).status, 200);
  assert.equal((await api.get('/api/tasks/task_nope')).status, 404);
  assert.equal((await api.post('/api/tasks', { title: 'x' })).status, 400);
  assert.equal((await api.post('/api/tasks', { projectId: 'proj_001', title: 'x' })).status, 201);
  assert.equal((await api.get('/api/activity-log?limit=2')).status, 200);
  const lacking = published.check({
    method: 'GET',
    url: '/api/tasks/task_001',
    status: 200,
    contentType: 'application/json; charset=utf-8',
    text: (await app.inject({ url: '/api/tasks/task_001' })).body,
    headers: { 'x-request-id': 'r', etag: '"e"' },
  });
  assert.match(lacking.join('\n'), /requires the header x-ratelimit-limit/);
});

test('examples come from the sample records and match their own schemas', async () => {
  const c = await contract();
  const get = c.doc.paths['/api/tasks/{id}']!.get!;
  assert.equal(
    ((get.responses['200'] as Response).content!['application/json']!.example as { data: { id: string } }).data.id,
    'task_001',
  );
  assert.equal(get.parameters!.find((p) => p.name === 'id')!.example, 'task_001');
  const teams = (c.doc.paths['/api/teams']!.get!.responses['200'] as Response).content!['application/json']!
    .example as {
    data: object[];
  };
  assert.equal((teams.data[0] as { memberCount: number }).memberCount, 3);

  let checked = 0;
  for (const [path, method, op] of operations(c.doc)) {
    const base = `/paths/${escape(path)}/${method}`;
    const media = [
      ...Object.entries(op.requestBody?.content ?? {}).map(
        ([type, m]) => [`${base}/requestBody/content/${escape(type)}`, m] as const,
      ),
      ...Object.entries(op.responses).flatMap(([status, r]) =>
        Object.entries('$ref' in r ? {} : (r.content ?? {})).map(
          ([type, m]) => [`${base}/responses/${status}/content/${escape(type)}`, m] as const,
        ),
      ),
      ...(op.parameters ?? []).map((p, i) => [`${base}/parameters/${i}`, p] as const),
    ];
    for (const [pointer, m] of media) {
      if (m.example === undefined) continue;
      const validate = c.validator(`${pointer}/schema`);
      assert.ok(validate(m.example), `${pointer}: ${JSON.stringify(validate.errors)}`);
      checked++;
    }
  }
  for (const [name, r] of Object.entries(c.doc.components.responses ?? {})) {
    const validate = c.validator(`/components/responses/${name}/content/application~1json/schema`);
    assert.ok(validate(r.content!['application/json']!.example), name);
    checked++;
  }
  assert.ok(checked >= 60, `only ${checked} examples`);
});

test("error codes are the catalogue's: the body's `code` enum, and each error answer names codes of its status", async () => {
  const c = await contract();
  const schema = c.doc.components.schemas.ErrorResponse as {
    properties: { error: { properties: { code: { enum: string[] } } } };
  };
  assert.deepEqual(schema.properties.error.properties.code.enum, ERROR_CODES);
  for (const [path, method, op] of operations(c.doc)) {
    for (const status of Object.keys(op.responses).filter((s) => Number(s) >= 400)) {
      const { response } = c.response(path, method, status)!;
      const named = [...response.description.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1] as keyof typeof ERROR_CATALOGUE);
      assert.ok(named.length > 0, `${method} ${path} ${status}: ${response.description}`);
      for (const code of named)
        assert.equal(ERROR_CATALOGUE[code]?.status, Number(status), `${path} ${status} ${code}`);
    }
  }
  const webhook400 = c.response('/api/webhooks', 'post', '400')!.response.description;
  assert.match(webhook400, /`VALIDATION_ERROR`.*`INVALID_JSON`.*`INVALID_EVENTS`/);
  assert.doesNotMatch(c.response('/api/tasks', 'post', '400')!.response.description, /INVALID_EVENTS/);
  assert.doesNotMatch(c.response('/api/tasks', 'get', '400')!.response.description, /INVALID_JSON/);
  const allow = c.doc.components.responses!.MethodNotAllowed!.headers!.allow;
  assert.equal(allow?.required, true);
});

test('request bodies declare no `additionalProperties: false`: undeclared fields are accepted and ignored', async () => {
  const { doc } = await contract();
  let bodies = 0;
  const closed = (node: unknown, at: string): string[] => {
    if (node === null || typeof node !== 'object') return [];
    const here = (node as { additionalProperties?: unknown }).additionalProperties === false ? [at] : [];
    return [...here, ...Object.entries(node).flatMap(([k, v]) => closed(v, `${at}/${k}`))];
  };
  for (const [path, method, op] of operations(doc)) {
    const schema = op.requestBody?.content['application/json']?.schema;
    if (!schema) continue;
    bodies++;
    assert.deepEqual(closed(schema, `${method} ${path}`), []);
  }
  assert.ok(bodies >= 15, `only ${bodies} bodies`);
});

test('a write that reads no body documents an optional one, and the service indeed ignores one sent', async (t) => {
  const { api } = await testApp(t);
  const { doc } = await contract();
  const ignored = operations(doc).filter(([, method, op]) => method !== 'get' && op.requestBody?.required !== true);
  assert.deepEqual(
    ignored.map(([path, method]) => `${method.toUpperCase()} ${path}`).filter((o) => !o.startsWith('DELETE')),
    [
      'POST /api/webhooks/{id}/redeliver-failed',
      'POST /api/webhooks/{id}/deliveries/{deliveryId}/redeliver',
      'POST /api/webhooks/{id}/ping',
      'PATCH /api/notifications/read-all',
      'PATCH /api/notifications/{id}/read',
    ],
  );
  for (const [, , op] of ignored) {
    assert.deepEqual(op.requestBody?.content['application/json']?.schema, {});
  }
  // An unknown webhook (nothing is sent): the body was read and ignored, the answer is the handler's.
  assert.equal((await api.post('/api/webhooks/wh_999/ping', { x: 1 })).status, 404);
  assert.equal(
    (
      await api.request({
        method: 'DELETE',
        url: '/api/comments/cmt_001',
        payload: '{"why":1}',
        headers: { 'content-type': 'application/json' },
      })
    ).status,
    200,
  );
  assert.equal((await api.patch('/api/notifications/read-all', { all: true })).status, 200);
});

test("a webhook's events are an enum of the subscribable list, in its record and in its bodies", async () => {
  const { doc } = await contract();
  const items = (s: object) =>
    (s as { properties: { events: { items: { enum?: string[] } } } }).properties.events.items;
  assert.deepEqual(items(doc.components.schemas.Webhook!).enum, SUBSCRIBABLE);
  assert.deepEqual(items(doc.components.schemas.WebhookWithSecret!).enum, SUBSCRIBABLE);
  for (const [path, method] of [
    ['/api/webhooks', 'post'],
    ['/api/webhooks/{id}', 'patch'],
  ] as const) {
    const body = doc.paths[path]![method]!.requestBody!.content['application/json']!.schema;
    assert.deepEqual(items(body).enum, SUBSCRIBABLE, `${method} ${path}`);
    assert.equal(JSON.stringify(body).includes('x-checked-enum'), false);
  }
});

test('shared shapes are named components: list, delete and mark-all-read envelopes, the delivery record', async () => {
  const c = await contract();
  const schemaOf = (path: string, method: string, status: string) =>
    c.response(path, method, status)!.response.content!['application/json']!.schema;
  assert.deepEqual(schemaOf('/api/tasks', 'get', '200'), { $ref: '#/components/schemas/TaskList' });
  assert.deepEqual(schemaOf('/api/teams', 'get', '200'), { $ref: '#/components/schemas/TeamSummaryList' });
  assert.deepEqual(schemaOf('/api/activity-log', 'get', '200'), { $ref: '#/components/schemas/ActivityEntryList' });
  assert.deepEqual(schemaOf('/api/tasks/{id}', 'delete', '200'), { $ref: '#/components/schemas/Deleted' });
  assert.deepEqual(schemaOf('/api/notifications/read-all', 'patch', '200'), {
    $ref: '#/components/schemas/MarkedRead',
  });
  assert.deepEqual(schemaOf('/api/webhooks/{id}/deliveries', 'get', '200'), {
    $ref: '#/components/schemas/DeliveryRecordList',
  });
  assert.deepEqual(schemaOf('/api/webhooks/{id}/ping', 'post', '202'), {
    type: 'object',
    required: ['data'],
    properties: { data: { $ref: '#/components/schemas/DeliveryRecord' } },
  });
  const list = c.doc.components.schemas.ActivityEntryList as { required: string[] };
  assert.deepEqual(list.required, ['data', 'count', 'total']);
});

test("the 412 example shows the sample record's ETag, the one the service sends for it", async (t) => {
  const { api } = await testApp(t);
  const c = await contract();
  for (const [path, url] of [
    ['/api/tasks/{id}', '/api/tasks/task_001'],
    ['/api/notifications/{id}/read', '/api/notifications/notif_001'],
  ] as const) {
    const method = path.endsWith('/read') ? 'patch' : 'delete';
    const example = c.response(path, method, '412')!.response.content!['application/json']!.example as {
      error: { message: string };
    };
    const etag = /ETag is (".+")$/.exec(example.error.message)?.[1];
    assert.ok(etag, example.error.message);
    if (url.startsWith('/api/tasks')) assert.equal((await api.get(url)).headers.etag, etag);
    else assert.match(etag, /^"h[0-9a-z]+"$/, 'a notification is hashed: no updatedAt');
  }
});

/** `[path, methods]` of every route, from Fastify's printed route tree (each line adds a segment to its parent). */
function routesOf(tree: string): [string, string[]][] {
  const out: [string, string[]][] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)[├└]── (.+?) \(([A-Z, ]+)\)$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    out.push([stack.join(''), m[3]!.split(', ')]);
  }
  return out;
}

test('without AUTH or RATE_LIMIT the document declares no security and no 401, 403 or 429 answer', async () => {
  const { doc } = await contract();
  assert.deepEqual(doc.security, []);
  assert.equal((doc.components as { securitySchemes?: unknown }).securitySchemes, undefined);
  for (const [path, method, op] of operations(doc)) {
    for (const status of ['401', '403', '429']) assert.equal(op.responses[status], undefined, `${method} ${path}`);
  }
});

test('with AUTH=token and RATE_LIMIT: bearer and API-key schemes, 401/403 where a token is needed, 429 everywhere', async (t) => {
  const { app } = await testApp(t, {
    config: { logLevel: 'silent', auth: 'token', adminToken: 'x'.repeat(32), rateLimit: { max: 100, windowMs: 1000 } },
  });
  const doc = (await app.inject({ url: '/api/openapi.json' })).json() as OpenApiDoc & {
    components: { securitySchemes: Record<string, object> };
  };
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  assert.deepEqual(result.errors, undefined, JSON.stringify(result.errors, null, 2));
  assert.deepEqual(doc.security, [{ bearerAuth: [] }, { apiKeyAuth: [] }]);
  assert.deepEqual(Object.keys(doc.components.securitySchemes), ['bearerAuth', 'apiKeyAuth', 'accessTokenQuery']);
  // The query's token is the event stream's alone: its operation names it, no other does.
  assert.deepEqual(doc.components.securitySchemes.accessTokenQuery, {
    type: 'apiKey',
    in: 'query',
    name: 'access_token',
    description:
      "The same token as `?access_token=`, on the event stream only (a browser's `EventSource` sends no headers)",
  });
  for (const [path, method, op] of operations(doc)) {
    const security = (op as { security?: Record<string, unknown>[] }).security;
    const named = security?.some((s) => 'accessTokenQuery' in s) ?? false;
    assert.equal(named, path === '/api/stream' && method === 'get', `${method} ${path}`);
  }
  assert.deepEqual(doc.components.securitySchemes.apiKeyAuth, {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'The same token as `X-API-Key`',
  });
  const open = ['/api/health', '/api/health/ready', '/api/export.schema.json', '/'];
  for (const [path, method, op] of operations(doc)) {
    const where = `${method} ${path}`;
    assert.ok(op.responses['429'], where);
    if (open.includes(path)) {
      assert.deepEqual((op as { security?: unknown }).security, [], where);
      assert.equal(op.responses['401'], undefined, where);
      continue;
    }
    assert.deepEqual(op.responses['401'], { $ref: '#/components/responses/Unauthenticated' }, where);
    // Reads need `read`, which every token has; the tokens and the export need `admin`.
    const needsMore = method !== 'get' || path.startsWith('/api/tokens') || path === '/api/export';
    assert.equal(op.responses['403'] !== undefined, needsMore, where);
  }
  const unauthenticated = doc.components.responses!.Unauthenticated!;
  assert.equal(unauthenticated.headers!['www-authenticate']!.required, true);
  assert.equal(doc.components.responses!.RateLimited!.headers!['retry-after']!.required, true);
  assert.match(doc.info.description ?? '', /Authentication/);
});
