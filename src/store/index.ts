import { MemoryStore } from './memory/store.ts';
import { seed } from './seed.ts';
import type { SqlDriver } from './sql/driver.ts';
import { migrate } from './sql/migrate.ts';
import { PgDriver } from './sql/pg.ts';
import { PgliteDriver } from './sql/pglite.ts';
import { SqlStore } from './sql/store.ts';
import type { Store } from './store.ts';

export interface StoreOptions {
  /** Keep the data in an embedded PostgreSQL in this folder (created if missing). */
  dataDir?: string;
  /** Keep the data in this PostgreSQL server (`postgres://…`). */
  databaseUrl?: string;
  /** Empty a durable store and load the sample records again. */
  resetData?: boolean;
  /** The memory store's bound on the activity log (`ACTIVITY_LOG_MAX`). */
  activityLogMax?: number;
  /** Connections to the PostgreSQL server. */
  poolSize?: number;
}

/**
 * A ready store. Neither setting: the memory store with the sample records (every start begins from them). A
 * durable store: its schema migrated, the sample records loaded if it has never been seeded (or `resetData`).
 */
export async function openStore(options: StoreOptions = {}): Promise<Store> {
  const { dataDir, databaseUrl } = options;
  if (dataDir !== undefined && databaseUrl !== undefined) {
    throw new Error('set either a data directory or a database URL, not both');
  }
  if (dataDir === undefined && databaseUrl === undefined) {
    const store = new MemoryStore({ activityLogMax: options.activityLogMax });
    await seed(store);
    return store;
  }
  const driver: SqlDriver =
    databaseUrl !== undefined
      ? new PgDriver({ connectionString: databaseUrl, poolSize: options.poolSize })
      : await PgliteDriver.open(dataDir);
  try {
    await migrate(driver);
    const store = new SqlStore(driver);
    await store.seed({ reset: options.resetData === true });
    return store;
  } catch (error) {
    await driver.close().catch(() => undefined);
    throw error;
  }
}
