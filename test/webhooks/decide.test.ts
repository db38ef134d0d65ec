/** What follows an attempt: the pure decision and the rows it writes, without timers, sockets or a store. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { admit, cancelledOutcome, decide, outcomeOf, type Decision } from '../../src/webhooks/delivery/decide.ts';
import type { RetryPolicy } from '../../src/webhooks/retry.ts';
import type { AttemptResult } from '../../src/webhooks/send.ts';
import { delivery } from '../store/records.ts';

const NOW = new Date('2026-11-22T10:00:00.000Z');
const at = (ms: number) => new Date(NOW.getTime() + ms);
const hook = { id: 'wh_1', url: 'https://hooks.example.com/in', secret: 'whsec_AbCdEf123456', active: true };
/** Two retries, 50 and 100 ms after, no jitter; a `Retry-After` honoured up to 100 ms. */
const policy: RetryPolicy = { retrySchedule: [50, 100], maxStepMs: 100, jitter: 0, random: () => 0.5 };

const result = (over: Partial<AttemptResult>): AttemptResult => ({
  outcome: 'http',
  responseStatus: 500,
  error: 'HTTP 500',
  retryAfter: undefined,
  durationMs: 12,
  ...over,
});
const ok = result({ outcome: 'ok', responseStatus: 204, error: null });
const first = delivery('dlv_1', 'wh_1');

test('a 2xx is done; a refusal and an unusable target stop at once, each with its reason', () => {
  assert.deepEqual(decide(first, hook, ok, NOW, policy), { kind: 'done' });
  assert.deepEqual(decide(first, hook, result({ outcome: 'refused', responseStatus: null }), NOW, policy), {
    kind: 'stop',
    status: 'refused',
    reason: 'refused',
  });
  assert.deepEqual(decide(first, hook, result({ outcome: 'invalid', responseStatus: null }), NOW, policy), {
    kind: 'stop',
    status: 'failed',
    reason: 'undeliverable',
  });
});

test('a 410 stops, whatever the schedule left, and asks for the webhook to be switched off if its URL is still the one that answered', () => {
  let drawn = 0;
  const counting = { ...policy, random: () => (drawn++, 0.5) };
  assert.deepEqual(decide(first, hook, result({ responseStatus: 410, error: 'HTTP 410 Gone' }), NOW, counting), {
    kind: 'stop',
    status: 'failed',
    reason: 'gone (410)',
    gone: { webhookId: 'wh_1', url: hook.url },
  });
  assert.equal(drawn, 0, 'no retry is planned');
});

test('any other failure is retried at the step of its attempt, then stops once the schedule is spent', () => {
  for (const failure of [
    result({}),
    result({ outcome: 'timeout', responseStatus: null, error: 'timeout after 300 ms' }),
    result({ outcome: 'network', responseStatus: null, error: 'ECONNREFUSED' }),
    result({ outcome: 'http', responseStatus: 302, error: 'HTTP 302 (redirects are not followed)' }),
  ]) {
    assert.deepEqual(decide(first, hook, failure, NOW, policy), { kind: 'retry', at: at(50), delayMs: 50 });
    assert.deepEqual(decide({ ...first, attempt: 2 }, hook, failure, NOW, policy), {
      kind: 'retry',
      at: at(100),
      delayMs: 100,
    });
    assert.deepEqual(decide({ ...first, attempt: 3 }, hook, failure, NOW, policy), {
      kind: 'stop',
      status: 'failed',
      reason: 'exhausted',
    });
  }
  assert.deepEqual(decide(first, hook, result({}), NOW, { ...policy, retrySchedule: [] }), {
    kind: 'stop',
    status: 'failed',
    reason: 'exhausted',
  });
});

test('a Retry-After longer than the step is honoured, up to the longest step; the jitter spreads the step', () => {
  const asking = (retryAfter: string) => decide(first, hook, result({ responseStatus: 503, retryAfter }), NOW, policy);
  assert.deepEqual(asking('0.07'), { kind: 'retry', at: at(50), delayMs: 50 }, 'unreadable: the step');
  assert.equal((asking('1') as Extract<Decision, { kind: 'retry' }>).delayMs, 100, 'capped at the longest step');
  const long = { ...policy, maxStepMs: 10_000 };
  const d = decide(first, hook, result({ responseStatus: 503, retryAfter: '2' }), NOW, long);
  assert.deepEqual(d, { kind: 'retry', at: at(2_000), delayMs: 2_000 });
  const jittered = { ...policy, jitter: 0.2, random: () => 0 };
  assert.deepEqual(decide(first, hook, result({}), NOW, jittered), { kind: 'retry', at: at(40), delayMs: 40 });
});

test('an attempt is made to a webhook that is on; to one switched off only when asked for by hand; never to a deleted one', () => {
  assert.deepEqual(admit(first, hook), { kind: 'go', webhook: hook });
  const off = { ...hook, active: false };
  assert.deepEqual(admit(first, off), { kind: 'stop', reason: 'cancelled: webhook inactive' });
  assert.deepEqual(admit({ ...first, force: true }, off), { kind: 'go', webhook: off });
  assert.deepEqual(admit({ ...first, force: true }, undefined), { kind: 'stop', reason: 'cancelled: webhook deleted' });
});

test('the rows a decision writes: the attempt as made, and for a retry the next attempt, due at its time and not forced', () => {
  const forced = { ...first, force: true };
  const failure = result({ responseStatus: 503 });
  const ids = ['dlv_2'];
  const written = (d: Decision, r = failure) =>
    outcomeOf(forced, hook, r, d, { now: NOW, queuedMs: 7, nextId: () => ids.shift()! });

  const retry = written(decide(forced, hook, failure, NOW, policy));
  assert.deepEqual(retry.done, {
    ...forced,
    status: 'failed',
    responseStatus: 503,
    error: 'HTTP 500',
    durationMs: 12,
    completedAt: NOW.toISOString(),
    nextAttemptAt: at(50).toISOString(),
    url: hook.url,
    queuedMs: 7,
    stopReason: null,
  });
  assert.deepEqual(retry.next, {
    ...delivery('dlv_2', 'wh_1', { eventId: forced.eventId, payload: forced.payload }),
    attempt: 2,
    createdAt: NOW.toISOString(),
    dueAt: at(50).toISOString(),
    force: false,
  });

  const done = written({ kind: 'done' }, ok);
  assert.equal(done.next, undefined);
  assert.deepEqual([done.done.status, done.done.stopReason, done.done.nextAttemptAt], ['succeeded', null, null]);
  const gone = written(decide(forced, hook, result({ responseStatus: 410 }), NOW, policy));
  assert.deepEqual([gone.done.status, gone.done.stopReason, gone.next], ['failed', 'gone (410)', undefined]);
  const refused = written({ kind: 'stop', status: 'refused', reason: 'refused' });
  assert.deepEqual([refused.done.status, refused.done.stopReason], ['refused', 'refused']);

  const cancelled = cancelledOutcome(first, 'cancelled: webhook deleted', NOW, 3);
  assert.deepEqual(cancelled, {
    done: {
      ...first,
      status: 'failed',
      error: 'cancelled: webhook deleted',
      stopReason: 'cancelled: webhook deleted',
      queuedMs: 3,
      completedAt: NOW.toISOString(),
    },
  });
});
