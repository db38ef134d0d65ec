import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testApp } from '../helpers/app.ts';

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
