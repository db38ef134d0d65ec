/**
 * `npm run import -- backup.json [--database-url … | --data-dir …] [--replace]`: checks a data file whole, then loads
 * it into an empty durable store in one transaction (all or nothing); `--replace` empties a store that holds records
 * first, in the same transaction. Refused while other connections use the database (the service's instances: stop
 * them first). Exit codes: 0 loaded; 1 the store failed (nothing changed); 2 a usage mistake or a bad file (one line
 * per problem; nothing changed); 3 the store refused: it holds records (without `--replace`) or is in use.
 * docs/backups.md.
 */
import { checkDataFile } from '../src/data-file/check.ts';
import { COLLECTIONS } from '../src/data-file/format.ts';
import { loadDataFile } from '../src/data-file/load.ts';
import { SqlStore } from '../src/store/sql/store.ts';
import { StoreNotEmptyError, type Store } from '../src/store/store.ts';
import { commandLine, fail, messageOf, nameOf, openAsItIs, whereFrom } from './data-store.ts';

const COMMAND = 'npm run import';
const USAGE = `usage: ${COMMAND} -- backup.json [--database-url postgres://… | --data-dir <folder>] [--replace]`;
/** How the import's own connections name themselves, so that they are not taken for the service's. */
const APPLICATION_NAME = 'pm-service import';

/** The store may not be imported into now (exit 3). */
class Refused extends Error {}

const parsed = commandLine(COMMAND, USAGE, { replace: { type: 'boolean', default: false } }, true);
if (parsed.positionals.length !== 1) fail(COMMAND, `name one data file\n${USAGE}`, 2);
const path = parsed.positionals[0]!;
const where = whereFrom(parsed.values, COMMAND);
if (where === undefined) {
  fail(
    COMMAND,
    'nothing to import into: give --database-url or --data-dir (or set DATABASE_URL or DATA_DIR). A service in ' +
      'memory starts from a file with SEED_FILE instead',
    2,
  );
}

// The whole file is checked before the store is touched: its problems, one a line, as a bad SEED_FILE's.
const problems = await checkDataFile(path);
if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(2);
}

let store: Store | undefined;
try {
  store = await openAsItIs(where, APPLICATION_NAME);
  const others = await otherConnections(store);
  if (others > 0) {
    throw new Refused(
      `${nameOf(where)} is in use: ${others} other connection${others === 1 ? '' : 's'} to the database (the ` +
        "service's instances?). Stop them, import, then start them again",
    );
  }
  const counts = await store.load((tx) => loadDataFile(tx, path), { replace: parsed.values.replace });
  const loaded = COLLECTIONS.filter((name) => counts[name] > 0).map((name) => `${counts[name]} ${name}`);
  process.stderr.write(`imported ${loaded.length > 0 ? loaded.join(', ') : 'no records'} into ${nameOf(where)}\n`);
} catch (error) {
  await store?.close().catch(() => {});
  if (error instanceof StoreNotEmptyError) {
    fail(COMMAND, `${nameOf(where)} holds records already: nothing imported (--replace empties it first)`, 3);
  }
  if (error instanceof Refused) fail(COMMAND, error.message, 3);
  fail(COMMAND, `${messageOf(error, where)} (nothing imported)`, 1);
}
await store.close();

/**
 * Connections to the same database other than the import's own: a server's instances would go on with caches and
 * streams of the records replaced under them, so the import waits for none of them to be there. The embedded store
 * needs no such look: its folder is held by one process at a time, so opening it has already refused a running
 * service.
 */
async function otherConnections(store: Store): Promise<number> {
  if (!(store instanceof SqlStore) || store.kind !== 'postgres') return 0;
  const [row] = await store.driver.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() ` +
      `AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND application_name <> $1`,
    [APPLICATION_NAME],
  );
  return row!.n;
}
