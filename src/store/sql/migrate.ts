import { readdirSync, readFileSync } from 'node:fs';
import type { SqlDriver } from './driver.ts';
import { LOCK } from './tables.ts';

/**
 * The schema, as numbered plain SQL files (migrations/NNN_what.sql) applied in order by this small runner, each
 * once, recorded in `schema_migrations`. Plain files rather than a migration library: the schema is one
 * PostgreSQL dialect for both drivers, the files are what a reviewer or a DBA reads, and the runner (one
 * transaction under an advisory lock) is shorter than any library's configuration for the embedded driver.
 * A migration is never edited once released; a change is a new file.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const DIRECTORY = new URL('./migrations/', import.meta.url);

/** The migrations in the folder, in order. */
export function migrations(directory: URL = DIRECTORY): Migration[] {
  return readdirSync(directory)
    .map((file) => /^(\d+)_(.+)\.sql$/.exec(file))
    .filter((m) => m !== null)
    .map((m) => ({ version: Number(m[1]), name: m[2]!, sql: readFileSync(new URL(m[0], directory), 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

/**
 * Applies the migrations the database lacks, all in one transaction under an advisory lock: an instance starting
 * while another migrates waits for it, then finds nothing left to do. Answers the versions it applied.
 */
export async function migrate(driver: SqlDriver, pending: readonly Migration[] = migrations()): Promise<number[]> {
  return driver.transaction(async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK.namespace, LOCK.migrations]);
    await client.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations ' +
        '(version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const applied = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version),
    );
    const done: number[] = [];
    for (const m of pending) {
      if (applied.has(m.version)) continue;
      await client.exec(m.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      done.push(m.version);
    }
    return done;
  });
}
