import { AnyOf, PositionError, Range, type Position, type Search, type SortKey } from '../types.ts';

/**
 * What the memory store's lists share: conditions, search and order as types.ts words them, so that the memory
 * collections answer a `ListQuery` as the SQL store does.
 */

/** Whether a field's value meets a condition (exact, `AnyOf`, `Range`); array fields match by any element. */
export function matchesField(actual: unknown, expected: unknown): boolean {
  if (expected instanceof AnyOf) return expected.values.some((v) => matchesField(actual, v));
  if (expected instanceof Range) return inRange(actual, expected);
  return Array.isArray(actual) ? actual.includes(expected) : actual === expected;
}

function inRange(actual: unknown, range: Range): boolean {
  if (actual === null || actual === undefined) return false;
  const { gt, gte, lt, lte } = range.bounds;
  const v = actual as string | number;
  return (
    (gt === undefined || v > gt) &&
    (gte === undefined || v >= gte) &&
    (lt === undefined || v < lt) &&
    (lte === undefined || v <= lte)
  );
}

/**
 * A test of a record against a search, or undefined for none. Each term is a case-insensitive literal pattern; before
 * it, a cheap check that the field holds the term's rarest letter in either case (`indexOf`), which most records fail
 * (the rare-byte heuristic of grep tools): the pattern runs only on the few that pass.
 */
export function searchTest<T>(search: Search<T> | undefined): ((record: T) => boolean) | undefined {
  if (!search || search.terms.length === 0) return undefined;
  const terms = search.terms.map(termTest);
  const fields = search.fields;
  return (record) => {
    for (const test of terms) {
      let found = false;
      for (const f of fields) {
        const value = record[f];
        if (typeof value === 'string' && test(value)) {
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    return true;
  };
}

/**
 * A text folded for search: each UTF-16 unit as a case-insensitive pattern without the `u` flag compares it
 * (ECMAScript's Canonicalize: its upper case when that is a single unit and does not take a non-ASCII unit to
 * ASCII). A term's fold occurs in a text's fold exactly when the term matches the text as `termTest` matches it, so
 * the memory collections keep folded texts and find a term with `indexOf`. Unit by unit, so folding texts joined by a
 * separator joins their folds; only `\n` folds to `\n`.
 */
export function fold(text: string): string {
  if (ASCII.test(text)) return text.toUpperCase();
  const table = (canonical ??= canonicalUnits());
  const units = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) units[i] = table[text.charCodeAt(i)]!;
  let folded = '';
  for (let i = 0; i < units.length; i += 8192) folded += String.fromCharCode(...units.subarray(i, i + 8192));
  return folded;
}

/** Printable ASCII and its usual whitespace, whose fold is its upper case (other texts take the table). */
const ASCII = /^[\t\n\r -~]*$/;
let canonical: Uint16Array | undefined;

/** Canonicalize of every UTF-16 unit, made on the first text beyond ASCII. */
function canonicalUnits(): Uint16Array {
  const table = new Uint16Array(0x10000);
  for (let unit = 0; unit < 0x10000; unit++) {
    const upper = String.fromCharCode(unit).toUpperCase();
    table[unit] = upper.length !== 1 || (unit >= 128 && upper.charCodeAt(0) < 128) ? unit : upper.charCodeAt(0);
  }
  return table;
}

/** Letters and digits, rarest first in English text. */
const RARITY = 'zqxjkvbpygfwmucldrhsnioate0123456789';

function termTest(term: string): (value: string) => boolean {
  const pattern = new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
  const lower = term.toLowerCase();
  let rare = -1;
  for (const c of lower) {
    const at = RARITY.indexOf(c);
    if (at >= 0 && (rare < 0 || at < RARITY.indexOf(lower[rare]!))) rare = lower.indexOf(c);
  }
  if (rare < 0) return (value) => pattern.test(value);
  const small = lower[rare]!;
  const capital = small.toUpperCase();
  return (value) => (value.indexOf(small) >= 0 || value.indexOf(capital) >= 0) && pattern.test(value);
}

/**
 * Compares two values of one sort key, direction applied: null (or missing) after any value either way, an
 * enumeration by its progression.
 */
export function compareKey(a: unknown, b: unknown, key: SortKey): number {
  const aMissing = a === null || a === undefined;
  const bMissing = b === null || b === undefined;
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  let order: number;
  if (key.progression) order = key.progression.indexOf(a as string) - key.progression.indexOf(b as string);
  else order = (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
  return key.descending ? -order : order;
}

/** Compares two lists of sort values key by key. */
export function compareKeys(a: readonly unknown[], b: readonly unknown[], sort: readonly SortKey[]): number {
  for (let i = 0; i < sort.length; i++) {
    const c = compareKey(a[i], b[i], sort[i]!);
    if (c !== 0) return c;
  }
  return 0;
}

/** The sort values of a record. */
export function valuesOf(record: object, sort: readonly SortKey[]): unknown[] {
  return sort.map((k) => (record as Record<string, unknown>)[k.field] ?? null);
}

/** A position's sort values and tie-break, checked for shape: `tie` tells whether the tie-break is readable. */
export function readPosition(
  position: Position,
  sort: readonly SortKey[],
  tieLength: number,
  tie: (values: readonly unknown[]) => boolean,
): { values: readonly unknown[]; tie: readonly unknown[] } {
  if (!Array.isArray(position) || position.length !== sort.length + tieLength) throw new PositionError();
  const values = position.slice(0, sort.length);
  const rest = position.slice(sort.length);
  if (!values.every((v) => v === null || typeof v === 'string' || typeof v === 'number') || !tie(rest)) {
    throw new PositionError();
  }
  return { values, tie: rest };
}
