import type { TSchema } from 'typebox';
import { etagOf } from '../core/etag.ts';
import {
  AppError,
  codesOf,
  ERROR_CATALOGUE,
  ErrorResponse,
  preconditionFailed,
  validationError,
  type ErrorCode,
} from '../errors.ts';
import { CHECKED_ENUM, Deleted } from '../schemas/common.ts';
import { ref, type ApiDocs } from './api-docs.ts';
import { API_PREFIX, scopeOf, type RouteScope } from './auth.ts';

/**
 * Shapes several answers share, named in the document (`#/components/schemas/Deleted`): the delete envelope and
 * those the resources name. Wherever a route's schema holds one of these objects, the document refers to its
 * component instead.
 */
export function sharedShapes(docs: ApiDocs) {
  const shapes: Record<string, TSchema> = { Deleted, ...docs.shapes };
  const names = new Map<unknown, string>(Object.entries(shapes).map(([name, s]) => [s, name]));
  /** `schema` with each shared shape in it replaced by a reference to its component (copied only where one is). */
  const named = <T>(schema: T): T => {
    const name = names.get(schema);
    if (name) return ref(name) as T;
    if (schema === null || typeof schema !== 'object') return schema;
    let out: Record<string, unknown> | undefined;
    for (const [key, value] of Object.entries(schema)) {
      const inner = named(value);
      if (inner !== value)
        (out ??= (Array.isArray(schema) ? [...schema] : { ...schema }) as Record<string, unknown>)[key] = inner;
    }
    return (out ?? schema) as T;
  };
  return {
    components: (): TSchema[] => Object.entries(shapes).map(([name, schema]) => ({ ...schema, $id: name })),
    named,
  };
}

/**
 * A request body as the document shows it: each `CheckedEnum` with its list as an `enum` (the service refuses
 * another value itself, with the code it names), and those codes.
 */
export function documentBody(schema: TSchema): { schema: TSchema; codes: ErrorCode[] } {
  const codes: ErrorCode[] = [];
  const walk = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map(walk);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key !== CHECKED_ENUM) out[key] = walk(value);
      else {
        const checked = value as { values: readonly string[]; code: ErrorCode };
        out.enum = [...checked.values];
        codes.push(checked.code);
      }
    }
    return out;
  };
  return { schema: walk(schema) as TSchema, codes };
}

/**
 * The responses of a route with the errors any route can give added: a body can always be malformed (400),
 * too large (413) or not JSON (415); a query string can be invalid (400); anything can fail (500), and the
 * database of a durable store can be unreachable (503). The answers
 * of every operation that depend on no route (405, 408, 431) are added to the finished document.
 */
export function documentedStatuses(
  response: Record<string, TSchema>,
  route: { takesBody: boolean; hasQuery: boolean },
): [string, TSchema][] {
  const out: Record<string, TSchema> = { ...response };
  if (route.takesBody || route.hasQuery) out[400] ??= ErrorResponse;
  if (route.takesBody) {
    out[413] ??= ErrorResponse;
    out[415] ??= ErrorResponse;
  }
  out[500] ??= ErrorResponse;
  out[503] ??= ErrorResponse;
  return Object.entries(out).sort(([a], [b]) => a.localeCompare(b));
}

/** Headers every response carries (required in the document). */
export const responseHeaders = {
  'x-request-id': { type: 'string', description: 'The request id: yours if you sent a plain token, else a new UUID' },
};
export const ETAG = {
  type: 'string',
  description: 'Version of the record: send it back in `If-None-Match` or `If-Match`',
};
const ALLOW = { type: 'string', description: 'The methods this path has', examples: ['GET, HEAD'] };
const RETRY_AFTER = {
  type: 'integer',
  description: 'Seconds to wait before trying again: 1 while the database is unreachable, 5 for the event stream',
  examples: [1],
};

/** What a route does with errors: whether it reads a body, and the codes its `CheckedEnum` fields answer. */
export interface ErrorRoute {
  takesBody: boolean;
  checked: readonly ErrorCode[];
}

/**
 * The codes a route answers with `status`: `INVALID_JSON` where a body is read; a 400 code other than
 * `VALIDATION_ERROR` (such as `INVALID_EVENTS`) only where a `CheckedEnum` of the route's body names it.
 */
function codesFor(status: number, route: ErrorRoute): ErrorCode[] {
  return codesOf(status).filter((code) => {
    if (code === 'INVALID_JSON') return route.takesBody;
    if (status === 400 && code !== 'VALIDATION_ERROR') return route.checked.includes(code);
    return true;
  });
}

/** An answer the route gives with `status`, for the document's example. */
function exampleOf(docs: ApiDocs, status: number, url: string, codes: ErrorCode[]): AppError | undefined {
  const samples = docs.sampleFor(url);
  if (status === 400) return validationError([{ field: 'title', message: 'must not be blank' }]);
  if (status === 404 && samples) return new AppError('NOT_FOUND', samples.notFound);
  if (status === 412 && samples) return preconditionFailed(etagOf(samples.record));
  return codes[0] && new AppError(codes[0]);
}

/** An error response: its codes in words, its body the shared `ErrorResponse` component, an example answer. */
export function describeErrors(docs: ApiDocs, status: number, url: string, route: ErrorRoute) {
  const codes = codesFor(status, route);
  const example = exampleOf(docs, status, url, codes);
  return {
    description: codes.map((code) => `\`${code}\`: ${ERROR_CATALOGUE[code].when}`).join('; ') || 'Error',
    headers: status === 503 ? { ...responseHeaders, 'retry-after': RETRY_AFTER } : responseHeaders,
    content: {
      'application/json': {
        schema: ref('ErrorResponse'),
        ...(example ? { example: example.toBody() } : {}),
      },
    },
  };
}

type Doc = {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, Response>; requestBody?: unknown; security?: unknown[] }>
  >;
  components: { schemas: Record<string, unknown>; responses?: Record<string, unknown>; securitySchemes?: object };
};
type Parameter = { schema?: Record<string, unknown>; style?: unknown; explode?: unknown };
type Response = {
  headers?: Record<string, { required?: boolean }>;
  content?: Record<string, { schema?: Record<string, unknown> }>;
};

const COMPONENT = '#/components/schemas/';

/**
 * Answers any operation can give that no route declares, once each in `components.responses`: a method the path
 * does not have (405, with `Allow`), a request too slow (408) or with too many headers (431), the last two
 * answered by the HTTP server itself before the connection is closed.
 */
const CONNECTION_ERRORS: Record<string, { status: number; about?: string; example?: AppError }> = {
  MethodNotAllowed: {
    status: 405,
    about: 'a method this path does not have, instead of this operation; `Allow` lists the methods it has',
    example: new AppError('METHOD_NOT_ALLOWED', 'PUT is not allowed on /api/activity-log/act_001'),
  },
  RequestTimeout: { status: 408 },
  HeadersTooLarge: { status: 431 },
};

/** What the service answers with `AUTH=token` and `RATE_LIMIT`, declared when they are set. */
const ACCESS_ERRORS: Record<string, { status: number; example: AppError; headers: Record<string, object> }> = {
  Unauthenticated: {
    status: 401,
    example: new AppError('UNAUTHENTICATED', 'The API token is unknown, revoked or expired'),
    headers: {
      'www-authenticate': { type: 'string', description: 'The scheme to use', examples: ['Bearer realm="pm-service"'] },
    },
  },
  Forbidden: {
    status: 403,
    example: new AppError('FORBIDDEN', 'This request needs the write scope; the token has read'),
    headers: {},
  },
  RateLimited: {
    status: 429,
    example: new AppError('RATE_LIMITED', 'Too many requests: at most 600 per 1m; try again in 12 seconds'),
    headers: {
      'retry-after': { type: 'integer', description: 'Seconds until the limit is reset', examples: [12] },
      'x-ratelimit-limit': { type: 'integer', description: 'Requests allowed per window' },
      'x-ratelimit-remaining': { type: 'integer', description: 'Requests left in this window' },
      'x-ratelimit-reset': { type: 'integer', description: 'Seconds until the window is reset' },
    },
  },
};

/** With `RATE_LIMIT`, on every answer of an operation (the limit is checked, and counted, before the route). */
const RATE_LIMIT_HEADERS = Object.fromEntries(
  Object.entries(ACCESS_ERRORS.RateLimited!.headers)
    .filter(([name]) => name.startsWith('x-ratelimit-'))
    .map(([name, { description, ...schema }]: [string, { description?: string }]) => [
      name,
      { description, required: true, schema },
    ]),
);

/** What the running service asks of its callers: `AUTH` and whether `RATE_LIMIT` is set. */
export interface Access {
  readonly auth: 'none' | 'token';
  readonly rateLimited: boolean;
}

/** The document's security schemes with `AUTH=token`: the same token as a bearer token or an API key. */
export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    description: 'An API token (`pmt_…`, or `ADMIN_TOKEN`): `Authorization: Bearer <token>`',
  },
  apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The same token as `X-API-Key`' },
  // Only the operations that name it (the event stream: a browser's EventSource cannot send headers).
  accessTokenQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'access_token',
    description:
      "The same token as `?access_token=`, on the event stream only (a browser's `EventSource` sends no headers)",
  },
} as const;

/** The `security` of an operation that also takes its token in the query (a route with `config.queryToken`). */
export const QUERY_TOKEN_SECURITY: { [scheme: string]: readonly string[] }[] = [
  { bearerAuth: [] },
  { apiKeyAuth: [] },
  { accessTokenQuery: [] },
];

/** A response component in the document's final form (headers as header objects, every one of them sent). */
function responseComponent(status: number, about?: string, example?: AppError, extra: Record<string, object> = {}) {
  const headers = { ...(status === 405 ? { ...responseHeaders, allow: ALLOW } : responseHeaders), ...extra };
  const [code] = codesOf(status);
  return {
    description: `\`${code}\`: ${about ?? ERROR_CATALOGUE[code!].when}`,
    headers: Object.fromEntries(
      Object.entries(headers as Record<string, { description?: string }>).map(([name, { description, ...schema }]) => [
        name,
        { description, required: true, schema },
      ]),
    ),
    content: {
      'application/json': {
        schema: { $ref: `${COMPONENT}ErrorResponse` },
        example: (example ?? new AppError(code!)).toBody(),
      },
    },
  };
}

/** An operation of the document (`get`, `/api/tasks/{id}`), as `finishDocument` is told what each route needs. */
export const operationKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/**
 * The last touches on the generated document: the headers every response carries are `required`; a list
 * envelope (`{ data: [Task], count }`) is a named component (`TaskList`); every operation refers to the
 * answers of `CONNECTION_ERRORS`; and a write without a body schema says that a body sent is ignored. With
 * `AUTH=token`, each operation answers 401, and 403 when it needs more than `read` (`scopes`: what each route
 * declared, by `operationKey`); a public one asks for no token.
 */
export function finishDocument<T>(
  document: T,
  access: Access = { auth: 'none', rateLimited: false },
  scopes: ReadonlyMap<string, RouteScope> = new Map(),
): T {
  const doc = document as Doc;
  const token = access.auth === 'token';
  const declared = Object.entries(ACCESS_ERRORS).filter(
    ([name]) => (token && name !== 'RateLimited') || (access.rateLimited && name === 'RateLimited'),
  );
  doc.components.responses = Object.fromEntries([
    ...Object.entries(CONNECTION_ERRORS).map(([name, e]) => [name, responseComponent(e.status, e.about, e.example)]),
    ...declared.map(([name, e]) => [name, responseComponent(e.status, undefined, e.example, e.headers)]),
  ]);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const scope = scopes.get(operationKey(method, path)) ?? scopeOf(method.toUpperCase(), undefined);
      const open = !path.startsWith(API_PREFIX) || scope === 'public';
      if (token && open) operation.security = [];
      const extra: Record<number, string> = {};
      if (token && !open) {
        extra[401] = 'Unauthenticated';
        if (scope !== 'read') extra[403] = 'Forbidden';
      }
      if (access.rateLimited) extra[429] = 'RateLimited';
      if (method !== 'get' && !operation.requestBody) operation.requestBody = IGNORED_BODY;
      // A list parameter's serialization (`style`, `explode`) belongs to the parameter, not to its schema: moved
      // there, so that a generated client sends `status[in]=todo,done`, not `status[in]=todo&status[in]=done`.
      for (const parameter of (operation as { parameters?: Parameter[] }).parameters ?? []) {
        const { style, explode, ...schema } = parameter.schema ?? {};
        if (style === undefined && explode === undefined) continue;
        parameter.schema = schema;
        Object.assign(parameter, { style, explode });
      }
      const responses: Record<string, Response | { $ref: string }> = { ...operation.responses };
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        for (const name of Object.keys(responseHeaders)) {
          if (response.headers?.[name]) response.headers[name].required = true;
        }
        if (status === '503' && response.headers?.['retry-after']) response.headers['retry-after'].required = true;
        if (access.rateLimited) response.headers = { ...response.headers, ...RATE_LIMIT_HEADERS };
        const media = response.content?.['application/json'];
        if (media?.schema) media.schema = namedList(doc, media.schema);
      }
      for (const [name, { status }] of Object.entries(CONNECTION_ERRORS)) {
        responses[status] ??= { $ref: `#/components/responses/${name}` };
      }
      for (const [status, name] of Object.entries(extra))
        responses[status] ??= { $ref: `#/components/responses/${name}` };
      operation.responses = Object.fromEntries(
        Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)),
      ) as Record<string, Response>;
    }
  }
  return document;
}

/** The body of a write that reads none: any JSON (or nothing) is accepted and ignored; another type is a 415. */
const IGNORED_BODY = {
  required: false,
  description: 'None is needed: a JSON body sent is ignored',
  content: { 'application/json': { schema: {} } },
};

/** A list envelope as a reference to its component, `<Record>List`, added to the document the first time. */
function namedList(doc: Doc, schema: Record<string, unknown>): Record<string, unknown> {
  const data = (schema.properties as { data?: { type?: string; items?: { $ref?: string } } } | undefined)?.data;
  const record =
    data?.type === 'array' && data.items?.$ref?.startsWith(COMPONENT) && data.items.$ref.slice(COMPONENT.length);
  if (!record) return schema;
  const name = `${record}List`;
  const known = doc.components.schemas[name];
  if (known === undefined) doc.components.schemas[name] = schema;
  else if (JSON.stringify(known) !== JSON.stringify(schema)) throw new Error(`two different list shapes of ${record}`);
  return { $ref: `${COMPONENT}${name}` };
}
