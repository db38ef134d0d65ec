/**
 * `npm run export -- [--database-url … | --data-dir …] [--include-secrets] > backup.json`: writes the whole durable
 * store as a data file on stdout (src/data-file/export.ts), read from one snapshot while the service keeps serving,
 * streamed. Exit codes: 0 written; 1 the store or the output failed (the file is then incomplete); 2 a usage
 * mistake, or no durable store to read. docs/backups.md.
 */
import { existsSync } from 'node:fs';
import { writeDataFile } from '../src/data-file/export.ts';
import type { Store } from '../src/store/store.ts';
import { commandLine, fail, messageOf, openAsItIs, whereFrom } from './data-store.ts';

const COMMAND = 'npm run export';
const USAGE = `usage: ${COMMAND} -- [--database-url postgres://… | --data-dir <folder>] [--include-secrets] > backup.json`;

const parsed = commandLine(COMMAND, USAGE, { 'include-secrets': { type: 'boolean', default: false } });
const where = whereFrom(parsed.values, COMMAND);
if (where === undefined) {
  fail(
    COMMAND,
    'nothing to export: without --database-url or --data-dir (or DATABASE_URL or DATA_DIR) the service keeps its ' +
      'records in memory, which only the running service holds. Ask it: GET /api/export (curl -o backup.json ' +
      'http://localhost:3000/api/export)',
    2,
  );
}

// Opening a folder that is not there would make an empty store of it: a mistyped path is told instead.
if (where.dataDir !== undefined && !existsSync(where.dataDir))
  fail(COMMAND, `no data directory at ${where.dataDir}`, 2);

let store: Store | undefined;
try {
  store = await openAsItIs(where);
  // The output going away (a closed pipe) is reported by the write that meets it, not as an uncaught event.
  process.stdout.on('error', () => {});
  await writeDataFile(store, process.stdout, {
    secrets: parsed.values['include-secrets'],
    exportedAt: new Date().toISOString(),
  });
} catch (error) {
  await store?.close().catch(() => {});
  fail(COMMAND, messageOf(error, where), 1);
}
await store.close();
