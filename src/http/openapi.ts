import { ANY_OF_ITEMS, SORT_VALUES } from './list.ts';
import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TObject, type TSchema } from 'typebox';
import { ErrorResponse } from '../errors.ts';
import { Deleted, LIMITS, RequiredText } from '../schemas/common.ts';
import { apiDocs, type ApiDocs, type ResourceDocs } from './api-docs.ts';
import { scopeOf, type RouteScope } from './auth.ts';
import {
  describeErrors,
  documentBody,
  documentedStatuses,
  ETAG,
  finishDocument,
  operationKey,
  type Access,
  QUERY_TOKEN_SECURITY,
  SECURITY_SCHEMES,
  responseHeaders,
  sharedShapes,
} from './openapi-responses.ts';

export const OPENAPI_PATH = '/api/openapi.json';
export const DOCS_PATH = '/docs';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
  description: string;
};

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Publishes the OpenAPI 3.1 document (`GET /api/openapi.json`) and the interactive docs page (`/docs`).
 * Registered before the routes: @fastify/swagger collects every route added after it, whoever adds it,
 * and builds the document from the same TypeBox schemas that validate requests and serialize responses.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  resources: readonly ResourceDocs[],
  access: Access = { auth: 'none', rateLimited: false },
  moreTags: readonly { name: string; description: string }[] = [],
  browserPage?: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | undefined,
): Promise<void> {
  const docs = apiDocs(resources);
  // What each route needs of a token (its `config.scope`), by operation: the document's 401 and 403 answers.
  const scopes = new Map<string, RouteScope>();
  const shapes = sharedShapes(docs);
  // The error body, the records and the shared shapes, as named components the document refers to. Only the
  // document refers to them by name; the routes keep their inline schemas, so serialization does not depend on this.
  for (const schema of [...docs.components(), ...shapes.components()]) app.addSchema(schema);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'pm-service API',
        version: pkg.version,
        description: [INFO, access.auth === 'token' && AUTH_INFO, access.rateLimited && RATE_INFO]
          .filter(Boolean)
          .join('\n'),
      },
      // Relative: "Try it out" and generated clients call the server the document was fetched from.
      servers: [{ url: '/', description: 'The server this document came from' }],
      // No authentication: an empty requirement list says so explicitly (rather than leaving it unsaid). With
      // AUTH=token, either scheme: a bearer token or the same token as an API key.
      security: access.auth === 'token' ? [{ bearerAuth: [] }, { apiKeyAuth: [] }] : [],
      ...(access.auth === 'token' ? { components: { securitySchemes: SECURITY_SCHEMES } } : {}),
      tags: [SERVICE_TAG, ...docs.tags, ...moreTags],
    },
    // Components named by their `$id` (`#/components/schemas/ErrorResponse`) rather than `def-0`.
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, url, route }) => {
      const methods = [route.method].flat().map((m) => m.toUpperCase());
      for (const method of methods) {
        scopes.set(operationKey(method, url.replace(/:(\w+)/g, '{$1}')), scopeOf(method, route.config));
      }
      if (!schema || schema.hide) return { schema, url };
      const documented = documentRoute(
        docs,
        shapes.named,
        schema as RouteSchema,
        url,
        methods.some((m) => BODY_METHODS.has(m)),
        access.auth === 'token',
      );
      // A route that takes its token in the query too (the event stream) says so, with the schemes of AUTH=token.
      const queryToken = access.auth === 'token' && route.config?.queryToken === true;
      return { schema: queryToken ? { ...documented, security: QUERY_TOKEN_SECURITY } : documented, url };
    },
    transformObject: (document) =>
      finishDocument('openapiObject' in document ? document.openapiObject : {}, access, scopes),
  });

  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    // No call to the public swagger.io validator: the page loads nothing from outside this server.
    validatorUrl: false,
    uiConfig: {
      // The page reads the one published document; swagger-ui loads `urls` rather than its own `/docs/json`.
      urls: [{ url: OPENAPI_PATH, name: 'pm-service API' }],
      deepLinking: true,
      displayOperationId: true,
      tryItOutEnabled: false,
      defaultModelsExpandDepth: 0,
    },
    // The document has one URL: the copies swagger-ui serves under the docs page answer 404.
    uiHooks: {
      onRequest: (request, reply, done) => {
        if (SECOND_COPIES.test(request.url)) return reply.callNotFound();
        done();
      },
    },
    staticCSP: CSP,
    theme: { title: 'pm-service API' },
  });

  app.get(OPENAPI_PATH, { schema: { hide: true }, config: { scope: 'public' } }, async () => app.swagger());
  app.get(
    '/',
    {
      schema: {
        operationId: 'getIndex',
        tags: [SERVICE_TAG.name],
        summary: 'Where to start: links to the docs page and the OpenAPI document',
        description:
          'A client whose `Accept` prefers `text/html` to `application/json` by q-value (a browser) is given the web ' +
          "app's page here instead, as it is at the app's own paths (`/projects/…`, `/tasks/…`); a tie, `*/*` or " +
          'no `Accept` get this JSON.',
        response: { 200: Index },
      },
    },
    async (request, reply) => {
      // A browser that prefers HTML is given the web app here instead (src/web/).
      const page = browserPage?.(request, reply);
      if (page) return page;
      reply.header('link', LINK).header('vary', 'Accept');
      return INDEX;
    },
  );
}

const SECOND_COPIES = new RegExp(`^${DOCS_PATH}/(json|yaml)/?(\\?|$)`);

const SERVICE_TAG = { name: 'Service', description: 'Where to start.' };

const INDEX = {
  name: 'pm-service API',
  version: pkg.version,
  links: { docs: DOCS_PATH, openapi: OPENAPI_PATH },
};
// RFC 8631: the documentation for people, and the description for machines.
const LINK = `<${DOCS_PATH}>; rel="service-doc", <${OPENAPI_PATH}>; rel="service-desc"`;
const Index = Type.Object(
  {
    name: Type.String(),
    version: Type.String(),
    links: Type.Object({
      docs: Type.String({ description: 'The interactive reference (swagger-ui)' }),
      openapi: Type.String({ description: 'This OpenAPI 3.1 document' }),
    }),
  },
  {
    description: 'The service, and where its documentation is',
    examples: [INDEX],
    headers: {
      link: { type: 'string', description: 'The same links (RFC 8631 `service-doc` and `service-desc`)' },
    },
  },
);

type RouteSchema = {
  body?: TSchema;
  querystring?: TSchema;
  params?: TObject;
  headers?: TObject;
  /** Route schemas say what a status answers; the document's transform may say it in OpenAPI's own form. */
  response?: Record<string, unknown>;
} & Record<string, unknown>;

/**
 * What the document says about one route, on top of its own schema (the route itself is not changed):
 * the errors any route can give, the error responses as references to the shared component with their
 * codes, examples taken from the sample records, and the `X-Actor` header of every write.
 */
function documentRoute(
  docs: ApiDocs,
  namedShapes: <T>(schema: T) => T,
  schema: RouteSchema,
  url: string,
  takesBody: boolean,
  tokens = false,
): RouteSchema {
  const samples = docs.sampleFor(url);
  const response: Record<string, unknown> = {};
  const statuses = documentedStatuses((schema.response ?? {}) as Record<string, TSchema>, {
    takesBody,
    hasQuery: !!schema.querystring,
  });
  const documented = schema.body && documentBody(schema.body);
  const errors = { takesBody, checked: documented?.codes ?? [] };
  for (const [status, s] of statuses) {
    // A response of another media type than JSON (the event stream) is documented as the route gives it.
    if ('content' in s) response[status] = s;
    else if (s === ErrorResponse) response[status] = describeErrors(docs, Number(status), url, errors);
    else if (s === Deleted && samples)
      response[status] = describeSuccess(status, namedShapes(s), { data: { id: samples.id, deleted: true } });
    else {
      const named = docs.namedRecords(s);
      response[status] = describeSuccess(status, namedShapes(named.schema), named.example);
    }
  }

  const out: RouteSchema = { ...schema, response };
  if (schema.querystring) out.querystring = documentListParameters(schema.querystring as TObject);
  if (documented) {
    const body = samples?.body(documented.schema, schema.params ? 2 : Infinity);
    out.body = (body ? { ...documented.schema, examples: [body] } : documented.schema) as TSchema;
  }
  if (schema.params?.properties.id && samples) {
    out.params = Type.Object({
      ...schema.params.properties,
      id: { ...schema.params.properties.id, examples: [samples.id] },
    });
  }
  if (takesBody) {
    out.headers = Type.Object({
      ...(schema.headers?.properties ?? {}),
      'x-actor': Type.Optional(
        RequiredText(LIMITS.username, {
          description: tokens
            ? "Ignored: with AUTH=token, the token's username makes the change"
            : 'Who makes the change (a username, not blank), recorded in the activity log',
          examples: ['alice'],
        }),
      ),
    });
  }
  return out;
}

/**
 * A success response for the document: a description, its headers, and an example, which @fastify/swagger
 * lifts from the schema's `examples` onto the media type. Single records carry their version as an `ETag`.
 */
function describeSuccess(
  status: string,
  schema: TSchema & { description?: string; headers?: object; $ref?: string },
  example: unknown,
): TSchema {
  const single = (example as { data?: unknown } | undefined)?.data;
  const etag =
    status === '304' || (single !== undefined && !Array.isArray(single) && !(single as { deleted?: boolean }).deleted);
  const description = schema.description ?? STATUS_CODES[status] ?? 'Success';
  const headers = { ...responseHeaders, ...schema.headers, ...(etag ? { etag: ETAG } : {}) };
  // A shared shape is a reference, given as the media type's schema (as error answers are).
  if (schema.$ref) {
    const media = { schema: { $ref: schema.$ref }, ...(example === undefined ? {} : { example }) };
    return { description, headers, content: { 'application/json': media } } as TSchema;
  }
  return {
    ...schema,
    'x-response-description': description,
    headers,
    ...(example === undefined ? {} : { examples: [example] }),
  } as TSchema;
}

const INFO = `${pkg.description}

Every request and response shape in this document is generated from the TypeBox schemas the service validates
requests with, so it cannot drift from what the service does.

- **Envelopes.** One record \`{ "data": {…} }\`; a list \`{ "data": […], "count": n }\` (every match, in creation
  order; the activity log newest first, with \`total\`); a delete \`{ "data": { "id": "…", "deleted": true } }\`.
  On \`DATA_DIR\` and \`DATABASE_URL\`, a list of more than 5,000 matches asked without \`limit\` is written as it is
  read (chunked, without \`Content-Length\`), \`count\` after \`data\`.
- **Bodies.** JSON objects. Fields a body schema does not list, read-only ones included (\`id\`, \`createdAt\`, …),
  are accepted and ignored: never stored or echoed. Values are taken as sent, never coerced.
- **Errors.** Every 4xx/5xx body is \`{ "error": { "code", "message", "details"? } }\`
  (the \`ErrorResponse\` schema, whose \`code\` lists every code); an unknown path is \`404 NOT_FOUND\` and a known
  path with another method \`405 METHOD_NOT_ALLOWED\` with an \`Allow\` header. Any request can also be answered
  \`408\` (too slow) or \`431\` (headers too large), after which the connection is closed.
- **Concurrency.** Single-record reads carry an \`ETag\`: \`If-None-Match\` gives \`304\`, a stale \`If-Match\` on a
  write gives \`412 PRECONDITION_FAILED\`.
- **Headers.** Every response carries \`X-Request-Id\`; send \`X-Actor: <username>\` to say who makes a change.
  CORS is open to any origin.
- **Start.** \`GET /\` links to the docs page and to this document (\`${OPENAPI_PATH}\`).
- **Sample data.** The service starts with stable sample records (\`proj_001\`, \`task_001\`, \`team_001\`, …);
  the examples below are taken from them.`;

/** What the document adds to its introduction when the service runs with `AUTH=token`. */
const AUTH_INFO = `- **Authentication.** This service runs with \`AUTH=token\`: every \`/api\` operation but the health checks,
  this document and the data file's schema needs a token, as \`Authorization: Bearer <token>\` or \`X-API-Key: <token>\` (the docs page's
  "Authorize" button). Missing, unknown, revoked or expired: \`401 UNAUTHENTICATED\`; without the scope the operation
  needs (\`read\`: GET; \`write\`: other changes; \`admin\`: webhooks' changes and tokens): \`403 FORBIDDEN\`. The
  token's username is the actor of every change it makes (\`X-Actor\` is ignored).`;

/** What the document adds to its introduction when the service runs with `RATE_LIMIT`. */
const RATE_INFO = `- **Rate limit.** Every answer carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`
  (seconds); past the limit (per token, else per client address), \`429 RATE_LIMITED\` with \`Retry-After\`.`;

/** Everything the docs page loads comes from this server; inline styles are swagger-ui's own. */
const CSP = {
  'default-src': ["'self'"],
  'connect-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'object-src': ["'none'"],
  'frame-ancestors': ["'self'"],
  'base-uri': ["'self'"],
};

/**
 * `sort` and `field[in]` are validated as text and read by the service (src/http/list.ts); the document says
 * what they are: comma-separated lists (`style: form, explode: false`) of the sortable fields or the field's values.
 */
function documentListParameters(query: TObject): TObject {
  const props = query.properties as Record<string, TSchema & Record<string, unknown>>;
  if (!Object.values(props).some((p) => p[SORT_VALUES] || p[ANY_OF_ITEMS])) return query;
  const out: Record<string, TSchema> = {};
  for (const [name, prop] of Object.entries(props)) {
    const { [SORT_VALUES]: values, [ANY_OF_ITEMS]: item, minLength: _min, maxLength: _max, ...rest } = prop;
    if (!values && !item) {
      out[name] = prop;
      continue;
    }
    const items = values ? { type: 'string', enum: values } : item;
    out[name] = { ...rest, type: 'array', items, minItems: 1, style: 'form', explode: false } as TSchema;
  }
  return { ...query, properties: out } as TObject;
}
