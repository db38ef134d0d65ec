import { Type, type Static } from 'typebox';

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
      code: Type.String({ examples: ['NOT_FOUND'] }),
      message: Type.String(),
      details: Type.Optional(Type.Array(ErrorDetail)),
    }),
  },
  { description: 'Error' },
);
export type ErrorResponse = Static<typeof ErrorResponse>;

export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'INVALID_JSON'
  | 'INVALID_EVENTS'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'REQUEST_TIMEOUT'
  | 'PRECONDITION_FAILED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'HEADERS_TOO_LARGE'
  | 'INTERNAL_ERROR';

/** An error the service means to report: status, code and message are safe to show to the caller. */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  toBody(): ErrorResponse {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export const notFound = (resource: string, id: string) =>
  new AppError(404, 'NOT_FOUND', `${resource} '${id.length > 100 ? `${id.slice(0, 100)}…` : id}' was not found`);

export const validationError = (details: ErrorDetail[], message?: string) =>
  new AppError(
    400,
    'VALIDATION_ERROR',
    message ?? (details.length === 1 ? `${details[0]!.field}: ${details[0]!.message}` : 'The request is invalid'),
    details,
  );
