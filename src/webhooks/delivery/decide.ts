import { iso } from '../../model/time.ts';
import {
  pendingAttempt,
  type CurrentWebhook,
  type DeliveryTarget,
  type Outcome,
  type StoredDelivery,
} from '../../store/outbox.ts';
import { delayBeforeRetry, type RetryPolicy } from '../retry.ts';
import type { AttemptResult } from '../send.ts';

/** Why a delivery gets no more attempts (a delivery record's `stopReason`). */
export type StopReason =
  | 'exhausted'
  | 'gone (410)'
  | 'refused'
  | 'undeliverable'
  | 'cancelled: webhook inactive'
  | 'cancelled: webhook deleted';

/** What follows an attempt: nothing (it succeeded), the next attempt at a time, or nothing ever (and why). */
export type Decision =
  | { readonly kind: 'done' }
  | { readonly kind: 'retry'; readonly at: Date; readonly delayMs: number }
  | {
      readonly kind: 'stop';
      readonly status: 'failed' | 'refused';
      readonly reason: StopReason;
      /** A 410 Gone: the receiver wants no more, and the webhook is to be switched off, if its URL is still this. */
      readonly gone?: { readonly webhookId: string; readonly url: string };
    };

/** Whether an attempt is made: to this webhook, or not at all (and why). */
export type Admission =
  { readonly kind: 'go'; readonly webhook: CurrentWebhook } | { readonly kind: 'stop'; readonly reason: StopReason };

/**
 * Whether an attempt is made, with the webhook as it is when it starts: not to a deleted webhook, nor to one switched
 * off, unless it was asked for by hand (a ping, a redelivery: `force`).
 */
export function admit(row: Pick<StoredDelivery, 'force'>, webhook: CurrentWebhook | undefined): Admission {
  if (!webhook) return { kind: 'stop', reason: 'cancelled: webhook deleted' };
  if (!webhook.active && !row.force) return { kind: 'stop', reason: 'cancelled: webhook inactive' };
  return { kind: 'go', webhook };
}

/**
 * What follows an attempt's `result`, at `now`: a 2xx is done; a refusal (a private address) and a target no attempt
 * can reach are final; a 410 Gone is final and switches the webhook off; any other failure is retried when `policy`'s
 * schedule says (or a longer `Retry-After`, capped), until the schedule is spent. Pure: `policy.random` is the only
 * thing it calls.
 */
export function decide(
  row: Pick<StoredDelivery, 'webhookId' | 'attempt'>,
  webhook: DeliveryTarget,
  result: AttemptResult,
  now: Date,
  policy: RetryPolicy,
): Decision {
  switch (result.outcome) {
    case 'ok':
      return { kind: 'done' };
    case 'refused':
      return { kind: 'stop', status: 'refused', reason: 'refused' };
    case 'invalid':
      return { kind: 'stop', status: 'failed', reason: 'undeliverable' };
  }
  if (result.responseStatus === 410) {
    return {
      kind: 'stop',
      status: 'failed',
      reason: 'gone (410)',
      gone: { webhookId: row.webhookId, url: webhook.url },
    };
  }
  const delayMs = delayBeforeRetry(row.attempt, result.retryAfter, now, policy);
  if (delayMs === null) return { kind: 'stop', status: 'failed', reason: 'exhausted' };
  return { kind: 'retry', at: new Date(now.getTime() + delayMs), delayMs };
}

/**
 * The rows a decision writes: the attempt as made, and for a retry the next attempt, due at its time, with the
 * delivery's trace context. What was asked for by hand (a ping, a redelivery) is made once whether the webhook is
 * active or not; its retries, like any, stop once the webhook is switched off (`force` false).
 */
export function outcomeOf(
  row: StoredDelivery,
  webhook: DeliveryTarget,
  result: AttemptResult,
  decision: Decision,
  at: { now: Date; queuedMs: number; nextId: () => string },
): Outcome {
  const { responseStatus, error, durationMs } = result;
  const done: StoredDelivery = {
    ...row,
    status: decision.kind === 'done' ? 'succeeded' : decision.kind === 'stop' ? decision.status : 'failed',
    responseStatus,
    error,
    durationMs,
    completedAt: iso(at.now),
    nextAttemptAt: decision.kind === 'retry' ? iso(decision.at) : null,
    url: webhook.url,
    queuedMs: at.queuedMs,
    stopReason: decision.kind === 'stop' ? decision.reason : null,
  };
  if (decision.kind !== 'retry') return { done };
  const { webhookId, eventId, eventType, payload } = row;
  const attempt = row.attempt + 1;
  const next = pendingAttempt({
    id: at.nextId(),
    webhookId,
    eventId,
    eventType,
    payload,
    attempt,
    at: at.now,
    dueAt: decision.at,
    force: false,
  });
  if (row.traceParent !== undefined) next.traceParent = row.traceParent;
  return { done, next };
}

/** The row of an attempt not made (see {@link admit}). */
export function cancelledOutcome(row: StoredDelivery, reason: StopReason, now: Date, queuedMs: number): Outcome {
  const done = {
    ...row,
    status: 'failed' as const,
    error: reason,
    stopReason: reason,
    queuedMs,
    completedAt: iso(now),
  };
  return { done };
}
