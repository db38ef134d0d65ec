import { preconditionFailed } from '../errors.ts';

/**
 * A record's entity tag. Records with `updatedAt` change it (strictly later) on every write, so it names the
 * version and is the tag as it is (an ISO 8601 instant holds no quote); records without one (notifications,
 * activity entries) are hashed (FNV-1a over their JSON).
 */
export function etagOf(record: object): string {
  const updatedAt = (record as { updatedAt?: unknown }).updatedAt;
  if (typeof updatedAt === 'string') return `"${updatedAt}"`;
  const text = JSON.stringify(record);
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
