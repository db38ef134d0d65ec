/**
 * `npm run docs:schema`: writes docs/export.schema.json, the JSON Schema of a data file, from the format's TypeBox
 * schema (`DataFileSchema` in src/data-file/format.ts), exactly as `GET /api/export.schema.json` serves it.
 * test/data-file/schema.test.ts fails when the file is out of date with the schema.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format } from 'prettier';
import { exportSchemaDocument } from '../src/data-file/routes.ts';

export const SCHEMA_FILE = fileURLToPath(new URL('../docs/export.schema.json', import.meta.url));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = await format(JSON.stringify(exportSchemaDocument()), { parser: 'json', printWidth: 120 });
  writeFileSync(SCHEMA_FILE, text);
  process.stdout.write('docs/export.schema.json: written\n');
}
