import { MemoryStore } from './memory/store.ts';
import { seed, type Seeder } from './seed.ts';
import { waitForDatabase, type SqlDriver, type StatementObserver } from './sql/driver.ts';
import { migrate } from './sql/migrate.ts';
import { describe, PgDriver } from './sql/pg.ts';
import { PgliteDriver } from './sql/pglite.ts';
import { SqlStore } from './sql/store.ts';
import type { Store } from './store.ts';

export interface StoreOptions {
  /** Keep the data in an embedded PostgreSQL in this folder (created if missing). */
  dataDir?: string;
  /** Keep the data in this PostgreSQL server (`postgres://…`). */
  databaseUrl?: string;
  /** Empty a durable store and load the sample records (or `seed`'s) again. */
  resetData?: boolean;
  /**
   * What fills the store instead of the sample records: at every start in memory, into a durable store that is
   * empty and was never filled, and on `resetData` (the entry's loader of a `SEED_FILE`, checked before).
   */
  seed?: Seeder;
  /**
   * A durable store is opened as it is, never filled (`npm run export` and `npm run import`: an empty store stays
   * empty). Default false.
   */
  asItIs?: boolean;
  /** The memory store's bound on the activity log (`ACTIVITY_LOG_MAX`). */
  activityLogMax?: number;
  /** Connections to the PostgreSQL server. */
  poolSize?: number;
  /** How long the PostgreSQL server may stay unreachable at start, and how long one connection may take to open. */
  connectTimeoutMs?: number;
  /** How long one statement may run on the PostgreSQL server. */
  statementTimeoutMs?: number;
  /** Every statement of a SQL store (a server's or the embedded one's) runs through it (the traces' spans). */
  observeStatement?: StatementObserver;
  /** Refuse a transaction opened inside another (`TransactionScope`, `checksNesting`); default true. */
  checkNesting?: boolean;
}

/** The store could not be opened; the message is one line, fit to be shown as it is (no password in it). */
export class StoreOpenError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StoreOpenError';
  }
}

/**
 * A ready store. Neither setting: the memory store with the sample records, or `seed`'s (every start begins from
 * them). A durable store: its schema migrated, the same records loaded if it has never been seeded (or `resetData`).
 */
export async function openStore(options: StoreOptions = {}): Promise<Store> {
  const { dataDir, databaseUrl } = options;
  if (dataDir !== undefined && databaseUrl !== undefined) {
    throw new Error('set either a data directory or a database URL, not both');
  }
  if (dataDir === undefined && databaseUrl === undefined) {
    const store = new MemoryStore({ activityLogMax: options.activityLogMax, checkNesting: options.checkNesting });
    await seed(store, options.seed);
    return store;
  }
  let driver: SqlDriver | undefined;
  const where = databaseUrl !== undefined ? `PostgreSQL at ${describe(databaseUrl)}` : `the data directory ${dataDir}`;
  try {
    if (databaseUrl !== undefined) {
      driver = new PgDriver({
        connectionString: databaseUrl,
        poolSize: options.poolSize,
        connectTimeoutMs: options.connectTimeoutMs,
        statementTimeoutMs: options.statementTimeoutMs,
        ...(options.observeStatement && { observeStatement: options.observeStatement }),
      });
      await waitForDatabase(driver, options.connectTimeoutMs ?? 10_000);
    } else {
      driver = await PgliteDriver.open(dataDir, {
        ...(options.observeStatement && { observeStatement: options.observeStatement }),
      });
    }
    await migrate(driver);
    const store = new SqlStore(driver, { checkNesting: options.checkNesting });
    if (!options.asItIs) await store.seed({ reset: options.resetData === true, seeder: options.seed });
    return store;
  } catch (error) {
    await driver?.close().catch(() => undefined);
    throw new StoreOpenError(`${where}: ${oneLine(error, databaseUrl)}`, { cause: error });
  }
}

/** An error's message on one line, without the password of `databaseUrl` should a driver ever quote it. */
function oneLine(error: unknown, databaseUrl: string | undefined): string {
  let message = (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');
  const password = databaseUrl === undefined ? '' : passwordOf(databaseUrl);
  if (password !== '') message = message.split(password).join('***');
  return message;
}

function passwordOf(databaseUrl: string): string {
  try {
    return decodeURIComponent(new URL(databaseUrl).password);
  } catch {
    return '';
  }
}
