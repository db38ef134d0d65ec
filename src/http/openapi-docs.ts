import type { TSchema } from 'typebox';
import { ErrorResponse } from '../errors.ts';
import { resources } from '../resources/index.ts';
import { apiDocs, ref } from './api-docs.ts';

// The HTTP layer's one reference to the resources, until registerOpenApi receives them from buildApp.
const docs = apiDocs(resources);
export const TAGS = docs.tags;
export const { components, sampleFor, namedRecords } = docs;

/**
 * The responses of a route with the errors any route can give added: a body can always be malformed (400),
 * too large (413) or not JSON (415); a query string can be invalid (400); anything can fail (500).
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
  return Object.entries(out).sort(([a], [b]) => a.localeCompare(b));
}

/** Headers every response carries. */
export const responseHeaders = {
  'x-request-id': { type: 'string', description: 'The request id: yours if you sent a plain token, else a new UUID' },
};
export const ETAG = {
  type: 'string',
  description: 'Version of the record: send it back in `If-None-Match` or `If-Match`',
};

/** What each error status means here, and an answer it gives. */
const ERRORS: Record<number, { description: string; example: ErrorResponse['error'] }> = {
  400: {
    description: 'Invalid request: `VALIDATION_ERROR`, with one `details` entry per bad field',
    example: {
      code: 'VALIDATION_ERROR',
      message: 'title: must not be blank',
      details: [{ field: 'title', message: 'must not be blank' }],
    },
  },
  404: {
    description: '`NOT_FOUND`: no record with this id',
    example: { code: 'NOT_FOUND', message: "Record 'x_999' was not found" },
  },
  412: {
    description: '`PRECONDITION_FAILED`: `If-Match` names a version that is no longer current; nothing changed',
    example: { code: 'PRECONDITION_FAILED', message: 'The record has changed: its current ETag is "munvjxc0"' },
  },
  413: {
    description: '`PAYLOAD_TOO_LARGE`: the body is over the size limit',
    example: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is too large' },
  },
  415: {
    description: '`UNSUPPORTED_MEDIA_TYPE`: a body that is not `application/json`',
    example: {
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'Request bodies must be JSON (Content-Type: application/json)',
    },
  },
  500: {
    description: '`INTERNAL_ERROR`: an unexpected failure (logged with the request id)',
    example: { code: 'INTERNAL_ERROR', message: 'Internal error' },
  },
};

const BAD_BODY = ' (a reference to a record that does not exist included); `INVALID_JSON` for a body that is not JSON';
const BAD_EVENTS = '; `INVALID_EVENTS` for an event type outside the list';

/** An error response: its codes in words, its body the shared `ErrorResponse` component, an example answer. */
export function describeErrors(status: number, url: string, takesBody: boolean) {
  const known = ERRORS[status];
  const body = status === 400 && takesBody ? BAD_BODY + (url.startsWith('/api/webhooks') ? BAD_EVENTS : '') : '';
  const notFound = status === 404 ? sampleFor(url)?.notFound : undefined;
  const example = known && { error: notFound ? { ...known.example, message: notFound } : known.example };
  return {
    description: (known?.description ?? 'Error') + body,
    headers: responseHeaders,
    content: { 'application/json': { schema: ref('ErrorResponse'), ...(example ? { example } : {}) } },
  };
}
