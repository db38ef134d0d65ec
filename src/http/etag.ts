import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOf } from '../core/etag.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** False only in the bench's measure of what ETags cost (app.ts, `without`): records are sent without theirs. */
    etags: boolean;
  }
}

/** The entity tags of an `If-Match` or `If-None-Match` header, as sent (`W/` prefixes kept). */
export function entityTags(header: string): string[] {
  return header
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/** `If-None-Match`: weak comparison (a `W/` prefix is ignored); `*` matches any current record. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return true;
  return !entityTags(header).some((t) => t === '*' || t.replace(/^W\//, '') === etag);
}

/**
 * Answers `{ data: record }` with the record's `ETag`; a GET or HEAD whose `If-None-Match` names the current version
 * gets `304 Not Modified` with no body.
 */
export function sendRecord(request: FastifyRequest, reply: FastifyReply, record: object, status = 200) {
  if (!request.server.etags) return reply.code(status).send({ data: record });
  const etag = etagOf(record);
  reply.header('etag', etag);
  if ((request.method === 'GET' || request.method === 'HEAD') && !noneMatch(request.headers['if-none-match'], etag)) {
    return reply.code(304).send();
  }
  return reply.code(status).send({ data: record });
}
