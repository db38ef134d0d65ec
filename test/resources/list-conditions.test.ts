import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeCursor } from '../../src/http/cursor.ts';
import { testApp, type Api } from '../helpers/app.ts';

type Row = Record<string, any>;
const ids = (rows: Row[]) => rows.map((r) => r.id as string).sort();

test('an exact filter and a range on the same field both narrow the list, and its total', async (t) => {
  const { api } = await testApp(t);
  const cases: [string, string[]][] = [
    ['/api/time-entries?date=2026-09-07&date[gte]=2026-09-01', ['te_001']],
    ['/api/time-entries?date[gte]=2026-09-01&date=2026-09-07&limit=5', ['te_001']],
    ['/api/time-entries?date=2026-09-07&date[gte]=2026-10-01', []],
    ['/api/time-entries?date[in]=2026-09-07&date[gte]=2026-10-01', []],
    ['/api/time-entries?date[in]=2026-09-07,2026-10-11,2026-10-12&date[lt]=2026-10-12&sort=date', ['te_001', 'te_002']],
    ['/api/time-entries?date=2026-10-11&date[in]=2026-10-11,2026-10-12&date[lte]=2026-12-31', ['te_002']],
  ];
  for (const [url, expected] of cases) {
    const res = await api.get(url);
    assert.equal(res.status, 200, `${url}: ${res.text}`);
    assert.deepEqual(ids(res.body.data), expected, url);
    assert.equal(res.headers['x-total-count'], String(expected.length), url);
  }
});

test('event and event[in] on webhooks: both conditions hold, each on the list of events', async (t) => {
  const { api } = await testApp(t);
  const made = await api.post('/api/webhooks', {
    url: 'https://hooks.example.com/both',
    events: ['task.created', 'milestone.reached'],
  });
  assert.equal(made.status, 201, made.text);
  const id = made.body.data.id as string;
  const listed = async (query: string) => {
    const res = await api.get(`/api/webhooks?${query}`);
    assert.equal(res.status, 200, `${query}: ${res.text}`);
    assert.equal(res.headers['x-total-count'], String(res.body.count), query);
    return ids(res.body.data);
  };
  assert.ok((await listed('event=task.created')).includes(id));
  assert.ok((await listed('event[in]=milestone.reached')).includes(id));
  const both = await listed('event=task.created&event[in]=milestone.reached');
  // The new webhook (one of each) and wh_003 (`*`); not wh_001 (no milestone.reached) nor wh_002 (no task.created).
  assert.deepEqual(both, [id, 'wh_003'].sort());
  assert.deepEqual(await listed('event=task.created&event[in]=milestone.reached&limit=10'), both);
  assert.deepEqual(await listed('event=task.created&event[in]=comment.created'), ['wh_003']);
  // On a field of one value, the two conditions are one: the values both name.
  const tasks = await api.get('/api/tasks?status=todo&status[in]=todo,done');
  const todo = await api.get('/api/tasks?status=todo');
  assert.deepEqual(ids(tasks.body.data), ids(todo.body.data));
  const none = await api.get('/api/tasks?status=todo&status[in]=done');
  assert.deepEqual([none.body.count, none.headers['x-total-count']], [0, '0']);
});

test('a number in a filter is written in digits: an exponent is refused, naming the parameter', async (t) => {
  const { api } = await testApp(t);
  for (const [query, field] of [
    ['hours[gte]=1e3', 'hours[gte]'],
    ['hours[gte]=1E3', 'hours[gte]'],
    ['hours[lt]=1e-3', 'hours[lt]'],
    ['hours[gt]=2.5e0', 'hours[gt]'],
    ['hours[lte]=0x10', 'hours[lte]'],
    ['hours[lte]=.5', 'hours[lte]'],
    [`hours[lte]=${'9'.repeat(400)}`, 'hours[lte]'],
  ]) {
    const res = await api.get(`/api/time-entries?${query}`);
    assert.equal(res.status, 400, `${query}: ${res.text}`);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR', query);
    assert.deepEqual(
      res.body.error.details.map((d: { field: string }) => d.field),
      [field],
      query,
    );
  }
  const digits = await api.get('/api/time-entries?hours[gte]=4.25&hours[lt]=7');
  assert.equal(digits.status, 200, digits.text);
  assert.deepEqual(ids(digits.body.data), ['te_003', 'te_004']);
});

test('an instant bound with digits below the millisecond compares exactly with the milliseconds kept', async (t) => {
  const { api } = await testApp(t);
  const task = (await api.get('/api/tasks/task_001')).body.data;
  assert.equal(task.createdAt, '2026-09-06T09:00:00.000Z');
  const has = async (query: string) => {
    const res = await api.get(`/api/tasks?${query}`);
    assert.equal(res.status, 200, `${query}: ${res.text}`);
    return (res.body.data as Row[]).some((r) => r.id === 'task_001');
  };
  // Later than 09:00:00.000: task_001 is before it, not at or after it.
  for (const at of ['2026-09-06T09:00:00.0001Z', '2026-09-06T09:00:00.0009Z', '2026-09-06T09:00:00.000000001Z']) {
    assert.equal(await has(`createdAt[lt]=${at}`), true, `lt ${at}`);
    assert.equal(await has(`createdAt[lte]=${at}`), true, `lte ${at}`);
    assert.equal(await has(`createdAt[gte]=${at}`), false, `gte ${at}`);
    assert.equal(await has(`createdAt[gt]=${at}`), false, `gt ${at}`);
  }
  // Zeros below the millisecond are that millisecond.
  assert.equal(await has('createdAt[gte]=2026-09-06T09:00:00.0000Z'), true);
  assert.equal(await has('createdAt[lt]=2026-09-06T09:00:00.000000Z'), false);
  // Within the millisecond before: task_001 is after it.
  assert.equal(await has('createdAt[gt]=2026-09-06T08:59:59.9999Z'), true);
  assert.equal(await has('createdAt[gte]=2026-09-06T08:59:59.9999Z'), true);
  assert.equal(await has('createdAt[lte]=2026-09-06T08:59:59.9999Z'), false);
  assert.equal(await has('createdAt[lt]=2026-09-06T08:59:59.9999Z'), false);
  // With the bound it becomes sent too, the narrower holds, whichever is sent first.
  assert.equal(await has('createdAt[gte]=2026-09-06T09:00:00.0001Z&createdAt[gt]=2026-09-01'), false);
  assert.equal(await has('createdAt[gt]=2026-09-01&createdAt[gte]=2026-09-06T09:00:00.0001Z'), false);
  assert.equal(await has('createdAt[lt]=2026-09-06T09:00:00.0001Z&createdAt[lte]=2026-09-06T08:00:00Z'), false);
  assert.equal(await has('createdAt[gte]=2026-09-06T08:00:00.0001Z&createdAt[gt]=2026-09-06T08:59:59Z'), true);
  // In another zone, the same.
  assert.equal(await has('createdAt[gte]=2026-09-06T11:00:00.0005%2B02:00'), false);
  assert.equal(await has('createdAt[lt]=2026-09-06T11:00:00.0005%2B02:00'), true);

  // The activity log: since, until and timestamp ranges.
  const all = (await api.get('/api/activity-log')).body.data as Row[];
  const entry = all[3]!;
  const at = (entry.timestamp as string).replace('Z', '1Z');
  const listed = async (query: string) => {
    const res = await api.get(`/api/activity-log?${query}`);
    assert.equal(res.status, 200, `${query}: ${res.text}`);
    return (res.body.data as Row[]).some((r) => r.id === entry.id);
  };
  assert.equal(await listed(`since=${at}`), false);
  assert.equal(await listed(`until=${at}`), true);
  assert.equal(await listed(`timestamp[gte]=${at}`), false);
  assert.equal(await listed(`timestamp[lt]=${at}`), true);
  assert.equal(await listed(`since=${at}&sort=actor&limit=100`), false);

  // A webhook's delivery log: since, until and createdAt ranges.
  const ping = await api.post('/api/webhooks/wh_001/ping');
  assert.equal(ping.status, 202, ping.text);
  const delivery = ping.body.data;
  const after = (delivery.createdAt as string).replace('Z', '5Z');
  const logged = async (query: string) => {
    const res = await api.get(`/api/webhooks/wh_001/deliveries?${query}`);
    assert.equal(res.status, 200, `${query}: ${res.text}`);
    return (res.body.data as Row[]).some((r) => r.id === delivery.id);
  };
  assert.equal(await logged(`since=${after}`), false);
  assert.equal(await logged(`until=${after}`), true);
  assert.equal(await logged(`createdAt[gte]=${after}`), false);
  assert.equal(await logged(`createdAt[lt]=${after}`), true);
});

test('text sorts by code point on every store: U+E000 < U+FF21 < U+1F600, pages and cursors alike', async (t) => {
  const { api } = await testApp(t);
  const project = (await api.post('/api/projects', { name: 'Code points' })).body.data.id as string;
  const titles = ['\uff21 wide A', '\u{1f600} smile', '\ue000 private', 'Z plain', '\u{1f600}\ue000 both'];
  const made: Record<string, string> = {};
  for (const title of titles) {
    const res = await api.post('/api/tasks', { projectId: project, title });
    assert.equal(res.status, 201, res.text);
    made[title] = res.body.data.id;
  }
  const expected = ['Z plain', '\ue000 private', '\uff21 wide A', '\u{1f600} smile', '\u{1f600}\ue000 both'];
  for (const descending of [false, true]) {
    const order = descending ? [...expected].reverse() : expected;
    const sort = descending ? '-title' : 'title';
    const res = await api.get(`/api/tasks?projectId=${project}&sort=${sort}`);
    assert.deepEqual(
      res.body.data.map((r: Row) => r.title),
      order,
      sort,
    );
    const paged: string[] = [];
    let url: string | undefined = `/api/tasks?projectId=${project}&sort=${sort}&limit=1`;
    while (url) {
      const page: { body: { data: Row[]; nextCursor: string | null } } = await api.get(url);
      paged.push(...page.body.data.map((r) => r.title as string));
      url = page.body.nextCursor
        ? `/api/tasks?projectId=${project}&sort=${sort}&limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`
        : undefined;
    }
    assert.deepEqual(paged, order, `${sort}, a page at a time`);
  }
});

/** A cursor sealed as the service seals them, bound to the query of `url`'s, holding `position`. */
async function forged(api: Api, url: string, position: unknown[]): Promise<string> {
  const res = await api.get(url);
  assert.equal(res.status, 200, `${url}: ${res.text}`);
  // The next page's cursor as `Link` names it (every list has it; the activity log's `limit` adds no `nextCursor`).
  const link = res.headers.link as string | undefined;
  assert.ok(link, `${url} has a next page`);
  const cursor = new URL(/^<([^>]+)>/.exec(link)![1]!, 'http://localhost').searchParams.get('cursor')!;
  const [digest] = JSON.parse(Buffer.from(cursor.split('.')[0]!, 'base64url').toString('utf8')) as [string];
  return encodeCursor(digest, position);
}

test('a cursor sealed by hand with position values its sort keys cannot have is a 400 naming cursor', async (t) => {
  const { api } = await testApp(t);
  for (const [task, user] of [
    ['task_001', 'alice'],
    ['task_002', 'bob'],
  ]) {
    await api.patch(`/api/tasks/${task}`, { assignee: user });
  }
  for (let i = 0; i < 2; i++) assert.equal((await api.post('/api/webhooks/wh_001/ping')).status, 202);
  const cases: [string, unknown[]][] = [
    ['/api/tasks?sort=createdAt&limit=1', ['not-a-date', '5']],
    ['/api/tasks?sort=createdAt&limit=1', ['2026-02-30T00:00:00.000Z', '5']],
    ['/api/tasks?sort=createdAt&limit=1', ['2026-09-06', '5']],
    ['/api/tasks?sort=createdAt&limit=1', [5, '5']],
    ['/api/webhooks?sort=-createdAt&limit=1', ['not-a-date', '5']],
    ['/api/webhooks?sort=updatedAt&limit=1', ['not-a-date', '5']],
    ['/api/notifications?sort=-createdAt&limit=1', ['not-a-date', '5']],
    ['/api/milestones?sort=dueDate&limit=1', ['2026-02-30', '5']],
    ['/api/milestones?sort=-dueDate&limit=1', ['soon', '5']],
    ['/api/time-entries?sort=date&limit=1', ['2026-02-30', '5']],
    ['/api/time-entries?sort=hours&limit=1', ['abc', '5']],
    ['/api/time-entries?sort=hours&limit=1', ['1e999', '5']],
    ['/api/time-entries?sort=hours&limit=1', ['2', '5']],
    ['/api/tasks?sort=title&limit=1', ['a\u0000b', '5']],
    ['/api/tasks?sort=title&limit=1', ['\ud800', '5']],
    ['/api/tasks?sort=title&limit=1', [{ title: 'x' }, '5']],
    ['/api/tasks?sort=priority&limit=1', ['urgent', '5']],
    ['/api/tasks?limit=1', [-1]],
    ['/api/tasks?limit=1', ['-1']],
    ['/api/tasks?limit=1', [1.5]],
    ['/api/tasks?sort=title&limit=1', ['Title', -1]],
    ['/api/activity-log?limit=1', ['garbage', '5']],
    ['/api/activity-log?limit=1', ['2026-02-30T00:00:00.000Z', '5']],
    ['/api/activity-log?sort=timestamp&limit=1', ['garbage', '2026-09-06T09:00:00.000Z', '5']],
    ['/api/activity-log?sort=action&limit=1', ['a\u0000', '2026-09-06T09:00:00.000Z', '5']],
    ['/api/webhooks/wh_001/deliveries?limit=1', ['2026-02-30T00:00:00.000Z', '5']],
    ['/api/webhooks/wh_001/deliveries?limit=1', ['garbage', '5']],
  ];
  for (const [url, position] of cases) {
    const cursor = await forged(api, url, position);
    const res = await api.get(`${url}&cursor=${encodeURIComponent(cursor)}`);
    const what = `${url} ${JSON.stringify(position)}`;
    assert.equal(res.status, 400, `${what}: ${res.text}`);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR', what);
    assert.deepEqual(
      res.body.error.details.map((d: { field: string }) => d.field),
      ['cursor'],
      what,
    );
  }
  // A position of values the keys can have is read, whoever sealed it: the store's own, sealed again.
  const url = '/api/tasks?sort=createdAt&limit=1';
  const real = (await api.get(url)).body.nextCursor as string;
  const [, position] = JSON.parse(Buffer.from(real.split('.')[0]!, 'base64url').toString('utf8')) as [string, []];
  const res = await api.get(`${url}&cursor=${encodeURIComponent(await forged(api, url, position))}`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data[0].id, (await api.get(`${url}&cursor=${encodeURIComponent(real)}`)).body.data[0].id);
});
