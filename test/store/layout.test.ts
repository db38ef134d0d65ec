import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryCollection, compact } from '../../src/store/memory/collection.ts';

test('compact gives an equal record with the same key order, and a new object', () => {
  const fields = { projectId: 'proj_001', title: 'It\'s "quoted"', assignee: null, tags: ['a'] };
  const record = { id: 'task_1', ...fields, 'odd-key': 1, createdAt: 'now' };
  const copy = compact(record);
  assert.notEqual(copy, record);
  assert.deepEqual(copy, record);
  assert.deepEqual(Object.keys(copy), Object.keys(record));
  assert.equal(copy.tags, record.tags, 'values are shared, not cloned');
  // Another key set gets its own layout.
  assert.deepEqual(compact({ b: 2, a: 1 }), { b: 2, a: 1 });
  assert.deepEqual(Object.keys(compact({ b: 2, a: 1 })), ['b', 'a']);
});

test('a record with a __proto__ own key is returned as it is, its prototype untouched', () => {
  const record = JSON.parse('{"__proto__": {"polluted": true}, "id": "x"}') as Record<string, unknown>;
  const copy = compact(record);
  assert.equal(copy, record);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('the memory collection stores records laid out, equal to what was given, on insert and replace', async () => {
  const tasks = new MemoryCollection<{ id: string; title: string }>();
  const given = { id: 'task_1', title: 'a' };
  await tasks.insert(given);
  const stored = await tasks.get('task_1');
  assert.notEqual(stored, given);
  assert.deepEqual(stored, given);
  const next = { ...given, title: 'b' };
  await tasks.replace(next);
  assert.notEqual(await tasks.get('task_1'), next);
  assert.deepEqual(await tasks.get('task_1'), next);
});
