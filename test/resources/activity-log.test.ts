import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, fieldsOf, testApp } from '../helpers/app.ts';

const NOW = '2026-11-22T10:00:00.000Z';
const ids = (res: { body: any }) => res.body.data.map((e: any) => e.id);
const NEWEST_FIRST = [
  'act_010',
  'act_009',
  'act_008',
  'act_007',
  'act_006',
  'act_005',
  'act_004',
  'act_003',
  'act_002',
  'act_001',
];
const entry = { action: 'sprint.started', actor: 'alice', resourceType: 'project', resourceId: 'proj_002' };

test('GET /api/activity-log lists the ten seeded entries newest first, with count and total', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/activity-log');
  assert.equal(res.status, 200);
  assert.deepEqual(ids(res), NEWEST_FIRST);
  assert.equal(res.body.count, 10);
  assert.equal(res.body.total, 10);
  assert.deepEqual(Object.keys(res.body).sort(), ['count', 'data', 'total']);
  const stamps = res.body.data.map((e: any) => e.timestamp);
  assert.deepEqual(stamps, [...stamps].sort().reverse());
  assert.deepEqual(res.body.data[0], {
    id: 'act_010',
    action: 'milestone.reached',
    actor: 'alice',
    resourceType: 'milestone',
    resourceId: 'ms_005',
    summary: 'Warehouse go-live reached',
    metadata: { projectId: 'proj_004' },
    timestamp: '2026-10-20T11:00:00.000Z',
  });
});

test('GET /api/activity-log filters by action, actor, resourceType and resourceId (exact), combined', async (t) => {
  const { api } = await testApp(t);
  const cases: [string, string[]][] = [
    ['action=milestone.reached', ['act_010', 'act_007']],
    ['action=project.created', ['act_002', 'act_001']],
    ['action=milestone', []],
    ['action=MILESTONE.REACHED', []],
    ['actor=dana', ['act_008', 'act_007', 'act_001']],
    ['actor=system', ['act_003']],
    ['resourceType=task', ['act_009', 'act_005']],
    ['resourceId=proj_002', ['act_006', 'act_004', 'act_002']],
    ['resourceId=proj_00', []],
    ['actor=alice&resourceType=project', ['act_006', 'act_004', 'act_002']],
    ['actor=alice&action=milestone.reached', ['act_010']],
    ['action=sprint.started&resourceId=proj_002&resourceType=project&actor=alice', ['act_004']],
    ['actor=alice&resourceId=proj_001', []],
  ];
  for (const [query, expected] of cases) {
    const res = await api.get(`/api/activity-log?${query}`);
    assert.equal(res.status, 200, query);
    assert.deepEqual(ids(res), expected, query);
    assert.equal(res.body.count, expected.length, query);
    assert.equal(res.body.total, expected.length, query);
  }
});

test('GET /api/activity-log: since and until are inclusive bounds', async (t) => {
  const { api } = await testApp(t);
  const since = await api.get('/api/activity-log?since=2026-09-30T16:00:00.000Z');
  assert.deepEqual(ids(since), ['act_010', 'act_009', 'act_008', 'act_007']);
  assert.equal(since.body.total, 4);
  const until = await api.get('/api/activity-log?until=2026-09-30T16:00:00.000Z');
  assert.deepEqual(ids(until), ['act_007', 'act_006', 'act_005', 'act_004', 'act_003', 'act_002', 'act_001']);
  const exact = await api.get('/api/activity-log?since=2026-09-30T16:00:00.000Z&until=2026-09-30T16:00:00.000Z');
  assert.deepEqual(ids(exact), ['act_007']);
  const window = await api.get('/api/activity-log?since=2026-09-12T09:00:00.000Z&until=2026-09-25T09:00:00.000Z');
  assert.deepEqual(ids(window), ['act_005', 'act_004', 'act_003']);
  // One millisecond either side excludes it.
  assert.deepEqual(
    ids(await api.get('/api/activity-log?since=2026-09-30T16:00:00.001Z&until=2026-10-01T00:00:00Z')),
    [],
  );
  // Without milliseconds, and with an offset (2026-09-30T18:00+02:00 is 16:00Z).
  assert.deepEqual(ids(await api.get('/api/activity-log?since=2026-09-30T16:00:00Z&until=2026-09-30T16:00:00Z')), [
    'act_007',
  ]);
  assert.deepEqual(
    ids(
      await api.get(
        `/api/activity-log?until=${encodeURIComponent('2026-09-30T18:00:00+02:00')}&since=2026-09-30T00:00:00Z`,
      ),
    ),
    ['act_007'],
  );
  // An empty window.
  const empty = await api.get('/api/activity-log?since=2026-10-02T00:00:00Z&until=2026-10-01T00:00:00Z');
  assert.deepEqual(empty.body, { data: [], count: 0, total: 0 });
});

test('GET /api/activity-log: a date alone covers that whole UTC day (since: from its start, until: to its end)', async (t) => {
  const { api } = await testApp(t);
  const since = await api.get('/api/activity-log?since=2026-10-01');
  assert.deepEqual(ids(since), ['act_010', 'act_009', 'act_008']);
  const until = await api.get('/api/activity-log?until=2026-09-15');
  assert.deepEqual(ids(until), ['act_004', 'act_003', 'act_002', 'act_001']); // act_004 is 2026-09-15T09:00Z
  const day = await api.get('/api/activity-log?since=2026-09-30&until=2026-09-30');
  assert.deepEqual(ids(day), ['act_007']); // 16:00 that day
  const both = await api.get('/api/activity-log?since=2026-09-12&until=2026-09-25');
  assert.deepEqual(ids(both), ['act_005', 'act_004', 'act_003']);
});

test('GET /api/activity-log: invalid since/until are 400 on the field', async (t) => {
  const { api } = await testApp(t);
  const cases: [string, string][] = [
    ['since=yesterday', 'since'],
    ['until=2026-13-01', 'until'],
    ['since=', 'since'],
    ['since=2026-10-01T25:00:00Z', 'since'],
    ['until=1700000000', 'until'],
  ];
  for (const [query, field] of cases) {
    const res = await api.get(`/api/activity-log?${query}`);
    assert.equal(res.status, 400, query);
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(res), [field], query);
  }
});

test('GET /api/activity-log: impossible calendar dates in since/until are 400', async (t) => {
  const { api } = await testApp(t);
  for (const query of ['until=2026-02-30', 'since=2026-04-31', 'since=2026-02-29T10:00:00Z']) {
    const res = await api.get(`/api/activity-log?${query}`);
    assert.equal(res.status, 400, query);
    assert.deepEqual(fieldsOf(res), [query.split('=')[0]!], query);
  }
});

test('GET /api/activity-log: limit cuts the data after filtering; total counts before limit', async (t) => {
  const { api } = await testApp(t);
  const three = await api.get('/api/activity-log?limit=3');
  assert.deepEqual(ids(three), ['act_010', 'act_009', 'act_008']);
  assert.equal(three.body.count, 3);
  assert.equal(three.body.total, 10);
  const filtered = await api.get('/api/activity-log?actor=alice&limit=2');
  assert.deepEqual(ids(filtered), ['act_010', 'act_009']);
  assert.equal(filtered.body.count, 2);
  assert.equal(filtered.body.total, 6);
  const bounded = await api.get('/api/activity-log?until=2026-09-30T00:00:00Z&limit=1');
  assert.deepEqual(ids(bounded), ['act_006']);
  assert.equal(bounded.body.total, 6);
  const big = await api.get('/api/activity-log?limit=1000');
  assert.equal(big.body.count, 10);
  assert.equal(big.body.total, 10);
  const zero = await api.get('/api/activity-log?limit=0');
  assert.equal(zero.status, 200);
  assert.deepEqual(zero.body, { data: [], count: 0, total: 10 });
  const zeroFiltered = await api.get('/api/activity-log?limit=0&action=milestone.reached');
  assert.deepEqual(zeroFiltered.body, { data: [], count: 0, total: 2 });
  for (const value of ['-1', '2.5', 'abc', '', '1e309', '1000000001']) {
    const res = await api.get(`/api/activity-log?limit=${value}`);
    assert.equal(res.status, 400, value);
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(res), ['limit'], value);
  }
});

test("GET /api/activity-log: limit, the document's own parameter, keeps the document's answer; cursor adds nextCursor", async (t) => {
  const { api } = await testApp(t);
  const first = await api.get('/api/activity-log?actor=alice&limit=4');
  assert.deepEqual(Object.keys(first.body).sort(), ['count', 'data', 'total'], 'collection shape plus total');
  assert.deepEqual([first.body.count, first.body.total], [4, 6]);
  // The next page is named in Link (as every list names it); following it is paging, which the answer says.
  const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.link as string)![1]!;
  const second = await api.get(link);
  assert.deepEqual(Object.keys(second.body).sort(), ['count', 'data', 'nextCursor', 'total']);
  assert.deepEqual([second.body.count, second.body.total, second.body.nextCursor], [2, 6, null]);
  assert.equal(second.headers.link, undefined);
  // Elsewhere limit is beyond the document, and pages with nextCursor from the first page on.
  assert.equal(typeof (await api.get('/api/tasks?limit=4')).body.nextCursor, 'string');
});

test('GET /api/activity-log: limit is read as written, in digits; what JavaScript would also read as a number is refused', async (t) => {
  const { api } = await testApp(t);
  // Number() reads each of these as a number (16, 1, 1000, 1, 1, 2), ajv's coercion with it.
  for (const value of ['0x10', '1.0', '1e3', '%201', '1%20', '+1', '0b10']) {
    const res = await api.get(`/api/activity-log?limit=${value}`);
    assert.equal(res.status, 400, value);
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual(errorOf(res).details, [{ field: 'limit', message: 'must be an integer' }], value);
  }
  // Beside another bad parameter, both are named.
  const two = await api.get('/api/activity-log?limit=0x10&since=yesterday');
  assert.deepEqual(fieldsOf(two).sort(), ['limit', 'since']);
  // Leading zeros are still digits.
  const padded = await api.get('/api/activity-log?limit=002');
  assert.equal(padded.status, 200);
  assert.equal(padded.body.count, 2);
});

test('GET /api/activity-log/:id returns one entry; an unknown id is 404 NOT_FOUND naming it', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/activity-log/act_005');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, {
    id: 'act_005',
    action: 'task.status_changed',
    actor: 'alice',
    resourceType: 'task',
    resourceId: 'task_004',
    summary: 'Define the v2 endpoint contracts: in_progress → done',
    metadata: { from: 'in_progress', to: 'done' },
    timestamp: '2026-09-25T09:00:00.000Z',
  });
  const missing = await api.get('/api/activity-log/act_nope');
  assert.equal(missing.status, 404);
  assert.equal(errorOf(missing).code, 'NOT_FOUND');
  assert.match(errorOf(missing).message, /act_nope/);
});

test('POST /api/activity-log appends with a generated id and the server time; timestamp and id sent are ignored', async (t) => {
  const { api } = await testApp(t);
  const res = await api.post('/api/activity-log', {
    ...entry,
    id: 'act_mine',
    timestamp: '2000-01-01T00:00:00.000Z',
    colour: 'red',
  });
  assert.equal(res.status, 201);
  assert.deepEqual(res.body.data, {
    id: 'act_test00000001',
    ...entry,
    summary: '',
    metadata: {},
    timestamp: NOW,
  });
  assert.deepEqual((await api.get('/api/activity-log/act_test00000001')).body.data, res.body.data);
  const list = await api.get('/api/activity-log');
  assert.equal(list.body.total, 11);
  assert.equal(ids(list)[0], 'act_test00000001');
  assert.equal((await api.get('/api/activity-log/act_mine')).status, 404);
});

test('POST /api/activity-log keeps summary and metadata as sent, nested values included', async (t) => {
  const { api } = await testApp(t);
  const metadata = {
    from: 'todo',
    to: 'done',
    fields: ['status', 'assignee'],
    nested: { deep: { list: [1, 2.5, { x: null }], flag: false }, empty: {} },
    nothing: null,
  };
  const res = await api.post('/api/activity-log', {
    action: 'task.status_changed',
    actor: 'bob',
    resourceType: 'task',
    resourceId: 'task_005',
    summary: 'Done at last',
    metadata,
  });
  assert.equal(res.status, 201);
  assert.equal(res.body.data.summary, 'Done at last');
  assert.deepEqual(res.body.data.metadata, metadata);
  assert.deepEqual((await api.get(`/api/activity-log/${res.body.data.id}`)).body.data.metadata, metadata);
  // A free-form action is accepted, and filtering finds it.
  const custom = await api.post('/api/activity-log', { ...entry, action: 'deploy.rolled_back' });
  assert.equal(custom.status, 201);
  assert.deepEqual(ids(await api.get('/api/activity-log?action=deploy.rolled_back')), [custom.body.data.id]);
});

test('POST /api/activity-log rejects missing or bad fields, naming each, and appends nothing', async (t) => {
  const { api } = await testApp(t);
  const cases: [unknown, string[]][] = [
    [{}, ['action', 'actor', 'resourceId', 'resourceType']],
    [{ actor: 'a', resourceType: 'task', resourceId: 't' }, ['action']],
    [{ action: 'a.b', resourceType: 'task', resourceId: 't' }, ['actor']],
    [{ action: 'a.b', actor: 'a', resourceId: 't' }, ['resourceType']],
    [{ action: 'a.b', actor: 'a', resourceType: 'task' }, ['resourceId']],
    [{ ...entry, actor: '  ' }, ['actor']],
    [{ ...entry, action: '' }, ['action']],
    [{ ...entry, resourceId: 5 }, ['resourceId']],
    [{ ...entry, summary: null }, ['summary']],
    [{ ...entry, metadata: 'x' }, ['metadata']],
    [{ ...entry, metadata: ['x'] }, ['metadata']],
    [{ ...entry, metadata: null }, ['metadata']],
  ];
  for (const [body, fields] of cases) {
    const res = await api.post('/api/activity-log', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR');
    assert.deepEqual(fieldsOf(res), fields, JSON.stringify(body));
  }
  assert.equal((await api.get('/api/activity-log')).body.total, 10);
});

test('entries with equal timestamps come newest-created first', async (t) => {
  const { api } = await testApp(t);
  const first = await api.post('/api/activity-log', { ...entry, summary: 'first' });
  const second = await api.post('/api/activity-log', { ...entry, summary: 'second' });
  const third = await api.post('/api/activity-log', { ...entry, summary: 'third' });
  assert.equal(first.body.data.timestamp, second.body.data.timestamp);
  assert.equal(second.body.data.timestamp, third.body.data.timestamp);
  const res = await api.get('/api/activity-log?limit=4');
  assert.deepEqual(ids(res), ['act_test00000003', 'act_test00000002', 'act_test00000001', 'act_010']);
  // The same order under a filter and inside an inclusive bound.
  const filtered = await api.get(`/api/activity-log?action=sprint.started&since=${NOW}&until=${NOW}`);
  assert.deepEqual(ids(filtered), ['act_test00000003', 'act_test00000002', 'act_test00000001']);
  assert.equal(filtered.body.total, 3);
});

test('entries are ordered by timestamp, not by when they were appended', async (t) => {
  const { api, clock } = await testApp(t);
  clock.set('2026-09-20T00:00:00.000Z');
  const past = await api.post('/api/activity-log', { ...entry, summary: 'late report' });
  assert.equal(past.body.data.timestamp, '2026-09-20T00:00:00.000Z');
  const res = await api.get('/api/activity-log');
  assert.deepEqual(ids(res).slice(5, 8), ['act_005', 'act_test00000001', 'act_004']);
  assert.equal(res.body.total, 11);
  assert.deepEqual(ids(await api.get('/api/activity-log?since=2026-09-16&until=2026-09-24')), ['act_test00000001']);
});

test('activity log entries cannot be replaced, changed or deleted: 405 with Allow, entry unchanged', async (t) => {
  const { api } = await testApp(t);
  const before = (await api.get('/api/activity-log/act_004')).body.data;
  const attempts = [
    await api.put('/api/activity-log/act_004', { ...entry, summary: 'rewritten' }),
    await api.patch('/api/activity-log/act_004', { summary: 'rewritten' }),
    await api.delete('/api/activity-log/act_004'),
  ];
  for (const res of attempts) {
    assert.equal(res.status, 405);
    assert.equal(errorOf(res).code, 'METHOD_NOT_ALLOWED');
    assert.equal(res.headers.allow, 'GET, HEAD');
  }
  // Unknown ids too: the method, not the record, is the problem.
  assert.equal((await api.delete('/api/activity-log/act_nope')).status, 405);
  const collection = await api.delete('/api/activity-log');
  assert.equal(collection.status, 405);
  assert.equal(collection.headers.allow, 'GET, HEAD, POST');
  assert.deepEqual((await api.get('/api/activity-log/act_004')).body.data, before);
  assert.equal((await api.get('/api/activity-log')).body.total, 10);
});
