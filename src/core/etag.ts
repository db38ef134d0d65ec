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

function tags(header: string): string[] {
  return header
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/** `If-None-Match`: weak comparison (a `W/` prefix is ignored); `*` matches any current record. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return true;
  return !tags(header).some((t) => t === '*' || t.replace(/^W\//, '') === etag);
}

/** Refuses a write whose `If-Match` names no current version of the record (strong comparison; `*` matches). */
export function assertIfMatch(header: string | undefined, record: object): void {
  if (header === undefined) return;
  const etag = etagOf(record);
  if (!tags(header).some((t) => t === '*' || t === etag)) {
    throw preconditionFailed(etag);
  }
}
