import { AllOf, AnyOf, PositionError, Range, type Position, type Search, type SortKey } from '../../model/list.ts';

/**
 * What the memory store's lists share: conditions, search and order as types.ts words them, so that the memory
 * collections answer a `ListQuery` as the SQL store does.
 */

/** Whether a field's value meets a condition (exact, `AnyOf`, `AllOf`, `Range`); array fields match by any element. */
export function matchesField(actual: unknown, expected: unknown): boolean {
  if (expected instanceof AllOf) return expected.conditions.every((c) => matchesField(actual, c));
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
 * A test of a record against a search, or undefined for none. Each term is a literal found in the field's fold
 * (`fold`); before it, a cheap check that the field holds a character that folds to the term's rarest letter
 * (`includes`), which most records fail (the rare-byte heuristic of grep tools): the fold runs only on the few that
 * pass.
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
 * A text folded for search as PostgreSQL's `ILIKE` folds it (`lower()` of each character, in the C.UTF-8 ctype of the
 * server and of PGlite alike): every code point to its simple lower case, `İ` to `i`, with no final-sigma rule and no
 * expansion (`ß` stays `ß`, so `STRASSE` does not find `Straße`). A term's fold occurs in a text's fold exactly when
 * the SQL store finds the term in the text, so the memory collections keep folded texts and find a term with
 * `indexOf`. Code point by code point, so folding texts joined by a separator joins their folds; only `\n` folds to
 * `\n`.
 */
export function fold(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase();
  const table = (lowerUnits ??= lowerTable());
  const units = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      // A code point beyond the BMP: its lower case, when that is one code point beyond it too (Deseret, Osage…).
      const lower = text.slice(i, i + 2).toLowerCase();
      const same = lower.length !== 2;
      units[i] = same ? unit : lower.charCodeAt(0);
      units[i + 1] = same ? next : lower.charCodeAt(1);
      i++;
    } else {
      units[i] = table[unit]!;
    }
  }
  let folded = '';
  for (let i = 0; i < units.length; i += 8192) folded += String.fromCharCode(...units.subarray(i, i + 8192));
  return folded;
}

/** Printable ASCII and its usual whitespace, whose fold is its lower case (other texts take the table). */
const ASCII = /^[\t\n\r -~]*$/;
let lowerUnits: Uint16Array | undefined;

/** The lower case of every UTF-16 unit of the BMP as one unit (itself when it has none), made on first use. */
function lowerTable(): Uint16Array {
  const table = new Uint16Array(0x10000);
  for (let unit = 0; unit < 0x10000; unit++) {
    const lower = String.fromCharCode(unit).toLowerCase();
    // U+0130 (İ) lowers to `i` and a combining dot in JavaScript; PostgreSQL's lower() gives `i` alone.
    table[unit] = lower.length === 1 ? lower.charCodeAt(0) : unit === 0x130 ? 0x69 : unit;
  }
  return table;
}

/** Letters and digits, rarest first in English text. */
const RARITY = 'zqxjkvbpygfwmucldrhsnioate0123456789';

/** The units that fold to `c` (an ASCII letter or digit): `k` from `k`, `K` and the Kelvin sign. */
const foldingTo = new Map<string, string[]>();
function unitsFoldingTo(c: string): string[] {
  let units = foldingTo.get(c);
  if (!units) {
    const table = (lowerUnits ??= lowerTable());
    units = [];
    for (let unit = 0; unit < 0x10000; unit++)
      if (table[unit] === c.charCodeAt(0)) units.push(String.fromCharCode(unit));
    foldingTo.set(c, units);
  }
  return units;
}

function termTest(term: string): (value: string) => boolean {
  const folded = fold(term);
  let rare = -1;
  for (const c of folded) {
    const at = RARITY.indexOf(c);
    if (at >= 0 && (rare < 0 || at < RARITY.indexOf(folded[rare]!))) rare = folded.indexOf(c);
  }
  if (rare < 0) return (value) => fold(value).includes(folded);
  const units = unitsFoldingTo(folded[rare]!);
  return (value) => units.some((u) => value.includes(u)) && fold(value).includes(folded);
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
  else if (typeof a === 'string' && typeof b === 'string') order = compareText(a, b);
  else order = (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  return key.descending ? -order : order;
}

/**
 * Compares two texts by code point, as the SQL stores do (`COLLATE "C"`). UTF-16 code units order the same way
 * except where a surrogate (a code point beyond U+FFFF) meets a unit of U+E000 or above, which it must follow: only
 * then are the two units moved to code point order.
 */
export function compareText(a: string, b: string): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 || y < 0xd800) return x - y;
    return inCodePointOrder(x) - inCodePointOrder(y);
  }
  return a.length - b.length;
}

/** A unit of U+D800 and above, moved so that surrogates come after U+E000 to U+FFFF. */
const inCodePointOrder = (unit: number) => (unit >= 0xe000 ? unit - 0x800 : unit + 0x2000);

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
