import { Type, type Static } from 'typebox';

/** What the catalogue says of one error code. */
interface ErrorKind {
  /** The HTTP status every answer with this code has. */
  readonly status: number;
  /** The message when the thrower gives none. */
  readonly message: string;
  /** When it is answered, in a few words: the OpenAPI document's description of the code. */
  readonly when: string;
}

/**
 * Every error code the service answers, declared once (as fastify's `lib/errors.js` does). The status and the
 * default message of an `AppError`, the `code` enum of the error body, the document's error responses and the
 * error table of docs/api.md (checked by test/http/errors.test.ts) all come from here: adding a code is one line.
 */
export const ERROR_CATALOGUE = {
  VALIDATION_ERROR: {
    status: 400,
    message: 'The request is invalid',
    when: 'a field, parameter or header is invalid, or names a missing record; `details` names each',
  },
  INVALID_JSON: { status: 400, message: 'The request body is not valid JSON', when: 'the body is not parseable JSON' },
  INVALID_EVENTS: { status: 400, message: 'Unsupported event type', when: 'an event type outside the list' },
  UNAUTHENTICATED: {
    status: 401,
    message: 'A valid API token is required (Authorization: Bearer <token> or X-API-Key: <token>)',
    when: 'with `AUTH=token`: no token, or one that is unknown, revoked or expired; `WWW-Authenticate: Bearer`',
  },
  FORBIDDEN: {
    status: 403,
    message: 'The token does not have the scope this request needs',
    when: "with `AUTH=token`: the token's scopes do not cover the request",
  },
  NOT_FOUND: { status: 404, message: 'Not found', when: 'no record with this id (or no route for the path)' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed', when: 'the path exists, not with this method' },
  REQUEST_TIMEOUT: {
    status: 408,
    message: 'The request was not received in time',
    when: 'the request came too slowly; the connection is closed',
  },
  PRECONDITION_FAILED: { status: 412, message: 'The record has changed', when: '`If-Match` names an old version' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large', when: 'the body is over the limit' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: 'Request bodies must be JSON (Content-Type: application/json)',
    when: 'a body that is not `application/json`, declares a charset other than UTF-8, or is compressed',
  },
  RATE_LIMITED: {
    status: 429,
    message: 'Too many requests',
    when: 'with `RATE_LIMIT`: over the limit of the token or client address; `Retry-After` says when to try again',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    message: 'The request headers are too large',
    when: 'the headers are over the limit; the connection is closed',
  },
  INTERNAL_ERROR: {
    status: 500,
    message: 'Internal error',
    when: 'an unexpected failure (logged with the request id)',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    message: 'The database is unavailable; try again shortly',
    when: 'the database cannot be reached or did not answer in time, or the event stream has all the clients it takes',
  },
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** The codes answered with `status`, in catalogue order. */
export const codesOf = (status: number): ErrorCode[] =>
  ERROR_CODES.filter((code) => ERROR_CATALOGUE[code].status === status);

/** One problem with one field of a request (body, query string, params or header). */
export const ErrorDetail = Type.Object({
  field: Type.String({ description: 'Dotted path of the offending field, e.g. `members[0].role`.' }),
  message: Type.String(),
});
export type ErrorDetail = Static<typeof ErrorDetail>;

/** The one error body of the service: every 4xx and 5xx answer has this shape. */
export const ErrorResponse = Type.Object(
  {
    error: Type.Object({
      code: Type.Unsafe<ErrorCode>({ type: 'string', enum: ERROR_CODES, examples: ['NOT_FOUND'] }),
      message: Type.String(),
      details: Type.Optional(Type.Array(ErrorDetail)),
    }),
  },
  { description: 'Error' },
);
export type ErrorResponse = Static<typeof ErrorResponse>;

/** An error the service means to report: code, message and details are safe to show to the caller. */
export class AppError extends Error {
  /** The status of the code, from the catalogue. */
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string = ERROR_CATALOGUE[code].message,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
    this.statusCode = ERROR_CATALOGUE[code].status;
  }

  toBody(): ErrorResponse {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export const notFound = (resource: string, id: string) =>
  new AppError('NOT_FOUND', `${resource} '${id.length > 100 ? `${id.slice(0, 100)}…` : id}' was not found`);

export const validationError = (details: ErrorDetail[], message?: string) =>
  new AppError(
    'VALIDATION_ERROR',
    message ?? (details.length === 1 ? `${details[0]!.field}: ${details[0]!.message}` : undefined),
    details,
  );

export const preconditionFailed = (etag: string) =>
  new AppError('PRECONDITION_FAILED', `The record has changed: its current ETag is ${etag}`);
