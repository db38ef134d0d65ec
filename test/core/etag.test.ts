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
