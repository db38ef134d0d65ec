import { contextOf } from '../../http/context.ts';
import { sendRecord } from '../../http/etag.ts';
import type { TypedApp } from '../../http/typed.ts';
import { IdParams, IfNoneMatchHeaders, NotModified, One, errorResponses } from '../../schemas/common.ts';
import { readList, sendList } from '../../http/list.ts';
import { ActivityCreate, ActivityList, ActivityListQuery, ActivityListSpec, ActivityQuery } from './schema.ts';
import { ActivityEntry } from '../../model/activity.ts';
import type { ActivityLogService } from './service.ts';

/** Where the log is served and its OpenAPI tag. */
export interface LogNames {
  readonly path: string;
  readonly tag: string;
}

/** No PUT, PATCH or DELETE: entries never change (those methods answer 405). */
export function activityRoutes(app: TypedApp, service: ActivityLogService, { path, tag }: LogNames): void {
  const tags = [tag];
  app.get(path, {
    schema: {
      operationId: 'listActivity',
      tags,
      summary: 'Query the activity log, newest first',
      querystring: ActivityListQuery,
      response: { 200: ActivityList, ...errorResponses(400) },
    },
    handler: async (request, reply) => {
      const list = readList(request.query, ActivityQuery, ActivityListSpec, path);
      return sendList(
        request,
        reply,
        list,
        (cut) => service.query({ ...request.query, limit: cut.limit }, { ...list, query: { ...list.query, ...cut } }),
        (data, count, total) => ({ data, count, total }),
      );
    },
  });

  app.get(`${path}/:id`, {
    schema: {
      operationId: 'getActivity',
      tags,
      summary: 'Get an activity log entry',
      params: IdParams,
      headers: IfNoneMatchHeaders,
      response: { 200: One(ActivityEntry), 304: NotModified, ...errorResponses(404) },
    },
    handler: async (request, reply) => sendRecord(request, reply, await service.get(request.params.id)),
  });

  app.post(path, {
    schema: {
      operationId: 'createActivity',
      tags,
      summary: 'Append an activity log entry',
      body: ActivityCreate,
      response: { 201: One(ActivityEntry), ...errorResponses(400, 413, 415) },
    },
    handler: async (request, reply) => {
      return sendRecord(request, reply, await service.append(request.body, contextOf(request)), 201);
    },
  });
}
