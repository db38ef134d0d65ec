import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRetryAfter, retryDelay } from '../../src/webhooks/retry.ts';

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
