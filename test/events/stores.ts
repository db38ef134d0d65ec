import { after, before, describe } from 'node:test';
import { MemoryStore } from '../../src/store/memory/store.ts';
import type { SqlDriver } from '../../src/store/sql/driver.ts';
import { migrate } from '../../src/store/sql/migrate.ts';
import { PgDriver } from '../../src/store/sql/pg.ts';
import { PgliteDriver } from '../../src/store/sql/pglite.ts';
import { SqlStore } from '../../src/store/sql/store.ts';
import type { Collections, Store } from '../../src/store/store.ts';
import { RerunningStore } from '../helpers/store.ts';
import { emptyTables, testServer } from '../store/sql-harness.ts';

/** A store on the file's one embedded database: the app that closes it leaves the database to the file. */
class KeptOpen extends SqlStore {
  override async close(): Promise<void> {}
}

const postgres = await testServer();

/**
 * Declares the tests of `body` once per store: memory, the embedded PostgreSQL, and the PostgreSQL server of
 * `TEST_DATABASE_URL` when one answers there (else skipped, saying why); memory alone when `TEST_MEMORY_ONLY`
 * is `true`; with `TEST_STORE=rerun`, that store alone. Each database is the file's own, emptied before each test.
 * `fresh` gives the test its empty store, to hand to `testApp` (which seeds it).
 */
export function onEveryStore(suite: string, body: (fresh: () => Promise<Store>) => void): void {
  // The run with every transaction run twice (scripts/test.ts): that store alone.
  if (process.env.TEST_STORE === 'rerun') {
    describe(`${suite}: rerun`, () => body(async () => new RerunningStore()));
    return;
  }
  describe(`${suite}: memory`, () => body(async () => new MemoryStore()));
  // `npm run test:fast` (scripts/test.ts --fast): memory only; `npm test` runs every store.
  if (process.env.TEST_MEMORY_ONLY === 'true') return;
  onDatabase(`${suite}: embedded`, body, () => PgliteDriver.open());
  const server = 'server' in postgres ? postgres.server : undefined;
  onDatabase(
    `${suite}: PostgreSQL`,
    body,
    async () => new PgDriver({ connectionString: await server!.database() }),
    async () => server?.dropAll(),
    'skip' in postgres ? postgres.skip : undefined,
  );
}

function onDatabase(
  suite: string,
  body: (fresh: () => Promise<Store>) => void,
  open: () => Promise<SqlDriver>,
  cleanUp: () => Promise<void> = async () => {},
  skip?: string,
): void {
  describe(suite, { skip: skip ?? false }, () => {
    let driver: SqlDriver | undefined;
    before(async () => {
      driver = await open();
      await migrate(driver);
    });
    after(async () => {
      await driver?.close();
      await cleanUp();
    });
    body(async () => {
      await emptyTables(driver!);
      return new KeptOpen(driver!);
    });
  });
}

/**
 * From now on, while `failing.on`, every transaction of `store` fails to write into its `kind` collection (an
 * insert or an append throws), as a broken table would.
 */
export function breakWrites(store: Store, kind: 'notifications' | 'activity'): { on: boolean } {
  const failing = { on: true };
  const transaction = store.transaction.bind(store);
  store.transaction = <R>(work: (tx: Collections) => Promise<R>) =>
    transaction((tx) => work(failing.on ? { ...tx, [kind]: broken(tx[kind]) } : tx));
  return failing;
}

function broken<C extends object>(collection: C): C {
  const down = async () => {
    throw new Error('the table is broken');
  };
  return Object.assign(Object.create(collection) as C, { insert: down, append: down });
}
