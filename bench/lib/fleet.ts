/** The three servers of a comparison, as users run them, each on a free loopback port. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as seed from '../../src/store/seed-data.ts';
import { dropDatabase, freshDatabase } from './pg.ts';
import { BENCH_ADMIN_TOKEN, type ServerName, type Store } from './routes.ts';
import { HOST, type ServerSpec } from './servers.ts';

const require = createRequire(import.meta.url);

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, HOST, () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** Where the built service is: `dist/`, or a saved build (`--dist`) to measure an earlier version against. */
export const serviceDist = { dir: 'dist' };

/**
 * The service built to `dist/` and run with `node dist/server.js` as `npm start` runs it
 * with its defaults (seeded webhooks active, LOG_LEVEL info), stdout to `logFile` or /dev/null. `env` adds settings
 * (the webhook section's).
 */
export async function serviceSpec(
  env: Record<string, string> = {},
  logFile?: string,
  nodeArgs: string[] = [],
  name = 'service',
): Promise<ServerSpec> {
  const port = await freePort();
  return {
    name,
    argv: [process.execPath, ...nodeArgs, `${serviceDist.dir}/server.js`],
    env: { PORT: String(port), HOST, ...env },
    port,
    readyPath: '/api/health',
    ...(logFile ? { logFile } : {}),
  };
}

/** `service-token`: API tokens and a rate limit too high to refuse any request of the bench (what they cost). */
const TOKEN_AND_LIMIT = { AUTH: 'token', ADMIN_TOKEN: BENCH_ADMIN_TOKEN, RATE_LIMIT: '1000000/1m' };

/** The bare node:http server; `busyMicros` adds that much busy work per request (bench:floor). */
export async function bareSpec(busyMicros = 0): Promise<ServerSpec> {
  const port = await freePort();
  return {
    name: 'bare',
    argv: [process.execPath, '--import', 'tsx', 'bench/servers/bare.ts', String(port)],
    ...(busyMicros > 0 ? { env: { BUSY_US: String(busyMicros) } } : {}),
    port,
    readyPath: '/api/tasks',
  };
}

/** json-server 0.17's own command line over a db.json of the same seeded tasks and activity, mounted under /api. */
export async function jsonServerSpec(): Promise<ServerSpec> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'pm-bench-'));
  writeFileSync(join(dir, 'db.json'), JSON.stringify({ tasks: seed.tasks, 'activity-log': seed.activity }, null, 2));
  writeFileSync(join(dir, 'routes.json'), JSON.stringify({ '/api/*': '/$1' }));
  const bin = join(require.resolve('json-server/package.json'), '..', 'lib/cli/bin.js');
  return {
    name: 'json-server',
    argv: [
      process.execPath,
      bin,
      join(dir, 'db.json'),
      '--routes',
      join(dir, 'routes.json'),
      '--port',
      String(port),
      '--host',
      HOST,
    ],
    port,
    readyPath: '/api/tasks',
  };
}

/** The bare node:http + pg server over a database the service migrated and seeded (`bench/servers/bare-pg.ts`). */
async function barePgSpec(databaseUrl: string): Promise<ServerSpec> {
  const port = await freePort();
  return {
    name: 'bare-pg',
    argv: [process.execPath, '--import', 'tsx', 'bench/servers/bare-pg.ts', String(port)],
    env: { DATABASE_URL: databaseUrl },
    port,
    readyPath: '/api/tasks',
  };
}

/**
 * The servers of one round, those `names` says, and what to clean up after it. On PostgreSQL the service and the bare
 * server each get a fresh copy of the seeded database, dropped by `cleanup`.
 */
export async function specs(
  store: Store = 'memory',
  names: readonly ServerName[],
): Promise<{ specs: Partial<Record<ServerName, ServerSpec>>; cleanup: () => Promise<void> }> {
  if (store === 'memory') {
    const all: Partial<Record<ServerName, ServerSpec>> = {};
    for (const name of names) {
      if (name === 'service') all.service = await serviceSpec();
      else if (name === 'service-token') all['service-token'] = await serviceSpec(TOKEN_AND_LIMIT, undefined, [], name);
      else if (name === 'bare') all.bare = await bareSpec();
      else if (name === 'json-server') all['json-server'] = await jsonServerSpec();
      else throw new Error(`${name} runs on PostgreSQL only`);
    }
    return { specs: all, cleanup: async () => {} };
  }
  const dbs: string[] = [];
  const out: Partial<Record<ServerName, ServerSpec>> = {};
  for (const name of names) {
    const db = await freshDatabase();
    dbs.push(db.name);
    if (name === 'service') out.service = await serviceSpec({ DATABASE_URL: db.url });
    else if (name === 'bare-pg') out['bare-pg'] = await barePgSpec(db.url);
    else throw new Error(`${name} does not run on PostgreSQL (servers: service, bare-pg)`);
  }
  return { specs: out, cleanup: async () => void (await Promise.all(dbs.map(dropDatabase))) };
}
