import { Type } from 'typebox';
import { responseHeaders } from '../http/openapi-responses.ts';
import type { TypedApp } from '../http/typed.ts';
import { STREAM_EVENT_TYPES, parseFilter, RESET_EVENT } from './catalog.ts';
import type { StreamHub } from './hub.ts';

/** What the stream needs of the API tokens, handed in by `buildApp`: whether one still holds, and its revocations. */
export interface TokenWatch {
  /** Whether the token of this id still authenticates (not revoked, not expired). */
  holds(id: string): Promise<boolean>;
  /** Calls `listener` with the id of each token revoked through this instance. */
  onRevoked(listener: (id: string) => void): void;
}

export const STREAM_PATH = '/api/stream';

const StreamQuery = Type.Object({
  types: Type.Optional(
    Type.String({
      description:
        'Only these event types: a comma-separated list of exact types or `<resource>.*` (`task.*,comment.created`). ' +
        'An unknown type is a 400 `VALIDATION_ERROR`.',
      examples: ['task.*,comment.created'],
    }),
  ),
  projectId: Type.Optional(
    Type.String({
      description:
        'Only the events of this project: the project itself, its tasks and milestones, the comments on it and on ' +
        'its tasks, the time entries of its tasks, and the activity entries clients post about it or its tasks.',
      examples: ['proj_001'],
    }),
  ),
  lastEventId: Type.Optional(
    Type.String({
      description:
        'Resume after this event (its `id`), as the `Last-Event-ID` header does; the header wins when both are sent ' +
        '(an `EventSource` sends it when it reconnects).',
    }),
  ),
});

const DESCRIPTION = `Server-sent events: every change made through the interface, as it commits, to browsers (\`EventSource\`) and scripts (\`curl -N\`).

Each event: \`id:\` its position in the stream, \`event:\` its type, \`data:\` the JSON body a webhook receives, \`{ "type", "timestamp", "data" }\` (a webhook's \`data\` never carries its secret). Types: ${STREAM_EVENT_TYPES.map((t) => `\`${t}\``).join(', ')}.

A client is subscribed from the moment the response headers are sent. Reconnecting with \`Last-Event-ID\` (or \`lastEventId=\`) first replays, in order, every matching event after that position, then goes on live, with nothing lost or repeated. A position the service does not recognize, or one older than the events kept (the last \`STREAM_REPLAY\` in memory; \`STREAM_RETENTION_MS\` on the durable stores), starts the stream with one \`event: ${RESET_EVENT}\` (its \`data.reason\` says why), then live.

Events are written in batches, every \`STREAM_FLUSH_MS\` (longer, up to \`STREAM_FLUSH_MAX_MS\`, while the service is saturated). The stream starts with \`retry:\`, and a comment line (\`: keep-alive\`) comes every \`STREAM_HEARTBEAT_MS\`. A client that does not read is disconnected (it may resume). With \`AUTH=token\`, a stream opened with an issued token ends when the token is revoked or expires (at once on the instance that revoked it, else at the next heartbeat), after a comment saying why. Beyond \`STREAM_MAX_CLIENTS\` connected clients: 503 with \`Retry-After\`.

A client whose \`Accept-Encoding\` takes gzip (browsers' \`EventSource\` and \`fetch\` send it; \`curl --compressed\`) gets the stream gzip-compressed (\`Content-Encoding: gzip\`, flushed with every write, so events arrive as promptly), unless \`STREAM_COMPRESSION=false\`; the stream ends complete (its gzip trailer) when the service stops. The answer carries \`Vary: Accept-Encoding\`.`;

export function streamRoutes(app: TypedApp, hub: StreamHub, tag: string, tokens: Pick<TokenWatch, 'holds'>): void {
  app.get(STREAM_PATH, {
    // API tokens may come as `access_token=` on this route: an EventSource cannot send headers.
    config: { queryToken: true },
    schema: {
      operationId: 'streamEvents',
      tags: [tag],
      summary: 'Live event stream (server-sent events)',
      description: DESCRIPTION,
      querystring: StreamQuery,
      headers: Type.Object({
        'last-event-id': Type.Optional(Type.String({ description: 'Resume after this event (its `id`)' })),
      }),
      response: {
        200: {
          description: 'The stream, open until the client leaves or the service stops',
          headers: {
            ...responseHeaders,
            'cache-control': {
              type: 'string',
              description: 'Never stored by a cache',
              examples: ['no-cache, no-transform'],
            },
            vary: { type: 'string', description: "The stream depends on the client's `Accept-Encoding`" },
            'content-encoding': { type: 'string', description: '`gzip` when the client takes it', examples: ['gzip'] },
            'x-accel-buffering': {
              type: 'string',
              description: 'Asks a proxy in front (nginx) not to hold the events back',
              examples: ['no'],
            },
          },
          content: {
            'text/event-stream': {
              schema: Type.String({
                examples: [
                  'retry: 2000\n\nid: 1795356000000001\nevent: task.created\ndata: {"type":"task.created","timestamp":"2026-11-22T10:00:00.000Z","data":{"id":"task_…"}}\n\n',
                ],
              }),
            },
          },
        },
      },
    },
    handler: async (request, reply) => {
      const filter = parseFilter(request.query);
      // HEAD: the headers a stream would have, and no stream.
      if (request.method === 'HEAD') {
        return reply.headers(hub.encodingFor(request).headers).type('text/event-stream; charset=utf-8').send('');
      }
      const header = request.headers['last-event-id'];
      const lastEventId = (header === '' ? undefined : header) ?? request.query.lastEventId;
      // Opened with an issued token (AUTH=token), the stream lasts as long as the token does.
      const tokenId = request.principal?.tokenId;
      const access = tokenId === undefined ? undefined : { tokenId, holds: () => tokens.holds(tokenId) };
      await hub.serve(request, reply, filter, lastEventId === '' ? undefined : lastEventId, access);
    },
  });
}
