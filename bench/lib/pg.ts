/**
 * The databases of a `--store postgres` run: one template, migrated and seeded by the service itself, then a copy
 * of it for each server of each round (a write route never swells another server's or route's reads), all dropped
 * at the end. The server is `BENCH_PG_URL` (default: postgres://postgres@127.0.0.1:5432), its `postgres` database
 * used for CREATE and DROP.
 */
import pg from 'pg';
import { HOST, start, stop } from './servers.ts';
import { serviceSpec } from './fleet.ts';

const server = new URL(process.env.BENCH_PG_URL ?? `postgres://postgres@${HOST}:5432`);
export const dbUrl = (name: string) => {
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.href;
};

const prefix = `pm_bench_${process.pid}`;
const made = new Set<string>();
let counter = 0;

/** Runs `run` on a connection to the server's `postgres` database (CREATE, DROP, pg_stat_activity). */
export async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: dbUrl('postgres') });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

const template = `${prefix}_template`;
let templateReady: Promise<void> | undefined;

/** The template: an empty database the built service migrates and seeds at its start. */
function ensureTemplate(): Promise<void> {
  templateReady ??= (async () => {
    await admin((c) => c.query(`CREATE DATABASE ${template}`));
    made.add(template);
    const server = await start(await serviceSpec({ DATABASE_URL: dbUrl(template) }));
    await stop(server);
  })();
  return templateReady;
}

/** A fresh copy of the seeded template; its URL. */
export async function freshDatabase(): Promise<{ name: string; url: string }> {
  await ensureTemplate();
  const name = `${prefix}_${++counter}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  made.add(name);
  return { name, url: dbUrl(name) };
}

/** An empty database (bench:scale fills it itself); its URL. */
export async function emptyDatabase(): Promise<{ name: string; url: string }> {
  const name = `${prefix}_${++counter}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  made.add(name);
  return { name, url: dbUrl(name) };
}

export async function dropDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  made.delete(name);
}

/** Drops every database this run made (at the end, or after an error). */
export async function dropAll(): Promise<void> {
  for (const name of [...made].reverse()) await dropDatabase(name);
}
