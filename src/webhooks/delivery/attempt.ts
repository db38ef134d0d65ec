import type { Dispatcher } from 'undici';
import { recordOf, type CurrentWebhook, type Outcome, type StoredDelivery } from '../../store/outbox.ts';
import { describeError, sendOnce, type AttemptResult } from '../send.ts';
import { signingKey, webhookHeaders } from '../signing.ts';
import { notify, type DeliveryContext, type InFlight, type Prechecks } from './context.ts';
import { admit, cancelledOutcome, decide, outcomeOf, type Decision } from './decide.ts';
import type { FreshWebhooks } from './fresh.ts';
import type { OutcomeWriter } from './outcomes.ts';
import type { Slots } from './slots.ts';

/** What one attempt needs besides the delivery's context: each a part of its own (the wiring makes them). */
export interface AttemptContext extends DeliveryContext {
  readonly agent: Dispatcher;
  /** Aborted when the grace period at close is over: the requests still under way end. */
  readonly shutdown: AbortSignal;
  readonly prechecks: Prechecks;
  readonly fresh: FreshWebhooks;
  readonly slots: Slots;
  readonly writer: OutcomeWriter;
  /** Attempts cut short by the shutdown, to give back to the outbox. */
  readonly cut: string[];
  wakeUpAt(at: number, now: number): void;
}

/**
 * One attempt, from reading the webhook to recording the outcome: the webhook as it is now → made or not → its
 * result → the decision → the outcome written → what it causes. Never rejects.
 */
export async function attempt(c: AttemptContext, flight: InFlight): Promise<void> {
  const { row } = flight;
  c.fresh.refresh(flight);
  try {
    const admitted = admit(row, await flight.hook);
    const started = c.s.clock.now();
    const queuedMs = Math.max(0, started.getTime() - Date.parse(row.dueAt));
    if (admitted.kind === 'stop') {
      c.slots.free(flight);
      c.s.log.info({ webhookId: row.webhookId, eventId: row.eventId }, `webhook delivery ${admitted.reason}`);
      return await record(c, cancelledOutcome(row, admitted.reason, started, queuedMs));
    }
    const hook = admitted.webhook;
    tellAttempted(c, row, started);
    const result = c.prechecks.of(hook.url) ?? (await send(c, row, hook));
    c.slots.free(flight, result.outcome !== 'timeout');
    if (result.outcome === 'aborted' && c.closed) return void c.cut.push(row.id); // given back at close
    await settle(c, row, hook, result, queuedMs);
  } catch (err) {
    c.s.log.error({ err, webhookId: row.webhookId, eventId: row.eventId }, 'webhook delivery bookkeeping failed');
  }
}

/** Tells the observer an attempt is made; one that throws is logged, no more. */
function tellAttempted(c: AttemptContext, row: StoredDelivery, started: Date): void {
  try {
    c.observer?.attempted?.(row, started);
  } catch (err) {
    c.s.log.error({ err, webhookId: row.webhookId }, 'webhook delivery observer failed');
  }
}

/** Signs the row's payload for now and sends it once. */
async function send(c: AttemptContext, row: StoredDelivery, hook: CurrentWebhook): Promise<AttemptResult> {
  const seconds = Math.floor(c.s.clock.now().getTime() / 1000);
  const body = row.payload;
  let headers: Record<string, string>;
  try {
    headers = webhookHeaders(signingKey(hook.secret), row.eventId, seconds, body);
  } catch (err) {
    // Cannot happen with the service's own secrets and records; final, since no retry would fare better.
    c.s.log.error({ err, webhookId: row.webhookId, eventId: row.eventId }, 'webhook delivery could not be signed');
    const error = `could not be signed: ${describeError(err)}`;
    return { outcome: 'invalid', responseStatus: null, error, retryAfter: undefined, durationMs: 0 };
  }
  const { timeoutMs } = c.s;
  return sendOnce({
    dispatcher: c.agent,
    url: hook.url,
    headers,
    body,
    timeoutMs,
    shutdown: c.shutdown,
    timers: c.timers,
  }).catch((err: unknown): AttemptResult => ({
    outcome: 'network',
    responseStatus: null,
    error: describeError(err),
    retryAfter: undefined,
    durationMs: 0,
  }));
}

/** Decides what follows a result, says so in the log, and records it. */
async function settle(
  c: AttemptContext,
  row: StoredDelivery,
  hook: CurrentWebhook,
  result: AttemptResult,
  queuedMs: number,
): Promise<void> {
  const now = c.s.clock.now();
  const decision = decide(row, hook, result, now, c.s);
  logDecision(c, row, result, decision);
  const outcome = outcomeOf(row, hook, result, decision, { now, queuedMs, nextId: () => c.s.ids('dlv') });
  const { gone } = decision.kind === 'stop' ? decision : {};
  const { onGone } = c.s;
  if (!gone || !onGone) return record(c, outcome);
  return record(c, outcome, () =>
    Promise.resolve()
      .then(() => onGone(gone.webhookId, gone.url))
      .catch((err: unknown) => c.s.log.error({ err, webhookId: gone.webhookId }, 'webhook onGone callback failed')),
  );
}

function logDecision(c: AttemptContext, row: StoredDelivery, result: AttemptResult, decision: Decision): void {
  const { log } = c.s;
  const line = {
    webhookId: row.webhookId,
    eventId: row.eventId,
    attempt: row.attempt,
    status: result.responseStatus,
    error: result.error,
  };
  if (decision.kind === 'done') return log.debug(line, 'webhook delivery succeeded');
  if (decision.kind === 'retry')
    return log.debug({ ...line, delayMs: decision.delayMs }, 'webhook delivery failed: retry scheduled');
  if (decision.reason === 'refused') return log.warn(line, 'webhook delivery refused');
  if (decision.reason === 'gone (410)') return log.info(line, 'webhook receiver answered 410 Gone: no retry');
  if (decision.reason === 'exhausted') log.warn(line, 'webhook delivery failed: retries exhausted');
}

/**
 * Writes an attempt's outcome (and the attempt that follows) with the others that come meanwhile; then what the
 * outcome causes (a 410 switching the webhook off), then tells the observer.
 */
async function record(c: AttemptContext, { done, next }: Outcome, then?: () => Promise<void>): Promise<void> {
  const kept = await c.writer.write({ done, next });
  if (!kept) {
    c.s.log.warn(
      { webhookId: done.webhookId, eventId: done.eventId, deliveryId: done.id },
      'webhook delivery lease lost (the attempt outlasted it): outcome not recorded',
    );
    return;
  }
  if (next) c.wakeUpAt(Date.parse(next.dueAt), Date.parse(done.completedAt!));
  await then?.();
  notify(c, recordOf(done));
}
