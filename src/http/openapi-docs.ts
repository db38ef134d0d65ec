import type { TObject, TSchema } from 'typebox';
import { ErrorResponse } from '../errors.ts';
import { resources } from '../resources/index.ts';

/** The document's tags, in the order the docs page lists them. */
export const TAGS = resources.map((r) => r.tag);

/** Sample records per collection path (as the collection lists them) and the name its errors give a record. */
const COLLECTIONS = new Map(resources.flatMap((r) => (r.collection ? [[r.collection.path, r.collection]] : [])));

/**
 * The records the responses carry, as named components (`#/components/schemas/Task`), so that a client
 * generated from the document gets one type per record. Each with its sample records, in its shape.
 */
const RECORDS = resources.flatMap((r) => r.components ?? []);
const BY_SCHEMA = new Map(RECORDS.map((r) => [r.schema, r]));

/** The shared schemas the document names: the error body and the records. */
export const components = (): TSchema[] => [
  { ...ErrorResponse, $id: 'ErrorResponse' },
  ...RECORDS.map((r) => ({ ...r.schema, $id: r.name })),
];

/**
 * The samples of the collection a path belongs to (`/api/tasks/:id` → the seeded tasks): an id for the path
 * parameter and delete answers, the 404 message for an unknown id, and a request body made of a sample
 * record's fields (at most `max` of them: a PATCH example shows a partial change).
 */
export function sampleFor(url: string) {
  const collection = COLLECTIONS.get(url.split('/').slice(0, 3).join('/'));
  const first = collection?.samples[0] as Record<string, unknown> | undefined;
  if (!collection || !first) return undefined;
  const id = first.id as string;
  return {
    id,
    notFound: `${collection.label} '${id.replace(/_.*/, '_999')}' was not found`,
    body(schema: TSchema, max: number): object | undefined {
      const keys = Object.keys((schema as TObject).properties ?? {}).filter((k) => k in first);
      if (keys.length === 0) return undefined;
      return Object.fromEntries(keys.slice(0, max).map((k) => [k, first[k]]));
    },
  };
}

/**
 * A response schema as the document shows it, with its example: `{ data: record }` or `{ data: [records],
 * count }` whose record is a named component gets a reference to it, and sample records as its example.
 */
export function namedRecords(schema: TSchema): { schema: TSchema; example?: unknown } {
  const props = (schema as TObject).properties;
  const data = props?.data as (TSchema & { items?: TSchema }) | undefined;
  const one = data && BY_SCHEMA.get(data);
  if (one)
    return {
      schema: { ...schema, properties: { ...props, data: ref(one.name) } } as TSchema,
      example: { data: one.samples[0] },
    };
  const many = data?.items && BY_SCHEMA.get(data.items);
  if (!many) return { schema };
  const list = many.samples.slice(0, 2);
  return {
    schema: { ...schema, properties: { ...props, data: { ...data, items: ref(many.name) } } } as TSchema,
    example: { data: list, count: list.length, ...(props.total ? { total: list.length } : {}) },
  };
}

/** A reference to a shared schema, which @fastify/swagger turns into `#/components/schemas/<name>`. */
const ref = (name: string) => ({ $ref: `${name}#` });

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
