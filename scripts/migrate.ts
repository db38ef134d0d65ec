/**
 * `npm run migrate`: applies the schema's pending migrations to the store named by the environment,
 * `DATABASE_URL` (a PostgreSQL server) or `DATA_DIR` (the embedded one, in that folder).
 */
import type { SqlDriver } from '../src/store/sql/driver.ts';
import { migrate } from '../src/store/sql/migrate.ts';
import { PgDriver } from '../src/store/sql/pg.ts';
import { PgliteDriver } from '../src/store/sql/pglite.ts';

// Empty is unset, as for the service (src/config.ts).
const url = process.env.DATABASE_URL || undefined;
const dir = process.env.DATA_DIR || undefined;
if ((url === undefined) === (dir === undefined)) {
  console.error('npm run migrate: set DATABASE_URL (a PostgreSQL server) or DATA_DIR (embedded), one of them');
  process.exit(2);
}
let driver: SqlDriver | undefined;
try {
  driver = url !== undefined ? new PgDriver({ connectionString: url }) : await PgliteDriver.open(dir);
  const applied = await migrate(driver);
  console.log(applied.length === 0 ? 'schema up to date' : `applied migrations ${applied.join(', ')}`);
} catch (error) {
  // A data directory another process holds is refused here too (`holdFolder`), with the message saying which.
  console.error(`npm run migrate: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await driver?.close();
}
