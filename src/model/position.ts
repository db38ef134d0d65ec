import { isCalendarDate, parseInstant } from './time.ts';

/**
 * What a value of a sort key is: an instant (`toISOString()` form), a date (`YYYY-MM-DD`), a number, a text, or an
 * enumeration's value. A position is read back from a cursor, which a client can seal itself: each of its values is
 * checked as any input before a store compares records with it.
 */
export type ValueKind = 'instant' | 'date' | 'number' | 'text' | 'enum';

const STORED_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Whether `value` is a value of its kind as records hold it (`progression`: an enumeration's values), or null (a
 * record without the field). Instants and dates must be ones every store keeps (`2026-02-30` is none); a text must
 * hold no NUL and be well-formed, as every stored text; a number must be finite.
 */
export function fitsKind(kind: ValueKind, value: unknown, progression?: readonly string[]): boolean {
  if (value === null) return true;
  switch (kind) {
    case 'instant':
      return isStoredInstant(value);
    case 'date':
      return typeof value === 'string' && isCalendarDate(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'enum':
      return typeof value === 'string' && (progression ?? []).includes(value);
    case 'text':
      return typeof value === 'string' && !value.includes('\0') && (value as WellFormed).isWellFormed();
  }
}

type WellFormed = string & { isWellFormed(): boolean };

/** Whether `value` is an instant as records hold it: `toISOString()` form, years 0001 to 9999. */
export function isStoredInstant(value: unknown): value is string {
  if (typeof value !== 'string' || !STORED_INSTANT.test(value)) return false;
  const ms = parseInstant(value);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === value;
}

/** Whether `value` is a creation number as positions hold it: a whole number of 0 or more, as text or a number. */
export function isSeq(value: unknown): boolean {
  return (typeof value === 'string' || typeof value === 'number') && /^\d{1,18}$/.test(String(value));
}
