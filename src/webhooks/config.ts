/** The default retry delays after a failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts in all). */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = Object.freeze([
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
]);

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
/** setTimeout's largest delay (about 24.8 days); anything longer would fire at once. */
const MAX_DELAY_MS = 2_147_483_647;

/** `'200ms'`, `'5s'`, `'1.5m'`, `'2h'` → milliseconds. Throws on anything else (a bare number has no unit). */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  if (!match) {
    throw new Error(
      `invalid duration ${JSON.stringify(text)}: expected a number and a unit (ms, s, m or h), e.g. 500ms, 5s, 2h`,
    );
  }
  const ms = Math.round(Number(match[1]) * UNITS[match[2]!]!);
  if (ms > MAX_DELAY_MS) throw new Error(`invalid duration ${JSON.stringify(text)}: longer than ${MAX_DELAY_MS} ms`);
  return ms;
}

/**
 * A retry schedule from `WEBHOOK_RETRY_SCHEDULE`: comma-separated durations, e.g. `'200ms,500ms,1s'`,
 * or `none` for no retries. Throws naming the bad step.
 */
export function parseSchedule(text: string): number[] {
  const trimmed = text.trim();
  if (trimmed === 'none') return [];
  if (trimmed === '') throw new Error('invalid retry schedule: empty (use "none" for no retries)');
  return trimmed.split(',').map((step, i) => {
    try {
      return parseDuration(step);
    } catch (err) {
      throw new Error(`invalid retry schedule ${JSON.stringify(text)}, step ${i + 1}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  });
}
