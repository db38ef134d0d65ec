import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOf, noneMatch } from '../core/etag.ts';

/**
 * Answers `{ data: record }` with the record's `ETag`; a GET whose `If-None-Match` names the current version
 * gets `304 Not Modified` with no body.
 */
export function sendRecord(request: FastifyRequest, reply: FastifyReply, record: object, status = 200) {
  const etag = etagOf(record);
  reply.header('etag', etag);
  if (request.method === 'GET' && !noneMatch(request.headers['if-none-match'], etag)) {
    return reply.code(304).send();
  }
  return reply.code(status).send({ data: record });
}
