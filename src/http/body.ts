import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { AppError, validationError } from '../errors.ts';

/**
 * Deepest nesting of arrays and objects accepted in a JSON body. Deeper values (only free-form fields such as an
 * activity entry's `metadata` could hold them) would overflow the stack when the record is serialized later,
 * breaking every response that includes it; they are refused with 400 before anything is stored.
 */
export const MAX_JSON_DEPTH = 64;

/** Why a body that is JSON is refused all the same: those keys could change the prototype of an object. */
const PROTOTYPE_KEYS =
  'The request body must not hold a "__proto__" key, nor a "constructor" key holding "prototype" (prototype poisoning)';

/** Whether `text` is JSON: of a body the parser refused, whether it was refused for its keys alone. */
function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Decodes UTF-8 and throws on a byte sequence that is not UTF-8 (a leading byte order mark is dropped). */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The `charset` a `Content-Type` declares, in lower case, or undefined. */
function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? '');
  return m ? m[1]!.toLowerCase() : undefined;
}

/**
 * What makes a body unreadable before its bytes are looked at, or undefined: JSON is UTF-8 (RFC 8259), so a body
 * declared in another charset is refused rather than read as garbage, and a body that was compressed
 * (`Content-Encoding` other than `identity`) is refused rather than read as text; the service decompresses none.
 */
function unreadable(headers: IncomingHttpHeaders): AppError | undefined {
  const charset = charsetOf(headers['content-type']);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', `JSON bodies must be UTF-8: charset=${charset.slice(0, 40)} is not`);
  }
  const encoding = headers['content-encoding']?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    return new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Request bodies must not be compressed: Content-Encoding ${encoding.slice(0, 40)} is not accepted`,
    );
  }
  return undefined;
}

/**
 * JSON bodies, with these changes to Fastify's parser: an empty body sent with `Content-Type: application/json` is
 * no body at all (routes without a body, such as `PATCH /api/notifications/read-all`, must accept it; routes that
 * need a body still reject it through their schema); a body in another charset or compressed is a 415, and one
 * whose bytes are not UTF-8 a 400 INVALID_JSON, where Fastify would read them as U+FFFD and store that.
 * Keys `__proto__` and `constructor.prototype` are refused as invalid JSON (prototype poisoning).
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    const refused = unreadable(request.headers);
    if (refused) return done(refused, undefined);
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      return done(new AppError('INVALID_JSON', 'The request body is not valid UTF-8'), undefined);
    }
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, (err, value) => {
      if (err) return done(parses(text) ? new AppError('INVALID_JSON', PROTOTYPE_KEYS) : err, undefined);
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
