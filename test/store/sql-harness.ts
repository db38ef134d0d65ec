import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { SqlDriver } from '../../src/store/sql/driver.ts';
import { migrate } from '../../src/store/sql/migrate.ts';
import { SqlStore } from '../../src/store/sql/store.ts';
import { RECORD_TABLES } from '../../src/store/sql/tables.ts';
import type { StoreHarness } from './contract.ts';

/** Empties every table of a migrated database: quicker than a new database per test. */
export async function emptyTables(driver: SqlDriver): Promise<void> {
  await driver.exec(
    `TRUNCATE ${RECORD_TABLES.join(', ')}, webhook_deliveries, store_state, stream_events RESTART IDENTITY`,
  );
}

/** A harness over one database: migrated once, emptied before each test, closed at the end. */
export function sqlHarness(
  open: () => Promise<SqlDriver>,
  cleanUp: () => Promise<void> = async () => {},
): StoreHarness {
  let store: SqlStore | undefined;
  return {
    async setup() {
      const driver = await open();
      store = new SqlStore(driver);
      await migrate(driver);
    },
    async empty() {
      await emptyTables(store!.driver);
      return store!;
    },
    async teardown() {
      await store?.close();
      await cleanUp();
    },
  };
}

/**
 * The PostgreSQL server of `TEST_DATABASE_URL`, when set and answering: `skip` says why not otherwise. Each test
 * file makes its own databases (`pm_test_<random>`) and drops them at its end.
 */
export async function testServer(): Promise<{ skip: string } | { server: TestServer }> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return { skip: 'TEST_DATABASE_URL is not set: no PostgreSQL server to test against' };
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    return { skip: `no PostgreSQL server answers at TEST_DATABASE_URL (${(error as Error).message})` };
  } finally {
    await client.end().catch(() => undefined);
  }
  return { server: new TestServer(url) };
}

export class TestServer {
  private readonly made: string[] = [];

  constructor(private readonly adminUrl: string) {}

  /** A new, empty database; its URL. */
  async database(): Promise<string> {
    const name = `pm_test_${randomBytes(6).toString('hex')}`;
    await this.admin((c) => c.query(`CREATE DATABASE ${name}`));
    this.made.push(name);
    const url = new URL(this.adminUrl);
    url.pathname = `/${name}`;
    return url.toString();
  }

  /** Drops every database made here (connections still open to them are ended). */
  async dropAll(): Promise<void> {
    const names = this.made.splice(0);
    await this.admin(async (c) => {
      for (const name of names) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });
  }

  private async admin(work: (c: pg.Client) => Promise<unknown>): Promise<void> {
    const client = new pg.Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      await work(client);
    } finally {
      await client.end();
    }
  }
}
