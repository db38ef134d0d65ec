import { createHash, timingSafeEqual } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import { SCOPES, type Scope } from '../model/token.ts';

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

/** How the request was resolved: who, or why not. Kept per request, so that the token is checked once. */
/** `holder`: the valid token's owner of a request refused for its scopes (it counts against that token's limit). */
type Resolution = { principal: Principal } | { refusal: AppError; holder?: Principal } | { public: true };
const RESOLVED = Symbol('auth.resolved');
type Resolved = FastifyRequest & { [RESOLVED]: Promise<Resolution> | null };

/**
 * What the token check reads of the route a request matched. Fastify 5 builds `request.routeOptions` anew at each
 * read, so it is read once per request and handed on.
 */
type Route = Pick<FastifyRequest['routeOptions'], 'url' | 'config'>;

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
const covers = (scopes: readonly Scope[], needed: Scope) =>
  scopes.some((s) => SCOPES.indexOf(s) >= SCOPES.indexOf(needed));

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
 * API tokens (`AUTH=token`): one `onRequest` hook checks every API request but those of public routes. Missing,
 * unknown, revoked or expired: `401 UNAUTHENTICATED` with `WWW-Authenticate: Bearer`; without the scope the request
 * needs: `403 FORBIDDEN`. `ADMIN_TOKEN` is an admin token of username `admin`, compared by its SHA-256 in constant
 * time. The principal found is `request.principal`, whose username is the actor of what the request changes.
 */
export class Authenticator {
  private readonly adminHash: Buffer;

  constructor(
    private readonly authenticate: Authenticate,
    adminToken: string,
  ) {
    this.adminHash = sha256(adminToken);
  }

  /** Who makes the request, or why it is refused; made once per request. */
  resolve(request: FastifyRequest): Promise<Resolution> {
    return ((request as Resolved)[RESOLVED] ??= this.check(request));
  }

  private async check(request: FastifyRequest): Promise<Resolution> {
    // A public route never reads a token it is sent, so it never waits for the store: a liveness probe that sends
    // one answers while the database is away. It counts against the client address.
    const route: Route = request.routeOptions;
    if (isPublic(request, route)) return { public: true };
    const credential = credentialOf(request, route);
    if (credential === undefined) {
      return { refusal: unauthenticated('An API token is required: Authorization: Bearer <token> or X-API-Key') };
    }
    if (credential instanceof AppError) return { refusal: credential };
    const principal = await this.principalOf(credential);
    if (!principal) {
      return { refusal: unauthenticated('The API token is unknown, revoked or expired', INVALID_CHALLENGE) };
    }
    // A path or method with no route is a 404 or 405 for every valid token: no scope would change that.
    if (route.url === undefined) return { principal };
    const needed = scopeOf(request.method, route.config);
    if (needed !== 'public' && !covers(principal.scopes, needed)) {
      return {
        refusal: new AppError(
          'FORBIDDEN',
          `This request needs the ${needed} scope; the token has ${principal.scopes.join(', ')}`,
        ),
        holder: principal,
      };
    }
    return { principal };
  }

  private async principalOf(value: string): Promise<Principal | undefined> {
    if (value.length > 1024) return undefined;
    // Compared by their SHA-256 (of one length) in constant time: the comparison tells nothing of the admin token.
    if (timingSafeEqual(sha256(value), this.adminHash)) return { username: ADMIN_USERNAME, scopes: ['admin'] };
    return this.authenticate(value);
  }

  /** The hook: lets the request on with its principal, or answers the refusal. */
  readonly hook = async (request: FastifyRequest): Promise<void> => {
    const resolution = await this.resolve(request);
    if ('refusal' in resolution) throw resolution.refusal;
    if ('principal' in resolution) request.principal = resolution.principal;
  };
}

const sha256 = (value: string): Buffer => createHash('sha256').update(value).digest();

/** A window in the largest unit that divides it: `60000` → `1m`. */
function inWords(ms: number): string {
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

export interface AuthOptions {
  auth: 'none' | 'token';
  adminToken?: string;
  rateLimit?: { readonly max: number; readonly windowMs: number };
}

/**
 * Registers what `AUTH` and `RATE_LIMIT` ask for, in this order: the rate limit (per token when a valid one is
 * sent, else per client address: a stream of bad tokens is limited by its address), then the token check. With
 * neither setting, nothing is registered and the service answers as without them.
 */
export async function registerAuth(
  app: FastifyInstance,
  authenticate: Authenticate,
  options: AuthOptions,
): Promise<void> {
  app.decorateRequest('principal', null);
  let authenticator: Authenticator | undefined;
  if (options.auth === 'token') {
    if (options.adminToken === undefined) throw new Error('AUTH=token needs ADMIN_TOKEN');
    authenticator = new Authenticator(authenticate, options.adminToken);
    // Declared on every request from the start, so that setting it keeps the requests' shape (V8's hidden class).
    app.decorateRequest(RESOLVED, null);
  }
  if (options.rateLimit) {
    const { max, windowMs } = options.rateLimit;
    await app.register(rateLimit, {
      global: false,
      max,
      timeWindow: windowMs,
      cache: 100_000,
      keyGenerator: async (request) => {
        const resolution = authenticator && (await authenticator.resolve(request));
        // A valid token counts against its own limit, also on a request refused for its scopes.
        const principal =
          resolution &&
          ('principal' in resolution ? resolution.principal : 'refusal' in resolution && resolution.holder);
        return principal ? `token:${principal.tokenId ?? ADMIN_USERNAME}` : `address:${request.ip}`;
      },
      errorResponseBuilder: (_request, context) =>
        new AppError(
          'RATE_LIMITED',
          `Too many requests: at most ${max} per ${inWords(windowMs)}; try again in ${context.after}`,
        ),
    });
    app.addHook('onRequest', app.rateLimit());
  }
  if (authenticator) app.addHook('onRequest', authenticator.hook);
}
