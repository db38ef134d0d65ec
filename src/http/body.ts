import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies, with one change to Fastify's parser: an empty body sent with `Content-Type: application/json`
 * is no body at all (routes without a body, such as `PATCH /api/notifications/read-all`, must accept it).
 * Routes that need a body still reject it through their schema.
 * Keys `__proto__` and `constructor.prototype` are refused as invalid JSON (prototype poisoning).
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    parseJson(request, body as string, done);
  });
  // Any other media type with a body is refused with 415 by Fastify itself (no parser is registered for it);
  // text/plain is removed so that it is refused too instead of arriving as a string.
  app.removeContentTypeParser('text/plain');
}
