/**
 * What the fuzzers found, pinned as plain tests so it stays fixed whatever seed the fuzzers run with.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/app.ts';
import { MAX_JSON_DEPTH } from '../../src/http/body.ts';
import { MemoryStore } from '../../src/store/memory/store.ts';

/** A JSON object `levels` objects deep. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

async function app(t: import('node:test').TestContext) {
  const store = new MemoryStore();
  const app = await buildApp({ store, config: { logLevel: 'silent' } });
  t.after(() => app.close());
  return { a: app, store };
}

test('a JSON body nested deeper than 64 levels is 400 VALIDATION_ERROR and stores nothing (stored, it would fail every read of the activity log)', async (t) => {
  const { a, store } = await app(t);
  const before = await store.activity.count();
  // The body is level 1: metadata `levels` objects deep makes the body levels + 1 deep.
  const post = (levels: number) =>
    a.inject({
      method: 'POST',
      url: '/api/activity-log',
      headers: { 'content-type': 'application/json' },
      payload: `{"action":"deep","actor":"fuzz","resourceType":"x","resourceId":"y","metadata":${nested(levels)}}`,
    });

  for (const levels of [MAX_JSON_DEPTH, 20_000, 100_000]) {
    const res = await post(levels);
    assert.equal(res.statusCode, 400, `metadata ${levels} levels deep`);
    assert.deepEqual(res.json().error.details, [
      { field: 'body', message: `must not be nested more than ${MAX_JSON_DEPTH} levels deep` },
    ]);
  }
  assert.equal(await store.activity.count(), before);

  const atLimit = await post(MAX_JSON_DEPTH - 1);
  assert.equal(atLimit.statusCode, 201, atLimit.body);
  const list = await a.inject({ method: 'GET', url: '/api/activity-log' });
  assert.equal(list.statusCode, 200);
  assert.equal(list.json().total, before + 1);
});

test('deep nesting in an array, or in a field every schema drops, is refused the same way', async (t) => {
  const { a, store } = await app(t);
  for (const payload of [
    `[${'['.repeat(70)}${']'.repeat(70)}]`,
    `{"projectId":"proj_001","title":"t","junk":${nested(100_000)}}`,
  ]) {
    const res = await a.inject({
      method: 'POST',
      url: '/api/tasks',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error.code, 'VALIDATION_ERROR');
  }
  assert.equal((await store.tasks.list()).length, 10);
});
