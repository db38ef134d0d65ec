/**
 * How long a `Retry-After` header asks to wait, in milliseconds: delta-seconds (`120`) or an HTTP date.
 * `null` when absent or unreadable; a date in the past is 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP dates (IMF-fixdate, RFC 850, asctime) all start with the day's name.
  const at = /^[A-Za-z]{3}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}

export interface DelayOptions {
  /** What the receiver's `Retry-After` asked for, if anything. */
  retryAfterMs: number | null;
  /** Longest wait a `Retry-After` may impose (the schedule's largest step). */
  capMs: number;
  /** Spread, as a fraction: 0.2 makes the delay 80 %–120 % of the scheduled step. */
  jitter: number;
  /** A number in [0, 1). */
  random: () => number;
}

/**
 * The wait before the next attempt: the scheduled step with jitter (so receivers that come back
 * up are not hit by every queued retry at once), or what `Retry-After` asks when that is longer, capped.
 */
export function retryDelay(scheduledMs: number, { retryAfterMs, capMs, jitter, random }: DelayOptions): number {
  const jittered = scheduledMs * (1 - jitter + 2 * jitter * random());
  const asked = retryAfterMs === null ? 0 : Math.min(retryAfterMs, capMs);
  return Math.round(Math.max(jittered, asked));
}

export interface RetryPolicy {
  readonly retrySchedule: readonly number[];
  /** Longest wait a `Retry-After` may ask for. */
  readonly maxStepMs: number;
  readonly jitter: number;
  readonly random: () => number;
}

/** The wait before retrying after failed attempt number `attempt` (1-based), or `null` when the schedule is spent. */
export function delayBeforeRetry(
  attempt: number,
  retryAfter: string | undefined,
  now: Date,
  policy: RetryPolicy,
): number | null {
  const step = policy.retrySchedule[attempt - 1];
  if (step === undefined) return null;
  const { maxStepMs: capMs, jitter, random } = policy;
  return retryDelay(step, { retryAfterMs: parseRetryAfter(retryAfter, now), capMs, jitter, random });
}
