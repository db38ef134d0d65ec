/**
 * What `npm run export` and `npm run import` share: the store they work on, named by `--database-url` or
 * `--data-dir` (else `DATABASE_URL` or `DATA_DIR`, as the service reads them), opened as it is (never filled with
 * the sample records), and their way of ending with a message.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { openStore, StoreOpenError } from '../src/store/index.ts';
import { describe } from '../src/store/sql/pg.ts';
import type { Store } from '../src/store/store.ts';

export interface Where {
  readonly databaseUrl?: string;
  readonly dataDir?: string;
}

/** The options both commands take: where the store is, and `--help`. */
const WHERE_OPTIONS = {
  'database-url': { type: 'string' },
  'data-dir': { type: 'string' },
  help: { type: 'boolean', default: false },
} as const satisfies ParseArgsConfig['options'];

/**
 * The command line, parsed with the command's own `options` beside `--database-url`, `--data-dir` and `--help`:
 * a mistake ends with it and the usage (exit 2), `--help` with the usage alone (exit 0).
 */
export function commandLine<O extends NonNullable<ParseArgsConfig['options']>>(
  command: string,
  usage: string,
  options: O,
  allowPositionals = false,
) {
  const config = { options: { ...WHERE_OPTIONS, ...options }, allowPositionals, strict: true } as const;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    fail(command, `${(error as Error).message}\n${usage}`, 2);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return parsed;
}

/** The durable store the options (else the environment) name; undefined: none (the service would run in memory). */
export function whereFrom(
  options: { 'database-url'?: string; 'data-dir'?: string },
  command: string,
): Where | undefined {
  // Empty is unset, as for the service (src/config.ts).
  const databaseUrl = options['database-url'] || undefined;
  const dataDir = options['data-dir'] || undefined;
  if (databaseUrl !== undefined && dataDir !== undefined)
    fail(command, 'give --database-url or --data-dir, not both', 2);
  if (databaseUrl !== undefined || dataDir !== undefined) return { databaseUrl, dataDir };
  const env = { databaseUrl: process.env.DATABASE_URL || undefined, dataDir: process.env.DATA_DIR || undefined };
  if (env.databaseUrl !== undefined && env.dataDir !== undefined) {
    fail(command, 'DATABASE_URL and DATA_DIR are both set: give --database-url or --data-dir', 2);
  }
  return env.databaseUrl !== undefined || env.dataDir !== undefined ? env : undefined;
}

/** The store, for messages: `PostgreSQL at host:5432/db` or `the data directory ./data` (never a password). */
export function nameOf(where: Where): string {
  return where.databaseUrl !== undefined
    ? `PostgreSQL at ${describe(where.databaseUrl)}`
    : `the data directory ${where.dataDir}`;
}

/**
 * The store, its schema migrated, nothing loaded. `applicationName`: how its connections to a server call
 * themselves (`pg_stat_activity`), so that the import can tell them from others.
 */
export async function openAsItIs(where: Where, applicationName?: string): Promise<Store> {
  let databaseUrl = where.databaseUrl;
  if (databaseUrl !== undefined && applicationName !== undefined) {
    const url = new URL(databaseUrl);
    url.searchParams.set('application_name', applicationName);
    databaseUrl = url.toString();
  }
  // One transaction at a time, opened by this script alone: no need to pay for the nesting check on every promise.
  return openStore({ databaseUrl, dataDir: where.dataDir, asItIs: true, poolSize: 2, checkNesting: false });
}

/** An error as one line naming the store (a store that could not be opened names itself). */
export function messageOf(error: unknown, where: Where): string {
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof StoreOpenError ? message : `${nameOf(where)}: ${message.replace(/\s*\n\s*/g, ' ')}`;
}

/** Ends the process with one line on stderr, prefixed with the command. */
export function fail(command: string, message: string, code: number): never {
  process.stderr.write(`${command}: ${message}\n`);
  process.exit(code);
}
