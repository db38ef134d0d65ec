import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { SCOPES, type Scope } from '../model/token.ts';
import { RateLimiter } from './rate-limit.ts';

/** Who a request is made by, once its token is checked. */
export interface Principal {
  readonly username: string;
  readonly scopes: readonly Scope[];
  /** The token's id; absent for `ADMIN_TOKEN`, which is no record. */
  readonly tokenId?: string;
}

/**
 * What authentication needs of the API tokens, handed in by `buildApp`: who a token's value stands for, when it is
 * one that exists and has not expired; undefined otherwise.
 */
export type Authenticate = (value: string) => Promise<Principal | undefined>;

/**
 * What a route needs of a token (`AUTH=token`), declared in its own `config.scope`: a scope, or `public` for none
 * (liveness, readiness, the document). Without one, `read` for GET and HEAD and `write` for the rest.
 */
export type RouteScope = Scope | 'public';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who makes the request, with `AUTH=token` once its token is checked; null otherwise. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /**
     * The route also takes its token as `?access_token=` (a browser's EventSource cannot send headers). Only
     * routes that say so: anywhere else a token in the URL would end up in logs, histories and referrers.
     */
    queryToken?: boolean;
    /** What the route needs of a token (`RouteScope`); absent: `read` for GET and HEAD, `write` for the rest. */
    scope?: RouteScope;
  }
}

/** Where the API is served: everything outside it (the docs page, the browser app) is public. */
export const API_PREFIX = '/api';

/** The username of `ADMIN_TOKEN`. */
export const ADMIN_USERNAME = 'admin';

const CHALLENGE = 'Bearer realm="pm-service"';
const INVALID_CHALLENGE = `${CHALLENGE}, error="invalid_token"`;
const BEARER = /^Bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i;

/**
 * How the request was resolved: who, or why not. `holder`: the valid token's owner of a request refused for its
 * scopes (it counts against that token's limit).
 */
type Resolution = { principal: Principal } | { refusal: AppError; holder?: Principal } | { public: true };
const PUBLIC: Resolution = { public: true };

/**
 * What the token check reads of the route a request matched: its path (undefined: no route matched, a 404 or 405)
 * and its config. Taken once per route when it is added (Fastify 5 builds `request.routeOptions` anew at each read).
 */
interface Route {
  readonly url: string | undefined;
  readonly config: { readonly scope?: RouteScope; readonly queryToken?: boolean };
}
const NO_ROUTE: Route = { url: undefined, config: {} };

/** What a route of this method and config needs of a token: its own `scope`, else `read` or `write` by method. */
export function scopeOf(method: string, config: { readonly scope?: RouteScope } | undefined): RouteScope {
  return config?.scope ?? (method === 'GET' || method === 'HEAD' ? 'read' : 'write');
}

/**
 * Whether the request may go without a token: everything outside the API but the routes that declare a scope
 * (`GET /metrics`), the public routes, CORS preflights.
 */
function isPublic(request: FastifyRequest, route: Route): boolean {
  if (request.method === 'OPTIONS') return true;
  if (route.url === undefined) return !request.url.startsWith(API_PREFIX);
  const scope = scopeOf(request.method, route.config);
  return scope === 'public' || (!route.url.startsWith(API_PREFIX) && route.config.scope === undefined);
}

/** Each scope includes the ones before it in `SCOPES`. */
const RANK = Object.fromEntries(SCOPES.map((scope, i) => [scope, i])) as Record<Scope, number>;
function covers(scopes: readonly Scope[], needed: Scope): boolean {
  for (const scope of scopes) if (RANK[scope] >= RANK[needed]) return true;
  return false;
}

const unauthenticated = (message: string, challenge = CHALLENGE) =>
  new AppError('UNAUTHENTICATED', message, undefined, { 'www-authenticate': challenge });

/** The token a request carries: `Authorization: Bearer`, else `X-API-Key`, else (where allowed) `?access_token=`. */
function credentialOf(request: FastifyRequest, route: Route): string | AppError | undefined {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = BEARER.exec(authorization);
    return match ? match[1]! : unauthenticated('Authorization must be "Bearer <token>"', INVALID_CHALLENGE);
  }
  const key = request.headers['x-api-key'];
  if (key !== undefined) {
    const value = (Array.isArray(key) ? key.join(',') : key).trim();
    return /^[\x21-\x7e]+$/.test(value) ? value : unauthenticated('X-API-Key must be a token', INVALID_CHALLENGE);
  }
  if (route.config.queryToken) {
    const value = (request.query as Record<string, unknown> | undefined)?.access_token;
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/**
 * API tokens (`AUTH=token`): every API request but those of public routes is checked. Missing, unknown, revoked or
 * expired: `401 UNAUTHENTICATED` with `WWW-Authenticate: Bearer`; without the scope the request needs:
 * `403 FORBIDDEN`. `ADMIN_TOKEN` is an admin token of username `admin`, compared in constant time. The principal
 * found is `request.principal`, whose username is the actor of what the request changes.
 */
export class Authenticator {
  /** `ADMIN_TOKEN` as bytes, and room for as many bytes of a token to compare with it. */
  private readonly admin: Buffer;
  private readonly candidate: Buffer;

  constructor(
    private readonly authenticate: Authenticate,
    adminToken: string,
  ) {
    this.admin = Buffer.from(adminToken, 'utf8');
    this.candidate = Buffer.alloc(this.admin.length);
  }

  /**
   * Who makes the request to `route`, or why it is refused. Answered at once when the store need not be asked (a
   * public route, no token or a malformed one, `ADMIN_TOKEN`), so that those requests take no extra turn.
   */
  resolve(request: FastifyRequest, route: Route): Resolution | Promise<Resolution> {
    // A public route never reads a token it is sent, so it never waits for the store: a liveness probe that sends
    // one answers while the database is away. It counts against the client address.
    if (isPublic(request, route)) return PUBLIC;
    const credential = credentialOf(request, route);
    if (credential === undefined) {
      return { refusal: unauthenticated('An API token is required: Authorization: Bearer <token> or X-API-Key') };
    }
    if (credential instanceof AppError) return { refusal: credential };
    if (credential.length > 1024) return UNKNOWN_TOKEN();
    if (this.isAdmin(credential)) return this.scoped(request, route, ADMIN);
    return this.authenticate(credential).then((principal) =>
      principal ? this.scoped(request, route, principal) : UNKNOWN_TOKEN(),
    );
  }

  /**
   * Whether `value` is `ADMIN_TOKEN`, in a time that tells nothing of it: as many bytes of `value` as the admin token
   * has (zero-filled) compared whole in constant time, then the lengths, both always. Its time depends only on the
   * lengths. (Not by SHA-256, as before: in the running service a hash per request cost 7 µs of a 30 µs `GET`,
   * bench/HISTORY.md, *tokens and the rate limit*.)
   */
  private isAdmin(value: string): boolean {
    const written = this.candidate.write(value, 'utf8');
    if (written < this.candidate.length) this.candidate.fill(0, written);
    const sameBytes = timingSafeEqual(this.candidate, this.admin);
    const sameLength = Buffer.byteLength(value, 'utf8') === this.admin.length;
    return sameBytes && sameLength;
  }

  /** The request of a valid token's `principal`: let on, or refused when the token lacks the scope it needs. */
  private scoped(request: FastifyRequest, route: Route, principal: Principal): Resolution {
    // A path or method with no route is a 404 or 405 for every valid token: no scope would change that.
    if (route.url === undefined) return { principal };
    const needed = scopeOf(request.method, route.config);
    if (needed === 'public' || covers(principal.scopes, needed)) return { principal };
    return {
      refusal: new AppError(
        'FORBIDDEN',
        `This request needs the ${needed} scope; the token has ${principal.scopes.join(', ')}`,
      ),
      holder: principal,
    };
  }
}

const ADMIN: Principal = Object.freeze({ username: ADMIN_USERNAME, scopes: Object.freeze(['admin'] as Scope[]) });
const UNKNOWN_TOKEN = (): Resolution => ({
  refusal: unauthenticated('The API token is unknown, revoked or expired', INVALID_CHALLENGE),
});

export interface AuthOptions {
  auth: 'none' | 'token';
  adminToken?: string;
  rateLimit?: { readonly max: number; readonly windowMs: number };
}

/**
 * Registers what `AUTH` and `RATE_LIMIT` ask for: the guard, an `onRequest` hook that resolves the token (when
 * `AUTH=token`), then counts the request against its rate limit (per token when a valid one is sent, also on a
 * request refused for its scopes; else per client address, so that a stream of bad tokens is limited by its
 * address), then lets it on with `request.principal` or answers its refusal. Each route gets its own, with what it
 * needs of a token read once, as it is added; the requests no route matched (404, 405), the hook of every request.
 * With neither setting, nothing is registered and the service answers as without them.
 */
export function registerAuth(app: FastifyInstance, authenticate: Authenticate, options: AuthOptions): void {
  app.decorateRequest('principal', null);
  if (options.auth === 'token' && options.adminToken === undefined) throw new Error('AUTH=token needs ADMIN_TOKEN');
  const authenticator = options.auth === 'token' ? new Authenticator(authenticate, options.adminToken!) : undefined;
  const limiter = options.rateLimit && new RateLimiter(options.rateLimit);
  if (!authenticator && !limiter) return;

  const settle = (resolution: Resolution, request: FastifyRequest, reply: FastifyReply, done: HookDone) => {
    if (limiter) {
      const holder = 'principal' in resolution ? resolution.principal : 'holder' in resolution && resolution.holder;
      const limited = limiter.count(
        holder ? `token:${holder.tokenId ?? ADMIN_USERNAME}` : `address:${request.ip}`,
        reply,
      );
      if (limited) return done(limited);
    }
    if ('refusal' in resolution) return done(resolution.refusal);
    if ('principal' in resolution) request.principal = resolution.principal;
    done();
  };
  const guard =
    (route: Route): Guard =>
    (request, reply, done) => {
      const resolution = authenticator ? authenticator.resolve(request, route) : PUBLIC;
      if (resolution instanceof Promise) {
        resolution.then((settled) => settle(settled, request, reply, done), done);
      } else {
        settle(resolution, request, reply, done);
      }
    };

  // Every route, a GET's HEAD route too (added with the GET's options as they were before this hook). First among
  // the route's own hooks, as a hook of every request would be: nothing of the route runs before the guard.
  app.addHook('onRoute', (added) => {
    added.onRequest = [guard({ url: added.url, config: added.config ?? {} }), ...[added.onRequest ?? []].flat()];
  });
  const unrouted = guard(NO_ROUTE);
  app.addHook('onRequest', (request, reply, done) => (request.is404 ? unrouted(request, reply, done) : done()));
}

type HookDone = (err?: Error) => void;
type Guard = (request: FastifyRequest, reply: FastifyReply, done: HookDone) => void;
