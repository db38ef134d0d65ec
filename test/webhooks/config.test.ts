import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_RETRY_SCHEDULE, parseDuration, parseSchedule } from '../../src/webhooks/config.ts';
import { parseRetryAfter, retryDelay } from '../../src/webhooks/retry.ts';

test('parseDuration reads ms, s, m and h', () => {
  assert.equal(parseDuration('200ms'), 200);
  assert.equal(parseDuration('5s'), 5_000);
  assert.equal(parseDuration(' 5m '), 300_000);
  assert.equal(parseDuration('2h'), 7_200_000);
  assert.equal(parseDuration('1.5s'), 1_500);
  assert.equal(parseDuration('0ms'), 0);
});

test('parseDuration refuses anything else with a clear message', () => {
  for (const bad of ['', '5', 'ms', '-1s', '5 d', '5d', '1e3ms', 's5', '5sec', '1,5s', '30d', '1000h']) {
    assert.throws(() => parseDuration(bad), /invalid duration/, bad);
  }
  assert.throws(() => parseDuration('5'), /expected a number and a unit/);
});

test('parseSchedule reads a comma-separated list; none means no retries', () => {
  assert.deepEqual(parseSchedule('200ms,500ms,1s'), [200, 500, 1_000]);
  assert.deepEqual(parseSchedule(' 5s, 5m ,30m,2h,5h,10h,10h '), [...DEFAULT_RETRY_SCHEDULE]);
  assert.deepEqual(parseSchedule('none'), []);
});

test('parseSchedule names the bad step', () => {
  assert.throws(() => parseSchedule(''), /empty/);
  assert.throws(() => parseSchedule('200ms,,1s'), /step 2/);
  assert.throws(() => parseSchedule('200ms,fast'), /step 2: invalid duration "fast"/);
  assert.throws(() => parseSchedule('1s,'), /step 2/);
});

test('parseRetryAfter reads delta-seconds and HTTP dates', () => {
  const now = new Date('2026-11-22T10:00:00.000Z');
  assert.equal(parseRetryAfter('1', now), 1_000);
  assert.equal(parseRetryAfter(' 120 ', now), 120_000);
  assert.equal(parseRetryAfter(['3', '9'], now), 3_000);
  assert.equal(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now), 0);
  assert.equal(parseRetryAfter(undefined, now), null);
  assert.equal(parseRetryAfter('', now), null);
  assert.equal(parseRetryAfter('soon', now), null);
  assert.equal(parseRetryAfter('-5', now), null);
});

test('retryDelay: the step with jitter, or a longer Retry-After up to the cap', () => {
  const base = { retryAfterMs: null, capMs: 10_000, jitter: 0.2 };
  assert.equal(retryDelay(1_000, { ...base, random: () => 0 }), 800);
  assert.equal(retryDelay(1_000, { ...base, random: () => 0.5 }), 1_000);
  assert.equal(retryDelay(1_000, { ...base, random: () => 0.999999 }), 1_200);
  // Retry-After asks for longer: honoured, capped at the largest step.
  assert.equal(retryDelay(1_000, { ...base, retryAfterMs: 5_000, random: () => 0.5 }), 5_000);
  assert.equal(retryDelay(1_000, { ...base, retryAfterMs: 3_600_000, random: () => 0.5 }), 10_000);
  // …and for shorter: the schedule wins.
  assert.equal(retryDelay(1_000, { ...base, retryAfterMs: 10, random: () => 0.5 }), 1_000);
});
