import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertExpectedVersion, etagOf } from '../../src/core/etag.ts';
import { entityTags } from '../../src/http/etag.ts';

const record = { id: 'task_1', updatedAt: '2026-11-22T10:00:00.000Z' };
const current = etagOf(record);
const refused = (expected: string[]) =>
  assert.throws(() => assertExpectedVersion(expected, record), { code: 'PRECONDITION_FAILED' }, expected.join());

test('If-Match is split into the entity tags sent, weak prefixes kept', () => {
  assert.deepEqual(entityTags(' W/"a" ,"b",, * '), ['W/"a"', '"b"', '*']);
  assert.deepEqual(entityTags(''), []);
});

test('a change goes ahead on the current version, any of several, or *; with no expectation at all', () => {
  assert.equal(current, '"2026-11-22T10:00:00.000Z"');
  for (const expected of [[current], ['"old"', current], ['*'], undefined]) {
    assert.doesNotThrow(() => assertExpectedVersion(expected, record), String(expected));
  }
});

test('a stale version, a weak tag of the current one (strong comparison) or an empty header is refused', () => {
  refused(['"old"']);
  refused([`W/${current}`]);
  refused([]);
});

test('a hashed tag does not depend on key order, nested keys included, and differs when a value does', () => {
  const entry = {
    id: 'act_1',
    metadata: { from: 'todo', to: 'done', by: { name: 'a', at: 1 } },
    list: [{ b: 1, a: 2 }],
  };
  const reordered = {
    list: [{ a: 2, b: 1 }],
    metadata: { by: { at: 1, name: 'a' }, to: 'done', from: 'todo' },
    id: 'act_1',
  };
  assert.match(etagOf(entry), /^"h[0-9a-z]+"$/);
  assert.equal(etagOf(reordered), etagOf(entry));
  assert.notEqual(etagOf({ ...entry, metadata: { from: 'done', to: 'todo', by: entry.metadata.by } }), etagOf(entry));
  assert.notEqual(etagOf({ ...entry, list: [{ a: 1, b: 2 }] }), etagOf(entry));
});
