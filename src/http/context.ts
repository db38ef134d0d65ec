import type { FastifyRequest } from 'fastify';
import { LIMITS } from '../schemas/common.ts';
import { validationError } from '../errors.ts';
import type { RequestContext } from '../events/types.ts';

/** Who makes the request (`X-Actor`, a username) and on which version of the record (`If-Match`), when sent. */
export function contextOf(request: FastifyRequest): RequestContext {
  return { actor: actorOf(request), ifMatch: request.headers['if-match'] };
}

function actorOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-actor'];
  if (header === undefined) return undefined;
  const actor = (Array.isArray(header) ? header.join(', ') : header).trim();
  if (actor === '' || actor.length > LIMITS.username) {
    throw validationError([{ field: 'X-Actor', message: `must be a username of 1 to ${LIMITS.username} characters` }]);
  }
  return actor;
}
