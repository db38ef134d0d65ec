import type { FastifyInstance } from 'fastify';
import { AppError, validationError } from '../errors.ts';

/**
 * Deepest nesting of arrays and objects accepted in a JSON body. Deeper values (only free-form fields such as an
 * activity entry's `metadata` could hold them) would overflow the stack when the record is serialized later,
 * breaking every response that includes it; they are refused with 400 before anything is stored.
 */
export const MAX_JSON_DEPTH = 64;

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
    parseJson(request, body as string, (err, value) => {
      if (err) return done(err, undefined);
      if (depthOver(value, MAX_JSON_DEPTH)) {
        return done(
          validationError([{ field: 'body', message: `must not be nested more than ${MAX_JSON_DEPTH} levels deep` }]),
          undefined,
        );
      }
      done(null, value);
    });
  });
  // Any other media type with a body is refused with 415 (text/plain is removed so that it is refused too
  // instead of arriving as a string). An empty body is no body whatever its declared type: the body-less
  // routes (DELETE, the notification read marks) accept it, as they do with application/json.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    done(new AppError('UNSUPPORTED_MEDIA_TYPE'), undefined);
  });
}

/** Whether arrays and objects in `value` nest more than `max` levels deep (walked without recursion). */
function depthOver(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}
