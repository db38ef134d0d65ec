import type { FastifyRequest } from 'fastify';
import type { RequestContext } from '../core/context.ts';
import { validationError } from '../errors.ts';
import { LIMITS } from '../schemas/common.ts';
import { entityTags } from './etag.ts';

/**
 * Who makes the request and on which versions of the record (`If-Match`), when sent. With `AUTH=token` the actor is
 * the token's username and `X-Actor` is ignored; without it, the actor is `X-Actor` when sent.
 */
export function contextOf(request: FastifyRequest): RequestContext {
  const ifMatch = request.headers['if-match'];
  return {
    actor: request.principal?.username ?? actorOf(request),
    expectedVersions: ifMatch === undefined ? undefined : entityTags(ifMatch),
  };
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
