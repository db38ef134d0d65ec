import { type TObject, Type } from 'typebox';
import type { RequestContext } from '../core/context.ts';
import type { KindNames } from '../core/names.ts';
import type { Conditions, ListQuery, Page, ListSpec } from '../model/list.ts';
import {
  Deleted,
  IdParams,
  IfMatchHeaders,
  IfNoneMatchHeaders,
  Many,
  NotModified,
  One,
  errorResponses,
  Query,
} from '../schemas/common.ts';
import { contextOf } from './context.ts';
import { listQuery, NextCursor, PAGE_HEADERS, readList, sendList } from './list.ts';
import { sendRecord } from './etag.ts';
import type { TypedApp } from './typed.ts';
import type { Scope } from '../model/token.ts';

/**
 * The operations a resource service offers to its routes. Each takes what its route's schema has validated
 * (the query, the create or update body), of the shape the route's spec declares.
 */
export interface CrudService {
  /**
   * A page of the list: `conditions` are the exact-match filters (each condition any of its values, every one
   * holding), `query` the rest (ranges, search, sort, position, limit).
   */
  page(conditions: Conditions, query: ListQuery<object>): Promise<Page<object>>;
  get(id: string): Promise<object>;
  create(input: object, ctx: RequestContext): Promise<object>;
  update(id: string, input: object, ctx: RequestContext): Promise<object>;
  remove(id: string, ctx: RequestContext): Promise<{ id: string }>;
}

/** The routes of one resource: which of the standard operations it has, and their schemas. */
export interface CrudRoutes {
  /** Its names: the path, the tag, the operationIds, the summaries. */
  readonly names: KindNames;
  readonly record: TObject;
  /** The list's exact-match filters; absent: none. */
  readonly query?: TObject;
  /** What the list offers beyond them: sortable, range and searchable fields. */
  readonly list: ListSpec;
  /** The collection's shape of a record, when it differs from the single-record shape (team summaries). */
  readonly listItem?: { readonly schema: TObject; readonly from: (record: never) => Record<string, unknown> };
  /** The create body; `response`: the answer's shape when it is not the record's. */
  readonly create?: { readonly body: TObject; readonly response?: TObject };
  /** PATCH changes what is sent; PUT replaces the record. */
  readonly update?: { readonly method: 'PATCH' | 'PUT'; readonly body: TObject };
  readonly remove?: boolean;
  /** What its routes need of a token, when more than `read` to read or `write` to change (their `config.scope`). */
  readonly scopes?: { readonly read?: Scope; readonly write?: Scope };
}

const article = (noun: string) => (/^[AEIOU]/i.test(noun) ? 'an' : 'a');

/**
 * Registers the standard routes of one resource: list, get, and, as the spec asks, create, update and
 * delete — with the envelopes of the interface (`{ data }`, `{ data, count }`, the delete shape),
 * its status codes, the shared error responses and OpenAPI metadata.
 */
export function registerCrudRoutes(app: TypedApp, spec: CrudRoutes, service: CrudService): void {
  const { path, tag, noun, nouns, component, components } = spec.names;
  const tags = [tag];
  const itemPath = `${path}/:id`;
  const listItem = spec.listItem;
  const many = Many(listItem?.schema ?? spec.record);
  const listResponse = {
    200: Type.Object({ ...many.properties, nextCursor: NextCursor }, { headers: PAGE_HEADERS }),
    ...errorResponses(400),
  };
  const base = spec.query ?? Query({});
  const querystring = listQuery(base, spec.list);
  const reads = { scope: spec.scopes?.read };
  const writes = { scope: spec.scopes?.write };
  app.get(path, {
    schema: { operationId: `list${components}`, tags, summary: `List ${nouns}`, querystring, response: listResponse },
    config: reads,
    // Only a validated query filters: its schema has removed every parameter it does not declare.
    handler: async (request, reply) => {
      const list = readList(request.query, base, spec.list, path);
      return sendList(
        request,
        reply,
        list,
        (cut) => service.page(list.conditions, { ...list.query, ...cut }),
        (records, count) => ({
          data: (listItem ? records.map((r) => listItem.from(r as never)) : records) as Record<string, unknown>[],
          count,
        }),
      );
    },
  });

  app.get(itemPath, {
    schema: {
      operationId: `get${component}`,
      tags,
      summary: `Get ${article(noun)} ${noun}`,
      params: IdParams,
      headers: IfNoneMatchHeaders,
      response: { 200: One(spec.record), 304: NotModified, ...errorResponses(404) },
    },
    config: reads,
    handler: async (request, reply) => sendRecord(request, reply, await service.get(request.params.id)),
  });

  if (spec.create) {
    app.post(path, {
      schema: {
        operationId: `create${component}`,
        tags,
        summary: `Create ${article(noun)} ${noun}`,
        body: spec.create.body,
        response: { 201: One(spec.create.response ?? spec.record), ...errorResponses(400, 413, 415) },
      },
      config: writes,
      handler: async (request, reply) =>
        sendRecord(request, reply, await service.create(request.body, contextOf(request)), 201),
    });
  }

  if (spec.update) {
    const replace = spec.update.method === 'PUT';
    app.route({
      method: spec.update.method,
      url: itemPath,
      schema: {
        operationId: `${replace ? 'replace' : 'update'}${component}`,
        tags,
        summary: replace
          ? `Replace ${article(noun)} ${noun}`
          : `Update ${article(noun)} ${noun} (only the fields sent)`,
        params: IdParams,
        headers: IfMatchHeaders,
        body: spec.update.body,
        response: { 200: One(spec.record), ...errorResponses(400, 404, 412, 413, 415) },
      },
      config: writes,
      handler: async (request, reply) =>
        sendRecord(request, reply, await service.update(request.params.id, request.body, contextOf(request))),
    });
  }

  if (spec.remove) {
    app.delete(itemPath, {
      schema: {
        operationId: `delete${component}`,
        tags,
        summary: `Delete ${article(noun)} ${noun}`,
        params: IdParams,
        headers: IfMatchHeaders,
        response: { 200: Deleted, ...errorResponses(404, 412) },
      },
      config: writes,
      handler: async (request) => {
        const record = await service.remove(request.params.id, contextOf(request));
        return { data: { id: record.id, deleted: true as const } };
      },
    });
  }
}
