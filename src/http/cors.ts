import type { FastifyReply } from 'fastify';

/**
 * The origins allowed to call the service from a browser: any. Every answer and the answers written before there
 * is a request (malformed URLs, slow or oversized requests) say the same.
 */
export const CORS_ORIGIN = '*';

/**
 * The response headers a browser script may read: the request id, a record's version, the methods of a 405, and a
 * list's total and next page.
 */
export const CORS_EXPOSED_HEADERS = ['X-Request-Id', 'ETag', 'Allow', 'X-Total-Count', 'Link'];

const METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE';
const MAX_AGE_S = '600';

/** What the settings add to CORS: the token's request headers, the challenge, the rate limit's answers. */
export interface CorsSettings {
  readonly auth: 'none' | 'token';
  readonly rateLimited: boolean;
}

/**
 * CORS for any origin, its header values joined once at start: every answer carries `Access-Control-Allow-Origin`
 * and `Access-Control-Expose-Headers`; a preflight (any `OPTIONS`, with or without `Origin`) is answered `204` with
 * the methods, the request headers allowed and `Access-Control-Max-Age`, before the rate limit and the token check
 * (a browser's preflight carries no token).
 */
export class Cors {
  private readonly exposed: string;
  private readonly allowedHeaders: string;

  constructor({ auth, rateLimited }: CorsSettings) {
    const token = auth === 'token';
    this.exposed = [
      ...CORS_EXPOSED_HEADERS,
      ...(token ? ['WWW-Authenticate'] : []),
      ...(rateLimited ? ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] : []),
    ].join(', ');
    this.allowedHeaders = [
      'Content-Type',
      'X-Actor',
      'X-Request-Id',
      'If-Match',
      'If-None-Match',
      ...(token ? ['Authorization', 'X-API-Key'] : []),
    ].join(', ');
  }

  /** The headers of every answer. */
  answer(reply: FastifyReply): void {
    reply.header('access-control-allow-origin', CORS_ORIGIN);
    reply.header('access-control-expose-headers', this.exposed);
  }

  /** Answers a preflight (after {@link answer}). */
  preflight(reply: FastifyReply): void {
    reply
      .header('access-control-allow-methods', METHODS)
      .header('access-control-allow-headers', this.allowedHeaders)
      .header('access-control-max-age', MAX_AGE_S)
      .code(204)
      .header('content-length', '0')
      .send();
  }
}
