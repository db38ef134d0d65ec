import { preconditionFailed } from '../errors.ts';

/**
 * A record's entity tag. Records with `updatedAt` change it (strictly later) on every write, so it names the
 * version and is the tag as it is (an ISO 8601 instant holds no quote); records without one (notifications,
 * activity entries) are hashed (FNV-1a over their canonical JSON: object keys sorted, at every depth, so the tag
 * does not depend on the order a store keeps them in; PostgreSQL's jsonb re-sorts an entry's metadata).
 */
export function etagOf(record: object): string {
  const updatedAt = (record as { updatedAt?: unknown }).updatedAt;
  if (typeof updatedAt === 'string') return `"${updatedAt}"`;
  const text = JSON.stringify(record, sortedKeys);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return `"h${(hash >>> 0).toString(36)}"`;
}

/**
 * Refuses a change based on a version that is no longer current: `expected` (from `If-Match`) must name the
 * record's ETag exactly (strong comparison: a weak `W/` tag never matches) or be `*`. Absent: no condition.
 */
export function assertExpectedVersion(expected: readonly string[] | undefined, record: object): void {
  if (expected === undefined) return;
  const etag = etagOf(record);
  if (!expected.some((t) => t === '*' || t === etag)) {
    throw preconditionFailed(etag);
  }
}

/** A `JSON.stringify` replacer that writes every plain object with its keys sorted. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = (value as Record<string, unknown>)[key];
  return sorted;
}
