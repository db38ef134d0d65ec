import type { FastifyInstance } from 'fastify';
import type { TObject, TSchema } from 'typebox';
import type { RequestContext } from '../events/types.ts';
import {
  Deleted,
  IdParams,
  IfMatchHeaders,
  IfNoneMatchHeaders,
  Many,
  NotModified,
  One,
  errorResponses,
} from '../schemas/common.ts';
import { contextOf } from './context.ts';
import { sendRecord } from './etag.ts';

/** The operations a resource service offers to its routes. */
export interface CrudService<T> {
  list(query: object): Promise<readonly T[]>;
  get(id: string): Promise<T>;
  create?(input: never, ctx: RequestContext): Promise<T>;
  update?(id: string, input: never, ctx: RequestContext): Promise<T>;
  remove?(id: string, ctx: RequestContext): Promise<T>;
}

export interface CrudSpec<T> {
  /** Collection path, e.g. `/api/tasks`. */
  readonly path: string;
  /** OpenAPI tag and operation names: `{ one: 'Task', many: 'Tasks' }` gives `listTasks`, `getTask`, … */
  readonly names: { readonly one: string; readonly many: string };
  readonly service: CrudService<T>;
  readonly record: TObject;
  readonly query?: TObject;
  /** The collection's shape of a record, when it differs from the single-record shape (team summaries). */
  readonly listItem?: { readonly schema: TObject; readonly from: (record: T) => unknown };
  readonly create?: { readonly body: TObject; readonly response?: TObject };
  /** PATCH changes what is sent; PUT replaces the record. */
  readonly update?: { readonly method: 'PATCH' | 'PUT'; readonly body: TObject };
  readonly remove?: boolean;
}

const article = (noun: string) => (/^[AEIOU]/i.test(noun) ? 'an' : 'a');

/**
 * Registers the standard routes of one resource: list, get, and, as the spec asks, create, update and
 * delete — with the envelopes of the interface (`{ data }`, `{ data, count }`, the delete shape),
 * its status codes, the shared error responses and OpenAPI metadata. What differs between resources
 * is only the spec passed in.
 */
export function registerCrudRoutes<T extends { id: string }>(app: FastifyInstance, spec: CrudSpec<T>): void {
  const { path, names, service } = spec;
  const one = names.one.toLowerCase();
  const tags = [names.many];
  const itemPath = `${path}/:id`;
  const listItem = spec.listItem;

  app.get(path, {
    schema: {
      operationId: `list${pascal(names.many)}`,
      tags,
      summary: `List ${names.many.toLowerCase()}`,
      ...(spec.query ? { querystring: spec.query } : {}),
      response: { 200: Many(listItem?.schema ?? spec.record), ...errorResponses(400) },
    },
    handler: async (request) => {
      // Only a validated query filters: its schema has removed every parameter it does not declare.
      const records = await service.list(spec.query ? (request.query as object) : {});
      const data = listItem ? records.map(listItem.from) : records;
      return { data, count: data.length };
    },
  });

  app.get(itemPath, {
    schema: {
      operationId: `get${pascal(names.one)}`,
      tags,
      summary: `Get ${article(one)} ${one}`,
      params: IdParams,
      headers: IfNoneMatchHeaders,
      response: { 200: One(spec.record), 304: NotModified, ...errorResponses(404) },
    },
    handler: async (request, reply) => sendRecord(request, reply, await service.get((request.params as IdParams).id)),
  });

  if (spec.create && service.create) {
    const create = service.create.bind(service) as (input: unknown, ctx: RequestContext) => Promise<T>;
    app.post(path, {
      schema: {
        operationId: `create${pascal(names.one)}`,
        tags,
        summary: `Create ${article(one)} ${one}`,
        body: spec.create.body,
        response: { 201: One(spec.create.response ?? spec.record), ...errorResponses(400, 413, 415) },
      },
      handler: async (request, reply) => {
        return sendRecord(request, reply, await create(request.body, contextOf(request)), 201);
      },
    });
  }

  if (spec.update && service.update) {
    const update = service.update.bind(service) as (id: string, input: unknown, ctx: RequestContext) => Promise<T>;
    const replace = spec.update.method === 'PUT';
    app.route({
      method: spec.update.method,
      url: itemPath,
      schema: {
        operationId: `${replace ? 'replace' : 'update'}${pascal(names.one)}`,
        tags,
        summary: replace ? `Replace ${article(one)} ${one}` : `Update ${article(one)} ${one} (only the fields sent)`,
        params: IdParams,
        headers: IfMatchHeaders,
        body: spec.update.body as TSchema,
        response: { 200: One(spec.record), ...errorResponses(400, 404, 412, 413, 415) },
      },
      handler: async (request, reply) =>
        sendRecord(request, reply, await update((request.params as IdParams).id, request.body, contextOf(request))),
    });
  }

  if (spec.remove && service.remove) {
    const remove = service.remove.bind(service);
    app.delete(itemPath, {
      schema: {
        operationId: `delete${pascal(names.one)}`,
        tags,
        summary: `Delete ${article(one)} ${one}`,
        params: IdParams,
        headers: IfMatchHeaders,
        response: { 200: Deleted, ...errorResponses(404, 412) },
      },
      handler: async (request) => {
        const record = await remove((request.params as IdParams).id, contextOf(request));
        return { data: { id: record.id, deleted: true as const } };
      },
    });
  }
}

function pascal(s: string): string {
  return s.replace(/(^|\s)(\w)/g, (_, __, c: string) => c.toUpperCase());
}
