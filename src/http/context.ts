import type { FastifyRequest } from 'fastify';
import { LIMITS } from '../schemas/common.ts';
import { validationError } from '../errors.ts';
import type { RequestContext } from '../events/types.ts';

/** Who makes the request: the `X-Actor` header (a username), when sent. */
export function contextOf(request: FastifyRequest): RequestContext {
  const header = request.headers['x-actor'];
  if (header === undefined) return {};
  const actor = (Array.isArray(header) ? header.join(', ') : header).trim();
  if (actor === '' || actor.length > LIMITS.username) {
    throw validationError([{ field: 'X-Actor', message: `must be a username of 1 to ${LIMITS.username} characters` }]);
  }
  return { actor };
}
