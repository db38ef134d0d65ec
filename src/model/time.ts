/** Source of the current time. Injected so tests can control it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The last instant `iso` wrote, and what it wrote. */
let lastMs = NaN;
let lastIso = '';

/**
 * Timestamps are ISO 8601 UTC with milliseconds. One change stamps the same millisecond several times (its record,
 * its event, its activity entries, its deliveries), and `toISOString` is a call into the engine's runtime: the last
 * one written is reused for the same millisecond (bench/HISTORY.md, *a create's consumers, one by one*).
 */
export function iso(date: Date): string {
  const ms = date.getTime();
  if (ms !== lastMs) {
    lastIso = date.toISOString(); // throws on an invalid date
    lastMs = ms;
  }
  return lastIso;
}

/**
 * The timestamp for an update of a record last changed at `previous`: now, or 1 ms after `previous`
 * when the clock has not moved (or moved back), so `updatedAt` is always strictly later.
 */
export function nextTimestamp(clock: Clock, previous: string): string {
  const now = clock.now().getTime();
  const prev = Date.parse(previous);
  return iso(new Date(Number.isNaN(prev) || now > prev ? now : prev + 1));
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** The instants every store keeps: years 0001 to 9999, in UTC (PostgreSQL has no year 0). */
const EARLIEST = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * Epoch milliseconds of an ISO 8601 instant (NaN when it is not one): a missing zone means UTC; a date alone
 * means the start of that day, or its last millisecond with `endOfDay` (so `until=2026-09-30` covers that day).
 * Impossible dates (`2026-02-30`) are refused rather than rolled over, and so are instants outside years 0001 to
 * 9999 in UTC, which not every store could keep or compare with.
 */
export function parseInstant(s: string, endOfDay = false): number {
  const m = INSTANT.exec(s);
  if (!m) return NaN;
  const [, y, mo, d, h = '0', mi = '0', sec = '0'] = m;
  // setUTCFullYear, since Date.UTC reads the years 0 to 99 as 1900 to 1999.
  const day = new Date(0);
  day.setUTCFullYear(+y!, +mo! - 1, +d!);
  if (day.getUTCFullYear() !== +y! || day.getUTCMonth() !== +mo! - 1 || day.getUTCDate() !== +d!) return NaN;
  if (+h > 23 || +mi > 59 || +sec > 59) return NaN;
  const ms = s.includes('T') ? Date.parse(m[8] ? s : `${s}Z`) : day.getTime() + (endOfDay ? 86_400_000 - 1 : 0);
  return isStorableInstant(ms) ? ms : NaN;
}

/**
 * Whether an instant `parseInstant` reads is written with a nonzero fraction of a millisecond
 * (`09:00:00.0001Z`): `parseInstant` drops it (the millisecond it falls in, as the stores keep instants), so it is
 * later than what `parseInstant` answers, and a bound `at or after` or `before` it must not hold of that
 * millisecond.
 */
export function isBetweenMilliseconds(s: string): boolean {
  const fraction = INSTANT.exec(s)?.[7];
  return fraction !== undefined && /[1-9]/.test(fraction.slice(3));
}

/**
 * Epoch milliseconds of the first millisecond at or after an ISO 8601 instant (NaN when it is not one): as
 * `parseInstant`, but an instant between two milliseconds gives the later one (`since=…T09:00:00.0009Z` does not
 * hold of `…T09:00:00.000Z`). Within the last millisecond a store keeps (9999-12-31T23:59:59.999Z), that one, as no
 * later one can be kept (the service stamps instants with its clock, never that late).
 */
export function parseInstantFrom(s: string): number {
  const ms = parseInstant(s);
  return isBetweenMilliseconds(s) && ms < LATEST ? ms + 1 : ms;
}

/** Whether epoch milliseconds `ms` are an instant every store keeps (years 0001 to 9999, UTC); false for NaN. */
export const isStorableInstant = (ms: number): boolean => ms >= EARLIEST && ms <= LATEST;

/** Whether `s` is a calendar date, `YYYY-MM-DD`, of the years 0001 to 9999. */
export function isCalendarDate(s: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(parseInstant(s));
}
