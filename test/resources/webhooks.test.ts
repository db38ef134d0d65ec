import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { MemoryStore } from '../../src/store/memory/store.ts';
import { errorOf, fieldsOf, testApp, type Api, type Res } from '../helpers/app.ts';
import { deliveringApp } from '../webhooks/helpers.ts';

const NOW = '2026-11-22T10:00:00.000Z';
const SECRET = /^whsec_[A-Za-z0-9]{12}$/;
const PUBLIC_KEYS = ['active', 'createdAt', 'description', 'events', 'id', 'updatedAt', 'url'];
const ids = (res: { body: any }) => res.body.data.map((w: any) => w.id);

/** {@link testApp} on a store the test can read: `secretOf` is the stored secret, which no answer shows. */
async function withStore(t: TestContext) {
  const store = new MemoryStore();
  const ctx = await testApp(t, { store });
  const secretOf = async (id: string) => (await store.webhooks.get(id))?.secret;
  return { ...ctx, store, secretOf };
}

test('GET /api/webhooks lists the four seeded webhooks with count and never a secret', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/webhooks');
  assert.equal(res.status, 200);
  assert.equal(res.body.count, 4);
  assert.deepEqual(ids(res), ['wh_001', 'wh_002', 'wh_003', 'wh_004']);
  for (const w of res.body.data) assert.deepEqual(Object.keys(w).sort(), PUBLIC_KEYS, w.id);
  assert.doesNotMatch(res.text, /secret|whsec_/);
  assert.deepEqual(res.body.data[0], {
    id: 'wh_001',
    url: 'https://hooks.example.com/pm/tasks',
    events: ['task.created', 'task.updated', 'task.deleted'],
    active: true,
    description: 'Task board sync',
    createdAt: '2026-09-10T09:00:00.000Z',
    updatedAt: '2026-09-10T09:00:00.000Z',
  });
});

test('GET /api/webhooks?active= filters on true or false; anything else is a 400', async (t) => {
  const { api } = await testApp(t);
  const active = await api.get('/api/webhooks?active=true');
  assert.deepEqual(ids(active), ['wh_001', 'wh_002', 'wh_003']);
  assert.equal(active.body.count, 3);
  const inactive = await api.get('/api/webhooks?active=false');
  assert.deepEqual(ids(inactive), ['wh_004']);
  assert.equal(inactive.body.count, 1);
  for (const value of ['yes', '1', '', 'TRUE']) {
    const bad = await api.get(`/api/webhooks?active=${value}`);
    assert.equal(bad.status, 400, value);
    assert.equal(errorOf(bad).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(bad), ['active'], value);
  }
});

test('GET /api/webhooks?event= includes wildcard subscribers; an unknown event is a 400', async (t) => {
  const { api } = await testApp(t);
  const created = await api.get('/api/webhooks?event=task.created');
  assert.deepEqual(ids(created), ['wh_001', 'wh_003']);
  assert.equal(created.body.count, 2);
  assert.deepEqual(ids(await api.get('/api/webhooks?event=milestone.reached')), ['wh_002', 'wh_003']);
  assert.deepEqual(ids(await api.get('/api/webhooks?event=comment.created')), ['wh_003', 'wh_004']);
  assert.deepEqual(ids(await api.get('/api/webhooks?event=sprint.started')), ['wh_003']);
  assert.deepEqual(ids(await api.get('/api/webhooks?event=*')), ['wh_003']);
  assert.deepEqual(ids(await api.get('/api/webhooks?event=comment.created&active=true')), ['wh_003']);
  assert.deepEqual(ids(await api.get('/api/webhooks?event=comment.created&active=false')), ['wh_004']);
  for (const query of ['event=bogus', 'event=task', 'event=Task.Created']) {
    const bad = await api.get(`/api/webhooks?${query}`);
    assert.equal(bad.status, 400, query);
    assert.equal(errorOf(bad).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(bad), ['event'], query);
  }
});

test('GET /api/webhooks/:id returns the webhook without its secret; an unknown id is 404 NOT_FOUND', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/webhooks/wh_004');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, {
    id: 'wh_004',
    url: 'https://legacy.invalid/hooks/comments',
    events: ['comment.created'],
    active: false,
    description: 'Old comment mirror (retired)',
    createdAt: '2026-09-03T09:00:00.000Z',
    updatedAt: '2026-10-02T09:00:00.000Z',
  });
  assert.doesNotMatch(res.text, /secret|whsec_/);
  const missing = await api.get('/api/webhooks/wh_nope');
  assert.equal(missing.status, 404);
  assert.equal(errorOf(missing).code, 'NOT_FOUND');
  assert.match(errorOf(missing).message, /wh_nope/);
});

test('POST /api/webhooks creates with defaults and returns the generated secret, once', async (t) => {
  const { api, secretOf } = await withStore(t);
  const res = await api.post('/api/webhooks', { url: 'https://hooks.example.com/new' });
  assert.equal(res.status, 201);
  const { secret, ...rest } = res.body.data;
  assert.match(secret, SECRET);
  assert.deepEqual(rest, {
    id: 'wh_test00000001',
    url: 'https://hooks.example.com/new',
    events: [],
    active: true,
    description: '',
    createdAt: NOW,
    updatedAt: NOW,
  });
  assert.equal(await secretOf('wh_test00000001'), secret);
  const read = await api.get('/api/webhooks/wh_test00000001');
  assert.deepEqual(read.body.data, rest);
  assert.equal((await api.get('/api/webhooks')).body.count, 5);
  // Each webhook has its own secret.
  const other = await api.post('/api/webhooks', { url: 'https://hooks.example.com/other' });
  assert.match(other.body.data.secret, SECRET);
  assert.notEqual(other.body.data.secret, secret);
});

test('POST /api/webhooks takes every field sent, removes duplicate events, ignores secret, id and unknown fields', async (t) => {
  const { api, secretOf } = await withStore(t);
  const res = await api.post('/api/webhooks', {
    url: 'http://hooks.example.com:8080/x?y=1',
    events: ['task.created', 'milestone.reached', 'task.created', '*', 'milestone.reached'],
    active: false,
    description: 'Mine',
    secret: 'whsec_mine00000000',
    id: 'wh_mine',
    createdAt: '2000-01-01T00:00:00.000Z',
    colour: 'red',
  });
  assert.equal(res.status, 201);
  assert.match(res.body.data.secret, SECRET);
  assert.notEqual(res.body.data.secret, 'whsec_mine00000000');
  assert.deepEqual(
    { ...res.body.data, secret: undefined },
    {
      id: 'wh_test00000001',
      url: 'http://hooks.example.com:8080/x?y=1',
      events: ['task.created', 'milestone.reached', '*'],
      active: false,
      description: 'Mine',
      secret: undefined,
      createdAt: NOW,
      updatedAt: NOW,
    },
  );
  assert.equal(await secretOf('wh_test00000001'), res.body.data.secret);
});

test('POST /api/webhooks with an unknown event is 400 INVALID_EVENTS naming the bad values; nothing is stored', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/webhooks', {
    url: 'https://hooks.example.com/x',
    events: ['task.created', 'task.exploded', 'bogus', 'bogus'],
  });
  assert.equal(res.status, 400);
  const error = errorOf(res);
  assert.equal(error.code, 'INVALID_EVENTS');
  assert.match(error.message, /task\.exploded/);
  assert.match(error.message, /bogus/);
  assert.ok(error.details && error.details.length === 2, JSON.stringify(error.details));
  const named = error.details.map((d) => d.message).join('\n');
  assert.match(named, /'task\.exploded'/);
  assert.match(named, /'bogus'/);
  assert.doesNotMatch(named, /'task\.created' is not/);
  assert.deepEqual(
    error.details.map((d) => d.field),
    ['events[1]', 'events[2]'],
  );

  const single = await api.post('/api/webhooks', { url: 'https://hooks.example.com/x', events: ['sprint.paused'] });
  assert.equal(single.status, 400);
  assert.equal(errorOf(single).code, 'INVALID_EVENTS');
  assert.match(errorOf(single).details![0]!.message, /sprint\.paused/);

  assert.equal((await api.get('/api/webhooks')).body.count, 4);
});

test('POST /api/webhooks: url must be an absolute http(s) URL; other bad bodies are VALIDATION_ERRORs', async (t) => {
  const { api } = await testApp(t);
  const cases: [unknown, string[]][] = [
    [{}, ['url']],
    [{ url: 'ftp://x' }, ['url']],
    [{ url: 'not a url' }, ['url']],
    [{ url: '/relative' }, ['url']],
    [{ url: 'mailto:ops@example.com' }, ['url']],
    [{ url: '' }, ['url']],
    [{ url: 42 }, ['url']],
    [{ url: 'https://' }, ['url']],
    [{ url: 'http://' }, ['url']],
    [{ url: 'https://hooks.example.com:99999/' }, ['url']],
    [{ url: 'http://user:pass@hooks.example.com/' }, ['url']],
    [{ url: 'https://token@hooks.example.com/' }, ['url']],
    [{ url: `https://example.com/${'a'.repeat(2048)}` }, ['url']],
    [{ url: 'https://example.com', events: 'task.created' }, ['events']],
    [{ url: 'https://example.com', events: [1] }, ['events[0]']],
    [{ url: 'https://example.com', active: 'true' }, ['active']],
    [{ url: 'https://example.com', description: null }, ['description']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.post('/api/webhooks', body);
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR', JSON.stringify(body).slice(0, 80));
    assert.deepEqual([...new Set(fieldsOf(res))], fields, JSON.stringify(body).slice(0, 80));
  }
  assert.equal((await api.get('/api/webhooks')).body.count, 4);
  for (const url of ['http://example.com', 'HTTPS://EXAMPLE.COM/A', 'https://hooks.example.com/a/b?c=d#e']) {
    assert.equal((await api.post('/api/webhooks', { url })).status, 201, url);
  }
});

test('PATCH /api/webhooks/:id changes any subset; id, createdAt and the secret are kept; no secret in the answer', async (t) => {
  const { api, clock, secretOf } = await withStore(t);
  const stored = await secretOf('wh_002');
  clock.advance(60_000);
  const res = await api.patch('/api/webhooks/wh_002', {
    description: 'Release dashboard v2',
    secret: 'whsec_AAAAAAAAAAAA',
    id: 'wh_other',
    createdAt: '2000-01-01T00:00:00.000Z',
  });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, {
    id: 'wh_002',
    url: 'https://ci.example.org/hooks/projects',
    events: ['project.created', 'project.updated', 'project.deleted', 'milestone.reached'],
    active: true,
    description: 'Release dashboard v2',
    createdAt: '2026-09-11T09:00:00.000Z',
    updatedAt: '2026-11-22T10:01:00.000Z',
  });
  assert.doesNotMatch(res.text, /secret|whsec_/);
  assert.equal(await secretOf('wh_002'), stored);
  assert.deepEqual((await api.get('/api/webhooks/wh_002')).body.data, res.body.data);

  clock.advance(60_000);
  const more = await api.patch('/api/webhooks/wh_002', {
    url: 'https://ci.example.org/hooks/v2',
    events: ['project.updated', 'project.updated', 'sprint.completed'],
  });
  assert.equal(more.status, 200);
  assert.equal(more.body.data.url, 'https://ci.example.org/hooks/v2');
  assert.deepEqual(more.body.data.events, ['project.updated', 'sprint.completed']);
  assert.equal(more.body.data.description, 'Release dashboard v2');
  assert.equal(more.body.data.updatedAt, '2026-11-22T10:02:00.000Z');

  const cleared = await api.patch('/api/webhooks/wh_002', { events: [] });
  assert.deepEqual(cleared.body.data.events, []);
  assert.ok(cleared.body.data.updatedAt > more.body.data.updatedAt);
  assert.equal(await secretOf('wh_002'), stored);
});

test('PATCH toggles active both ways and the active filter follows', async (t) => {
  const { api } = await testApp(t);
  const off = await api.patch('/api/webhooks/wh_001', { active: false });
  assert.equal(off.status, 200);
  assert.equal(off.body.data.active, false);
  assert.deepEqual(ids(await api.get('/api/webhooks?active=false')), ['wh_001', 'wh_004']);
  const on = await api.patch('/api/webhooks/wh_004', { active: true });
  assert.equal(on.body.data.active, true);
  assert.deepEqual(ids(await api.get('/api/webhooks?active=true')), ['wh_002', 'wh_003', 'wh_004']);
  const backOn = await api.patch('/api/webhooks/wh_001', { active: true });
  assert.equal(backOn.body.data.active, true);
  assert.ok(backOn.body.data.updatedAt > off.body.data.updatedAt);
  assert.equal((await api.get('/api/webhooks/wh_001')).body.data.active, true);
});

test('PATCH with an unknown event is 400 INVALID_EVENTS and leaves the webhook unchanged', async (t) => {
  const { api, secretOf } = await withStore(t);
  const before = (await api.get('/api/webhooks/wh_001')).body.data;
  const secret = await secretOf('wh_001');
  const res = await api.patch('/api/webhooks/wh_001', {
    events: ['task.created', 'task.renamed'],
    description: 'changed',
  });
  assert.equal(res.status, 400);
  assert.equal(errorOf(res).code, 'INVALID_EVENTS');
  assert.match(errorOf(res).details![0]!.message, /task\.renamed/);
  assert.deepEqual((await api.get('/api/webhooks/wh_001')).body.data, before);
  assert.equal(await secretOf('wh_001'), secret);

  const badUrl = await api.patch('/api/webhooks/wh_001', { url: 'ftp://x' });
  assert.equal(badUrl.status, 400);
  assert.equal(errorOf(badUrl).code, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(badUrl), ['url']);
  const noHost = await api.patch('/api/webhooks/wh_001', { url: 'https://' });
  assert.equal(noHost.status, 400);
  assert.deepEqual(fieldsOf(noHost), ['url']);
  const credentials = await api.patch('/api/webhooks/wh_001', { url: 'https://ops:s3cret@hooks.example.com/' });
  assert.equal(credentials.status, 400);
  assert.deepEqual(fieldsOf(credentials), ['url']);
  assert.match(errorOf(credentials).details![0]!.message, /credentials/);
  assert.doesNotMatch(credentials.text, /s3cret/);
  assert.deepEqual((await api.get('/api/webhooks/wh_001')).body.data, before);
});

test('DELETE /api/webhooks/:id answers the delete shape; unknown ids are 404 NOT_FOUND on get, patch and delete', async (t) => {
  const { api } = await testApp(t);
  const res = await api.delete('/api/webhooks/wh_004');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { data: { id: 'wh_004', deleted: true } });
  assert.deepEqual(ids(await api.get('/api/webhooks')), ['wh_001', 'wh_002', 'wh_003']);
  for (const res of [
    await api.get('/api/webhooks/wh_004'),
    await api.patch('/api/webhooks/wh_004', { active: true }),
    await api.delete('/api/webhooks/wh_004'),
    await api.patch('/api/webhooks/wh_nope', { description: 'x' }),
  ]) {
    assert.equal(res.status, 404);
    assert.equal(errorOf(res).code, 'NOT_FOUND');
  }
});

test('the secret of a created webhook appears in no response but the one to POST', async (t) => {
  const { api, store } = await withStore(t);
  const created = await api.post('/api/webhooks', { url: 'https://hooks.example.com/s', events: ['*'] });
  const { id, secret } = created.body.data;
  assert.match(secret, SECRET);
  const responses = [
    await api.get(`/api/webhooks/${id}`),
    await api.get('/api/webhooks'),
    await api.get('/api/webhooks?event=task.created'),
    await api.get('/api/webhooks?active=true'),
    await api.patch(`/api/webhooks/${id}`, { description: 'changed' }),
    await api.patch(`/api/webhooks/${id}`, { events: ['nope'] }),
    await api.get('/api/activity-log'),
    await api.delete(`/api/webhooks/${id}`),
  ];
  for (const res of responses) {
    assert.equal(res.text.includes(secret), false, res.text);
    assert.equal(res.text.includes('"secret"'), false, res.text);
    for (const value of Object.values(res.headers)) assert.equal(String(value).includes(secret), false);
  }
  assert.equal(await store.webhooks.get(id), undefined, 'the secret is gone with the webhook');
});

test('GET /api/webhooks/:id/deliveries lists the attempts newest first; none yet is an empty list; unknown id is 404', async (t) => {
  const { api, clock, watched, store } = await deliveringApp(t);
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'Logged' }); // to wh_001 (task.*) and wh_003 (*)
  await watched.until(2);
  clock.advance(1_000);
  await api.patch('/api/tasks/task_001', { title: 'Logged again' });
  await watched.until(4);
  const res = await api.get('/api/webhooks/wh_001/deliveries');
  assert.equal(res.status, 200);
  assert.equal(res.body.count, 2);
  const error = 'getaddrinfo ENOTFOUND hooks.example.com (a reserved name: never resolves; not retried)';
  assert.deepEqual(res.body.data, [
    {
      id: 'dlv_test00000003',
      webhookId: 'wh_001',
      eventId: res.body.data[0].eventId,
      eventType: 'task.updated',
      attempt: 1,
      status: 'failed',
      responseStatus: null,
      error,
      durationMs: 0,
      createdAt: '2026-11-22T10:00:01.000Z',
      completedAt: '2026-11-22T10:00:01.000Z',
      nextAttemptAt: null,
      url: 'https://hooks.example.com/pm/tasks',
      queuedMs: 0,
      stopReason: 'undeliverable',
    },
    {
      id: 'dlv_test00000001',
      webhookId: 'wh_001',
      eventId: res.body.data[1].eventId,
      eventType: 'task.created',
      attempt: 1,
      status: 'failed',
      responseStatus: null,
      error,
      durationMs: 0,
      createdAt: NOW,
      completedAt: NOW,
      nextAttemptAt: null,
      url: 'https://hooks.example.com/pm/tasks',
      queuedMs: 0,
      stopReason: 'undeliverable',
    },
  ]);
  assert.match(res.body.data[0].eventId, /^evt_/);
  assert.notEqual(res.body.data[0].eventId, res.body.data[1].eventId);
  assert.equal(res.text.includes((await store.webhooks.get('wh_001'))!.secret), false);
  assert.deepEqual((await api.get('/api/webhooks/wh_004/deliveries')).body, { data: [], count: 0 });
  const missing = await api.get('/api/webhooks/wh_nope/deliveries');
  assert.equal(missing.status, 404);
  assert.equal(errorOf(missing).code, 'NOT_FOUND');
});

/**
 * wh_001's log of eight attempts: three `task.created` at NOW (one instant: ties), then two pings, a `task.updated`
 * and two pings, the last two a second later each. Every attempt settled (failed: the seeded hosts never resolve).
 */
async function deliveryLog(t: TestContext) {
  const ctx = await deliveringApp(t);
  const { api, clock, watched } = ctx;
  for (const title of ['One', 'Two', 'Three']) await api.post('/api/tasks', { projectId: 'proj_001', title });
  clock.advance(1_000);
  for (let i = 0; i < 2; i++) assert.equal((await api.post('/api/webhooks/wh_001/ping')).status, 202);
  await api.patch('/api/tasks/task_001', { title: 'One again' });
  clock.advance(1_000);
  for (let i = 0; i < 2; i++) assert.equal((await api.post('/api/webhooks/wh_001/ping')).status, 202);
  await watched.until(12); // eight to wh_001, four to wh_003 (`*`)
  const all = (await api.get('/api/webhooks/wh_001/deliveries')).body.data as any[];
  return { ...ctx, all };
}

/** Follows `Link: <…>; rel="next"` from `url` to the last page, calling `between` after each page but the last. */
async function followLinks(api: Api, url: string, between?: (n: number) => Promise<void>) {
  const pages: Res[] = [];
  let next: string | undefined = url;
  while (next) {
    const res: Res = await api.get(next);
    assert.equal(res.status, 200, `${next}: ${res.text}`);
    pages.push(res);
    const link = res.headers.link as string | undefined;
    next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
    assert.equal(next === undefined, res.body.nextCursor === null, `${url}: Link and nextCursor agree`);
    assert.ok(pages.length < 50);
    if (next) await between?.(pages.length);
  }
  return { pages, rows: pages.flatMap((p) => p.body.data as any[]) };
}

const dlvIds = (rows: any[]) => rows.map((d) => d.id as string);

test('the delivery log pages: newest first, ties last recorded first, nextCursor, Link and X-Total-Count', async (t) => {
  const { api, all } = await deliveryLog(t);
  assert.equal(all.length, 8);
  const newestFirst = [...all].sort((a, b) =>
    a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
  );
  assert.deepEqual(dlvIds(all), dlvIds(newestFirst), 'createdAt descending, then the last recorded first');
  const unpaged = await api.get('/api/webhooks/wh_001/deliveries');
  assert.equal(unpaged.headers['x-total-count'], '8');
  assert.equal(unpaged.headers.link, undefined);
  assert.equal('nextCursor' in unpaged.body, false, 'without limit or cursor: as before');

  // By nextCursor.
  const seen: string[] = [];
  let cursor: string | null = null;
  const sizes: number[] = [];
  do {
    const query: string = cursor === null ? 'limit=3' : `limit=3&cursor=${encodeURIComponent(cursor)}`;
    const res = await api.get(`/api/webhooks/wh_001/deliveries?${query}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers['x-total-count'], '8');
    assert.equal(res.body.count, res.body.data.length);
    sizes.push(res.body.count);
    seen.push(...dlvIds(res.body.data));
    cursor = res.body.nextCursor;
    if (cursor === null) assert.equal(res.headers.link, undefined);
    else
      assert.match(
        String(res.headers.link),
        /^<\/api\/webhooks\/wh_001\/deliveries\?limit=3&cursor=[^>]+>; rel="next"$/,
      );
  } while (cursor !== null);
  assert.deepEqual(sizes, [3, 3, 2]);
  assert.deepEqual(seen, dlvIds(all));

  // By Link, with a limit that ends on a full page, and one page of everything.
  const byLink = await followLinks(api, '/api/webhooks/wh_001/deliveries?limit=4');
  assert.deepEqual(
    byLink.pages.map((p) => p.body.count),
    [4, 4],
  );
  assert.deepEqual(dlvIds(byLink.rows), dlvIds(all));
  const one = await api.get('/api/webhooks/wh_001/deliveries?limit=1000');
  assert.deepEqual([one.body.count, one.body.nextCursor, one.headers.link], [8, null, undefined]);
  const empty = await api.get('/api/webhooks/wh_004/deliveries?limit=5');
  assert.deepEqual(empty.body, { data: [], count: 0, nextCursor: null });
  assert.equal(empty.headers['x-total-count'], '0');
});

test('attempts recorded while a client pages the delivery log come before its first page, never within it', async (t) => {
  const { api, clock, watched, all } = await deliveryLog(t);
  const added: string[] = [];
  const walked = await followLinks(api, '/api/webhooks/wh_001/deliveries?limit=2', async (n) => {
    if (n === 1) {
      // The same instant as the newest attempt (a tie, recorded later), then a later one.
      added.push((await api.post('/api/webhooks/wh_001/ping')).body.data.id);
      clock.advance(1_000);
      added.push((await api.post('/api/webhooks/wh_001/ping')).body.data.id);
      await api.post('/api/tasks', { projectId: 'proj_001', title: 'Meanwhile' });
      await watched.until(16);
    }
  });
  assert.deepEqual(dlvIds(walked.rows), dlvIds(all), 'each attempt that existed throughout, once, in order');
  assert.deepEqual(
    walked.pages.map((p) => p.headers['x-total-count']),
    ['8', '11', '11', '11'],
  );
  const now = (await api.get('/api/webhooks/wh_001/deliveries')).body.data as any[];
  assert.equal(now.length, 11);
  assert.deepEqual(dlvIds(now.slice(3)), dlvIds(all), 'the new attempts are the newest');
  assert.deepEqual(new Set(dlvIds(now.slice(0, 3))).size, 3);
  for (const id of added) assert.ok(dlvIds(now.slice(0, 3)).includes(id), id);
});

test('the delivery log pages with its filters: status, eventType, since and until', async (t) => {
  const { api, all } = await deliveryLog(t);
  const later = all.find((d) => d.eventType === 'webhook.ping').createdAt as string;
  for (const filter of [
    'eventType=webhook.ping',
    'eventType=task.created',
    'status=failed',
    `until=${NOW}`,
    `since=${later}&status=failed`,
    `since=${later}&until=${later}&eventType=webhook.ping`,
    'status=succeeded',
  ]) {
    const whole = await api.get(`/api/webhooks/wh_001/deliveries?${filter}`);
    assert.equal(whole.status, 200, filter);
    for (const limit of [1, 2, 5]) {
      const walked = await followLinks(api, `/api/webhooks/wh_001/deliveries?${filter}&limit=${limit}`);
      assert.deepEqual(dlvIds(walked.rows), dlvIds(whole.body.data), `${filter}&limit=${limit}`);
      for (const page of walked.pages) {
        assert.equal(page.headers['x-total-count'], String(whole.body.count), filter);
        if (page.headers.link) assert.ok(String(page.headers.link).includes(filter.split('=')[0]!), filter);
      }
    }
  }
  assert.equal((await api.get('/api/webhooks/wh_001/deliveries?eventType=webhook.ping')).body.count, 4);
  assert.equal((await api.get(`/api/webhooks/wh_001/deliveries?until=${NOW}&limit=2`)).headers['x-total-count'], '3');
});

test('bad paging of the delivery log: 400 VALIDATION_ERROR naming the parameter', async (t) => {
  const { api } = await deliveryLog(t);
  const path = '/api/webhooks/wh_001/deliveries';
  const mine = (await api.get(`${path}?limit=1`)).body.nextCursor as string;
  const filtered = (await api.get(`${path}?limit=1&eventType=webhook.ping`)).body.nextCursor as string;
  const ofOther = (await api.get('/api/webhooks/wh_003/deliveries?limit=1')).body.nextCursor as string;
  const ofTasks = (await api.get('/api/tasks?limit=1')).body.nextCursor as string;
  const tampered = `${mine.slice(0, 5)}${mine[5] === 'A' ? 'B' : 'A'}${mine.slice(6)}`;
  const cases: [string, string][] = [
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=two', 'limit'],
    ['cursor=', 'cursor'],
    ['cursor=nonsense', 'cursor'],
    [`limit=1&cursor=${encodeURIComponent(tampered)}`, 'cursor'],
    [`limit=1&cursor=${encodeURIComponent(mine)}.x`, 'cursor'],
    [`limit=1&cursor=${encodeURIComponent(filtered)}`, 'cursor'],
    [`limit=1&status=failed&cursor=${encodeURIComponent(mine)}`, 'cursor'],
    [`limit=1&cursor=${encodeURIComponent(ofOther)}`, 'cursor'],
    [`limit=1&cursor=${encodeURIComponent(ofTasks)}`, 'cursor'],
    ['status[nin]=failed', 'status[nin]'],
    ['createdAt[in]=2026-01-01', 'createdAt[in]'],
    ['eventType=task.craeted', 'eventType'],
    ['eventType[in]=task.created,bogus', 'eventType[in]'],
  ];
  for (const [query, field] of cases) {
    const res = await api.get(`${path}?${query}`);
    assert.equal(res.status, 400, query);
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR', query);
    assert.deepEqual(fieldsOf(res), [field], query);
  }
  assert.equal((await api.get(`${path}?cursor=${encodeURIComponent(mine)}`)).body.count, 7, 'another limit is fine');
  assert.equal((await api.get(`/api/webhooks/wh_nope/deliveries?limit=1`)).status, 404);
});

/** The instants of {@link sortedLog}'s attempts, a second apart. */
const AT = [
  '2026-11-22T09:00:00.000Z',
  '2026-11-22T09:00:01.000Z',
  '2026-11-22T09:00:02.000Z',
  '2026-11-22T09:00:03.000Z',
];
const PROGRESSION = ['pending', 'succeeded', 'refused', 'failed'];

/**
 * wh_004's log (the webhook is inactive: nothing else is recorded for it) of twelve attempts written to the store in
 * this order, `dlv_s01` first: every status, three event types, and several attempts of each instant (ties). The
 * pending ones are due long after the test.
 */
async function sortedLog(t: TestContext) {
  const ctx = await deliveringApp(t);
  const spec: [number, string, string][] = [
    [0, 'failed', 'task.created'],
    [0, 'succeeded', 'task.updated'],
    [1, 'pending', 'task.created'],
    [0, 'failed', 'webhook.ping'],
    [2, 'refused', 'task.created'],
    [1, 'succeeded', 'task.created'],
    [3, 'failed', 'task.updated'],
    [2, 'pending', 'webhook.ping'],
    [1, 'failed', 'task.created'],
    [3, 'succeeded', 'task.created'],
    [2, 'refused', 'task.updated'],
    [0, 'pending', 'task.created'],
  ];
  const rows = spec.map(([at, status, eventType], i) => ({
    id: `dlv_s${String(i + 1).padStart(2, '0')}`,
    webhookId: 'wh_004',
    eventId: `evt_s${i + 1}`,
    eventType,
    attempt: 1,
    status: status as 'failed',
    responseStatus: status === 'succeeded' ? 200 : null,
    error: null,
    durationMs: null,
    createdAt: AT[at]!,
    completedAt: status === 'pending' ? null : AT[at]!,
    nextAttemptAt: null,
    url: 'https://hooks.example.com/pm/archive',
    queuedMs: null,
    stopReason: null,
    payload: '{}',
    dueAt: status === 'pending' ? '2099-01-01T00:00:00.000Z' : AT[at]!,
    force: false,
    leaseUntil: null,
    leasedBy: null,
  }));
  for (const row of rows) await ctx.store.deliveries.add([row]); // one at a time: the order they were added
  return { ...ctx, rows, path: '/api/webhooks/wh_004/deliveries' };
}

/**
 * What a sort must answer: the rows by its keys (`-` descending, `status` by its progression), ties last added
 * first whatever the direction; newest first when none.
 */
function sortedAs(rows: any[], sort = '-createdAt'): string[] {
  const keys = sort.split(',').map((k) => ({ field: k.replace(/^-/, ''), down: k.startsWith('-') }));
  const value = (row: any, field: string) => (field === 'status' ? PROGRESSION.indexOf(row.status) : row[field]);
  return [...rows]
    .reverse()
    .sort((a, b) => {
      for (const { field, down } of keys) {
        const [x, y] = [value(a, field), value(b, field)];
        if (x !== y) return (x < y ? -1 : 1) * (down ? -1 : 1);
      }
      return 0;
    })
    .map((r) => r.id as string);
}

test('the delivery log sorts by createdAt and status, both ways, ties last recorded first, paging across ties', async (t) => {
  const { api, rows, path, store } = await sortedLog(t);
  const plain = await api.get(path);
  assert.deepEqual(dlvIds(plain.body.data), sortedAs(rows), 'default: newest first');
  for (const sort of ['-createdAt', 'createdAt', 'status', '-status', 'status,createdAt', '-status,-createdAt']) {
    const whole = await api.get(`${path}?sort=${sort}`);
    assert.equal(whole.status, 200, `${sort}: ${whole.text}`);
    assert.deepEqual(dlvIds(whole.body.data), sortedAs(rows, sort), sort);
    assert.equal(whole.headers['x-total-count'], '12', sort);
    for (const limit of [1, 2, 5]) {
      const walked = await followLinks(api, `${path}?sort=${sort}&limit=${limit}`);
      assert.deepEqual(dlvIds(walked.rows), sortedAs(rows, sort), `${sort}&limit=${limit}`);
      assert.equal(walked.pages.length, Math.ceil(12 / limit), `${sort}&limit=${limit}`);
      for (const page of walked.pages) {
        assert.equal(page.headers['x-total-count'], '12');
        const link = /^<[^?]+\?([^>]+)>/.exec(String(page.headers.link ?? ''));
        if (link) assert.equal(new URLSearchParams(link[1]).get('sort'), sort);
      }
    }
  }
  assert.deepEqual(
    dlvIds((await api.get(`${path}?sort=-status`)).body.data).slice(0, 4),
    ['dlv_s09', 'dlv_s07', 'dlv_s04', 'dlv_s01'],
    'failures first, then ties last recorded first',
  );
  // Attempts recorded while a client pages by status: one that sorts before its position is not seen, one after
  // it is; every attempt that existed throughout, once.
  const first = await api.get(`${path}?sort=status&limit=5`);
  const seenFirst = dlvIds(first.body.data);
  assert.deepEqual(seenFirst, sortedAs(rows, 'status').slice(0, 5));
  const later = [
    { ...rows[1]!, id: 'dlv_s13', eventId: 'evt_s13', createdAt: AT[3]! }, // succeeded: before the position
    { ...rows[4]!, id: 'dlv_s14', eventId: 'evt_s14', createdAt: AT[3]! }, // refused: after it
  ];
  for (const row of later) await store.deliveries.add([row]);
  const rest = await followLinks(
    api,
    `${path}?sort=status&limit=5&cursor=${encodeURIComponent(first.body.nextCursor)}`,
  );
  const now = sortedAs([...rows, ...later], 'status');
  assert.deepEqual(dlvIds(rest.rows), now.slice(now.indexOf(seenFirst[4]!) + 1));
  assert.ok(dlvIds(rest.rows).includes('dlv_s14') && !dlvIds(rest.rows).includes('dlv_s13'));
  assert.deepEqual(new Set([...seenFirst, ...dlvIds(rest.rows)]).size, 13);
});

test('the delivery log filters by status[in], eventType[in] and createdAt ranges, with since, until, sort and pages', async (t) => {
  const { api, rows, path } = await sortedLog(t);
  const where = (test: (r: any) => boolean) => rows.filter(test);
  const cases: [string, any[]][] = [
    ['status[in]=pending,refused', where((r) => ['pending', 'refused'].includes(r.status))],
    ['status[in]=succeeded', where((r) => r.status === 'succeeded')],
    ['eventType[in]=task.updated,webhook.ping', where((r) => r.eventType !== 'task.created')],
    ['status[in]=failed,pending&status=failed', where((r) => r.status === 'failed')],
    ['status[in]=pending&status=failed', []],
    [
      'status[in]=failed,succeeded&eventType[in]=task.created',
      where((r) => r.status !== 'pending' && r.status !== 'refused' && r.eventType === 'task.created'),
    ],
    [`createdAt[gte]=${AT[1]}`, where((r) => r.createdAt >= AT[1]!)],
    [`createdAt[gt]=${AT[1]}`, where((r) => r.createdAt > AT[1]!)],
    [`createdAt[lte]=${AT[1]}`, where((r) => r.createdAt <= AT[1]!)],
    [`createdAt[lt]=${AT[1]}`, where((r) => r.createdAt < AT[1]!)],
    [`createdAt[gte]=${AT[1]}&createdAt[lt]=${AT[3]}`, where((r) => r.createdAt >= AT[1]! && r.createdAt < AT[3]!)],
    [`since=${AT[1]}&createdAt[lt]=${AT[2]}`, where((r) => r.createdAt === AT[1])],
    [
      `until=${AT[2]}&createdAt[gt]=${AT[0]}&status[in]=pending,refused`,
      where((r) => r.createdAt > AT[0]! && r.createdAt <= AT[2]! && ['pending', 'refused'].includes(r.status)),
    ],
    ['createdAt[gte]=2026-11-22T10:00:01%2B01:00', where((r) => r.createdAt >= AT[1]!)],
    ['createdAt[lte]=2026-11-22', rows],
    ['createdAt[lt]=2026-11-22', []],
    ['createdAt[gte]=2026-11-23', []],
  ];
  for (const [filter, expected] of cases) {
    for (const sort of ['', 'status', '-createdAt', 'createdAt']) {
      const query = sort ? `${filter}&sort=${sort}` : filter;
      const whole = await api.get(`${path}?${query}`);
      assert.equal(whole.status, 200, `${query}: ${whole.text}`);
      assert.deepEqual(dlvIds(whole.body.data), sortedAs(expected, sort || undefined), query);
      assert.equal(whole.headers['x-total-count'], String(expected.length), query);
      const walked = await followLinks(api, `${path}?${query}&limit=2`);
      assert.deepEqual(dlvIds(walked.rows), sortedAs(expected, sort || undefined), `${query}&limit=2`);
    }
  }
});

test('bad filters and sorts of the delivery log: 400 VALIDATION_ERROR naming the parameter, and nothing changes', async (t) => {
  const { api, path } = await sortedLog(t);
  const byStatus = (await api.get(`${path}?sort=status&limit=2`)).body.nextCursor as string;
  const newest = (await api.get(`${path}?limit=2`)).body.nextCursor as string;
  const ranged = (await api.get(`${path}?limit=2&createdAt[gte]=${AT[0]}`)).body.nextCursor as string;
  const cases: [string, string][] = [
    ['status[in]=failed,done', 'status[in]'],
    ['status[in]=', 'status[in]'],
    ['status[in]=failed,,pending', 'status[in]'],
    ['status[in]=FAILED', 'status[in]'],
    [`eventType[in]=task.created,${'x'.repeat(101)}`, 'eventType[in]'],
    ['createdAt[gte]=yesterday', 'createdAt[gte]'],
    ['createdAt[lt]=2026-13-01', 'createdAt[lt]'],
    ['createdAt[gt]=', 'createdAt[gt]'],
    ['createdAt[between]=2026-11-22', 'createdAt[between]'],
    ['attempt[in]=1', 'attempt[in]'],
    ['completedAt[gte]=2026-11-22', 'completedAt[gte]'],
    ['sort=url', 'sort'],
    ['sort=-', 'sort'],
    ['sort=', 'sort'],
    ['sort=status,-status', 'sort'],
    ['sort=status,', 'sort'],
    ['sort=completedAt', 'sort'],
    [`sort=-status&limit=2&cursor=${encodeURIComponent(byStatus)}`, 'cursor'],
    [`sort=-createdAt&limit=2&cursor=${encodeURIComponent(newest)}`, 'cursor'],
    [`limit=2&cursor=${encodeURIComponent(byStatus)}`, 'cursor'],
    [`limit=2&createdAt[gte]=${AT[1]}&cursor=${encodeURIComponent(ranged)}`, 'cursor'],
  ];
  const before = (await api.get(path)).body;
  for (const [query, field] of cases) {
    const res = await api.get(`${path}?${query}`);
    assert.equal(res.status, 400, query);
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR', query);
    assert.deepEqual(fieldsOf(res), [field], query);
  }
  assert.deepEqual((await api.get(path)).body, before);
  // The cursor goes on with its own sort and filters.
  assert.equal((await api.get(`${path}?sort=status&cursor=${encodeURIComponent(byStatus)}`)).body.count, 10);
  assert.equal(
    (await api.get(`${path}?limit=2&createdAt[gte]=${AT[0]}&cursor=${encodeURIComponent(ranged)}`)).status,
    200,
  );
});

test('POST …/deliveries/:deliveryId/redeliver answers 202 with a new attempt of the same event; unknown ids are 404', async (t) => {
  const { api, watched } = await deliveringApp(t);
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'Again' });
  await watched.until(2);
  const [original] = (await api.get('/api/webhooks/wh_001/deliveries')).body.data;
  const again = await api.post(`/api/webhooks/wh_001/deliveries/${original.id}/redeliver`);
  assert.equal(again.status, 202);
  assert.notEqual(again.body.data.id, original.id);
  assert.deepEqual(
    [again.body.data.webhookId, again.body.data.eventId, again.body.data.eventType, again.body.data.attempt],
    ['wh_001', original.eventId, 'task.created', 1],
  );
  await watched.until(3);
  assert.deepEqual(
    (await api.get('/api/webhooks/wh_001/deliveries')).body.data.map((d: any) => d.id),
    [again.body.data.id, original.id],
  );
  const [ofOther] = (await api.get('/api/webhooks/wh_003/deliveries')).body.data;
  for (const path of [
    `/api/webhooks/wh_001/deliveries/dlv_nope/redeliver`,
    `/api/webhooks/wh_nope/deliveries/${original.id}/redeliver`,
    `/api/webhooks/wh_001/deliveries/${ofOther.id}/redeliver`,
  ]) {
    const res = await api.post(path);
    assert.equal(res.status, 404, path);
    assert.equal(errorOf(res).code, 'NOT_FOUND', path);
  }
});

test('POST /api/webhooks/:id/ping answers 202 with its attempt, active or not; unknown id is 404', async (t) => {
  const { api, watched } = await deliveringApp(t);
  const res = await api.post('/api/webhooks/wh_004/ping');
  assert.equal(res.status, 202);
  assert.deepEqual(
    [res.body.data.webhookId, res.body.data.eventType, res.body.data.attempt],
    ['wh_004', 'webhook.ping', 1],
  );
  await watched.until(1);
  assert.deepEqual(
    (await api.get('/api/webhooks/wh_004/deliveries')).body.data.map((d: any) => [d.id, d.eventType]),
    [[res.body.data.id, 'webhook.ping']],
  );
  const missing = await api.post('/api/webhooks/wh_nope/ping');
  assert.equal(missing.status, 404);
  assert.equal(errorOf(missing).code, 'NOT_FOUND');
});
