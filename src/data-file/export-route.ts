import { PassThrough } from 'node:stream';
import { Type } from 'typebox';
import { responseHeaders } from '../http/openapi-responses.ts';
import type { TypedApp } from '../http/typed.ts';
import { iso, type Clock } from '../model/time.ts';
import type { Store } from '../store/store.ts';
import { writeDataFile } from './export.ts';

export const EXPORT_PATH = '/api/export';

const DESCRIPTION = `The whole store as one JSON data file (\`"format": "pm-service/1"\`): every collection in load order, each record exactly as the API shows it, the activity log oldest first. Read from one consistent snapshot while the service goes on serving, and streamed as it is read, so that a large store is never held whole. Never with secrets: no webhook \`secret\`, no \`tokens\` (\`npm run export -- --include-secrets\` writes those, on the service's machine). \`npm run import\` loads the file into an empty store; docs/backups.md says how.

A store that fails while the file is being sent ends the answer early: a file cut short is not valid JSON, and \`npm run import\` refuses it.`;

export interface ExportRouteDeps {
  readonly store: Store;
  readonly clock: Clock;
}

/** `GET /api/export`: the data file without secrets, as a download named after the day. */
export function exportRoute(app: TypedApp, deps: ExportRouteDeps, tag: string): void {
  app.get(EXPORT_PATH, {
    // The whole store, every user's records and the webhooks' addresses: what only an administrator reads.
    config: { scope: 'admin' },
    schema: {
      operationId: 'exportData',
      tags: [tag],
      summary: 'Export the whole store as a data file',
      description: DESCRIPTION,
      response: {
        200: {
          description: 'The data file, streamed',
          headers: {
            ...responseHeaders,
            'content-disposition': {
              type: 'string',
              description: 'A download, named after the day (UTC)',
              examples: ['attachment; filename="pm-service-2026-11-22.json"'],
            },
          },
          content: {
            'application/json': {
              // Sent as a stream, never serialized: the shape is the document's, `/api/export.schema.json` in full.
              schema: Type.Unsafe<unknown>(
                Type.Object(
                  { format: Type.Literal('pm-service/1'), exportedAt: Type.String({ format: 'date-time' }) },
                  { additionalProperties: true, description: 'The data file: `/api/export.schema.json` describes it' },
                ),
              ),
            },
          },
        },
      },
    },
    handler: async (request, reply) => {
      const exportedAt = iso(deps.clock.now());
      reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="pm-service-${exportedAt.slice(0, 10)}.json"`)
        .header('cache-control', 'no-store');
      // HEAD: the headers an export would have, and no export.
      if (request.method === 'HEAD') return reply.send('');
      const body = new PassThrough();
      writeDataFile(deps.store, body, { secrets: false, exportedAt }).then(
        () => body.end(),
        (err: unknown) => {
          // The client went away, or the store failed: the answer ends early either way.
          if (!body.destroyed) request.log.error({ err }, 'export ended early');
          body.destroy();
        },
      );
      return reply.send(body);
    },
  });
}
