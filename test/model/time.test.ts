import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextTimestamp, parseInstant } from '../../src/model/time.ts';
import { randomAlphanumeric } from '../../src/model/ids.ts';

test('parseInstant: ISO 8601 instants, UTC when no zone, a date alone as its first or last millisecond', () => {
  assert.equal(parseInstant('2026-09-30T16:00:00.000Z'), Date.UTC(2026, 8, 30, 16));
  assert.equal(parseInstant('2026-09-30T16:00'), Date.UTC(2026, 8, 30, 16));
  assert.equal(parseInstant('2026-09-30T18:00:00+02:00'), Date.UTC(2026, 8, 30, 16));
  assert.equal(parseInstant('2026-09-30'), Date.UTC(2026, 8, 30));
  assert.equal(parseInstant('2026-09-30', true), Date.UTC(2026, 9, 1) - 1);
  for (const bad of ['2026-02-30', '2026-13-01', '2026-09-30T24:00', 'yesterday', '1700000000', '2026-9-3', '']) {
    assert.ok(Number.isNaN(parseInstant(bad)), bad);
  }
});

test('nextTimestamp is strictly later than the previous one, even when the clock has not moved or went back', () => {
  const clock = (iso: string) => ({ now: () => new Date(iso) });
  assert.equal(
    nextTimestamp(clock('2026-11-22T10:00:01.000Z'), '2026-11-22T10:00:00.000Z'),
    '2026-11-22T10:00:01.000Z',
  );
  assert.equal(
    nextTimestamp(clock('2026-11-22T10:00:00.000Z'), '2026-11-22T10:00:00.000Z'),
    '2026-11-22T10:00:00.001Z',
  );
  assert.equal(
    nextTimestamp(clock('2026-11-22T09:00:00.000Z'), '2026-11-22T10:00:00.000Z'),
    '2026-11-22T10:00:00.001Z',
  );
});

test('randomAlphanumeric gives the asked length of alphanumerics, different each time', () => {
  const ids = new Set(Array.from({ length: 1000 }, () => randomAlphanumeric(16)));
  assert.equal(ids.size, 1000);
  for (const id of ids) assert.match(id, /^[A-Za-z0-9]{16}$/);
});
