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
