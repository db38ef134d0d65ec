import { Type } from 'typebox';
import type { TypedApp } from '../http/typed.ts';
import { DataFileSchema } from './format.ts';

/** The OpenAPI tag of the data file's routes. */
export const DATA_FILE_TAG = {
  name: 'Data files',
  description:
    'The whole store as one JSON file (`"format": "pm-service/1"`): what `SEED_FILE` starts from and what the ' +
    'export and import move between stores. Its JSON Schema is at `/api/export.schema.json`.',
};

export const EXPORT_SCHEMA_PATH = '/api/export.schema.json';

/**
 * The data file's JSON Schema (draft 2020-12) as a document of its own: what an editor or a validator is pointed
 * at to check a hand-written file. The same text is kept in docs/export.schema.json (`npm run docs:schema`).
 */
export function exportSchemaDocument(): Record<string, unknown> {
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...structuredClone(DataFileSchema) };
}

/** `GET /api/export.schema.json`: public (no token needed with `AUTH=token`), as the OpenAPI document is. */
export function dataFileRoutes(app: TypedApp, tag: string = DATA_FILE_TAG.name): void {
  const document = exportSchemaDocument();
  app.get(EXPORT_SCHEMA_PATH, {
    config: { scope: 'public' },
    schema: {
      operationId: 'getExportSchema',
      tags: [tag],
      summary: 'The JSON Schema of a data file',
      description:
        'The JSON Schema (draft 2020-12) of the file `SEED_FILE` starts from and the export writes: ' +
        '`{ "format": "pm-service/1", "teams": […], "projects": […], "tasks": […], … }`, every collection optional, ' +
        'each record as the API shows it. The schema checks the form of each record; the service checks more when it ' +
        'loads a file (unique ids with their prefixes, every reference): see docs/data-files.md. Public: no token ' +
        'is needed.',
      response: {
        200: Type.Object({}, { additionalProperties: true, description: 'A JSON Schema (draft 2020-12)' }),
      },
    },
    handler: async () => document,
  });
}
