import { readFileSync } from 'node:fs';
import { after } from 'node:test';
import { MemoryStore } from '../../src/store/memory/store.ts';
import type { SqlClient, SqlDriver } from '../../src/store/sql/driver.ts';
import { migrate } from '../../src/store/sql/migrate.ts';
import { PgDriver } from '../../src/store/sql/pg.ts';
import { PgliteDriver } from '../../src/store/sql/pglite.ts';
import { SqlStore } from '../../src/store/sql/store.ts';
import type { Collections, Store } from '../../src/store/store.ts';
import { emptyTables, testServer, type TestServer } from '../store/sql-harness.ts';

/**
 * The store the API tests run on, chosen by `TEST_STORE` (scripts/test.ts runs them once per store):
 * `memory` (the default), `embedded` (PGlite), `postgres` (the server of `TEST_DATABASE_URL`), or `rerun`: memory,
 * each transaction's work run twice, the first run rolled back ({@link RerunningStore}), so that whatever a service
 * does outside its store shows up if it is not the committed run's (a SQL store runs work again after a conflict,
 * which only concurrency on a server makes happen).
 */
export type StoreKind = 'memory' | 'embedded' | 'postgres' | 'rerun';

export const STORE_KINDS: readonly StoreKind[] = ['memory', 'embedded', 'postgres', 'rerun'];

export function storeKind(): StoreKind {
  const kind = process.env.TEST_STORE ?? 'memory';
  if (!(STORE_KINDS as readonly string[]).includes(kind)) {
    throw new Error(`TEST_STORE must be one of ${STORE_KINDS.join(', ')}, not ${kind}`);
  }
  return kind as StoreKind;
}

/**
 * A new, empty store of the chosen kind. The SQL ones work in a schema of their own on a database shared by the
 * test process: for the embedded store one PGlite instance (started from the database `TEST_PGLITE_FROM` names
 * when set, a `dumpDataDir` tarball: quicker than creating one), for the server one database (`pm_test_<random>`,
 * dropped when the process's tests end). Closing the store (the app closes its store) empties its schema and
 * hands it to the next store: a schema is migrated once, and the tables are emptied rather than made again.
 */
export async function testStore(kind: StoreKind = storeKind()): Promise<Store> {
  if (kind === 'memory') return new MemoryStore();
  if (kind === 'rerun') return new RerunningStore();
  const schema = free[kind].pop() ?? (await newSchema(kind));
  let closed = false;
  const { driver } = schema;
  return new SqlStore({
    kind: driver.kind,
    query: (text, params) => driver.query(text, params),
    exec: (script) => driver.exec(script),
    transaction: (work, options) => driver.transaction(work, options),
    async close() {
      if (closed) return;
      closed = true;
      await emptyTables(driver);
      free[kind].push(schema);
    },
  });
}

const RERUN = Symbol('run again');

/**
 * A memory store that runs each transaction's work twice, as a SQL store does after a conflict: the first run's
 * writes are rolled back, the second commits. What a service counts or records outside the store must come from
 * the run that committed.
 */
export class RerunningStore extends MemoryStore {
  /**
   * Called before the first run; what it answers is called once that run is rolled back (testApp's predictable ids
   * are handed out again, as the same records would get them).
   */
  beforeRerun: () => () => void = () => () => {};

  override async transaction<R>(work: (tx: Collections) => Promise<R>): Promise<R> {
    const restore = this.beforeRerun();
    const first = super.transaction(async (tx) => {
      await work(tx);
      throw RERUN;
    });
    await first.catch((error: unknown) => {
      if (error !== RERUN) throw error;
    });
    restore();
    return super.transaction(work);
  }
}

interface Schema {
  readonly name: string;
  readonly driver: SqlDriver;
}

const free: Record<'embedded' | 'postgres', Schema[]> = { embedded: [], postgres: [] };
const made: Schema[] = [];
let embedded: Promise<PgliteDriver> | undefined;
let server: Promise<{ testServer: TestServer; url: string }> | undefined;

// Registered at load, so that it belongs to the file's run rather than to the test that first makes a store.
if (process.env.TEST_STORE === 'embedded' || process.env.TEST_STORE === 'postgres') {
  after(async () => {
    for (const schema of made.splice(0)) await schema.driver.close();
    if (embedded) await (await embedded).close();
    if (server) await (await server).testServer.dropAll();
  });
}

async function newSchema(kind: 'embedded' | 'postgres'): Promise<Schema> {
  const name = `store_${made.length + 1}`;
  const driver = kind === 'embedded' ? await embeddedIn(name) : await serverIn(name);
  const schema = { name, driver };
  made.push(schema);
  await migrate(driver);
  return schema;
}

/**
 * A driver on the shared PGlite instance that works in `schema`: PGlite has one connection, so every statement
 * runs in a transaction that first sets the search path.
 */
async function embeddedIn(schema: string): Promise<SqlDriver> {
  embedded ??= (async () => {
    const from = process.env.TEST_PGLITE_FROM;
    return PgliteDriver.open(undefined, from ? { from: new Blob([readFileSync(from)]) } : {});
  })();
  const db = await embedded;
  await db.exec(`CREATE SCHEMA ${schema}`);
  const inSchema = <R>(work: (client: SqlClient) => Promise<R>) =>
    db.transaction(async (client) => {
      await client.exec(`SET LOCAL search_path TO ${schema}`);
      return work(client);
    });
  return {
    kind: 'embedded',
    query: (text, params) => inSchema((client) => client.query(text, params)),
    exec: (script) => inSchema((client) => client.exec(script)),
    transaction: inSchema,
    close: async () => {},
  };
}

/** A pool on the process's test database whose connections work in `schema`. */
async function serverIn(schema: string): Promise<SqlDriver> {
  server ??= (async () => {
    const found = await testServer();
    if ('skip' in found) throw new Error(`TEST_STORE=postgres: ${found.skip}`);
    return { testServer: found.server, url: await found.server.database() };
  })();
  const url = new URL((await server).url);
  const admin = new PgDriver({ connectionString: url.toString(), poolSize: 1 });
  await admin.exec(`CREATE SCHEMA ${schema}`).finally(() => admin.close());
  url.searchParams.set('options', `-c search_path=${schema}`);
  return new PgDriver({ connectionString: url.toString(), poolSize: 4 });
}
