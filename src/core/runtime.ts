import { randomBytes } from 'node:crypto';

/** Source of the current time. Injected so tests can control it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Makes new record identifiers: `<prefix>_<suffix>`. Injected so tests can make them predictable. */
export type IdGenerator = (prefix: string) => string;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * `length` characters from a cryptographic source, alphanumeric only.
 * Rejection sampling keeps every character equally likely (256 is not a multiple of 62).
 */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** 16 random alphanumerics: about 95 bits, unguessable and collision-free in practice. */
export const randomIds: IdGenerator = (prefix) => `${prefix}_${randomAlphanumeric(16)}`;

/** Timestamps are ISO 8601 UTC with milliseconds. */
export const iso = (date: Date): string => date.toISOString();

/**
 * The timestamp for an update of a record last changed at `previous`: now, or 1 ms after `previous`
 * when the clock has not moved (or moved back), so `updatedAt` is always strictly later.
 */
export function nextTimestamp(clock: Clock, previous: string): string {
  const now = clock.now().getTime();
  const prev = Date.parse(previous);
  return new Date(Number.isNaN(prev) || now > prev ? now : prev + 1).toISOString();
}
