import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';

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
  // Any other media type with a body is refused with 415 (text/plain is removed so that it is refused too
  // instead of arriving as a string). An empty body is no body whatever its declared type: the body-less
  // routes (DELETE, the notification read marks) accept it, as they do with application/json.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    done(new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be JSON (Content-Type: application/json)'), undefined);
  });
}
