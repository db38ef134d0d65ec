import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import { validationError } from '../errors.ts';
import type { Position } from '../model/list.ts';

/**
 * The `cursor` of a list: where the previous page ended (the store's position) and a digest of the query it
 * belongs to (filters, search and sort), sealed with an HMAC so that a cursor changed by hand, or sent with
 * another query, is refused (400 naming `cursor`) instead of giving a page of something else.
 *
 * The key is fixed, not a secret: a position carries nothing a client could not ask for with filters (it is a place
 * in an order), so the seal only has to show the cursor is as the service wrote it, and every instance serving one
 * database reads the others' cursors without sharing a setting. A client can so seal a cursor of its own: its
 * position's values are checked as any input (list.ts, and each store the part it reads), never trusted.
 */
const KEY = 'pm-service list cursor v1';
const SEAL_LENGTH = 22;

const seal = (payload: string) => createHmac('sha256', KEY).update(payload).digest('base64url').slice(0, SEAL_LENGTH);

/** A digest of what a cursor is bound to: the list's path and its query without `limit` and `cursor`. */
export function queryDigest(path: string, query: Record<string, unknown>): string {
  const bound = Object.keys(query)
    .filter((k) => k !== 'limit' && k !== 'cursor' && query[k] !== undefined)
    .sort()
    .map((k) => [k, query[k]]);
  return hash('sha256', JSON.stringify([path, bound]), 'base64url').slice(0, 16);
}

export function encodeCursor(digest: string, position: Position): string {
  const payload = Buffer.from(JSON.stringify([digest, position])).toString('base64url');
  return `${payload}.${seal(payload)}`;
}

/** The position of a cursor written for a query with this digest; a 400 naming `cursor` for any other. */
export function decodeCursor(cursor: string, digest: string): Position {
  const [payload, given, extra] = cursor.split('.');
  if (payload === undefined || given === undefined || extra !== undefined || !sameSeal(seal(payload), given)) {
    throw badCursor('is not a cursor this service gave (changed or truncated)');
  }
  const [boundTo, position] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as [string, Position];
  if (boundTo !== digest || !Array.isArray(position)) {
    throw badCursor('belongs to another query: send it with the same filters, q and sort as the page it came from');
  }
  return position;
}

function sameSeal(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const badCursor = (message = 'is not a cursor of this list') => validationError([{ field: 'cursor', message }]);
