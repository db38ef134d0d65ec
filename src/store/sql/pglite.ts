import { chmodSync, mkdirSync, readdirSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import {
  rethrowTranslated,
  StartedStatements,
  type SqlClient,
  type SqlDriver,
  type StatementObserver,
  type TransactionOptions,
} from './driver.ts';
import { holdFolder } from './folder-lock.ts';

/** What a data folder may hold besides the database's own files: this service's lock, hidden files, `lost+found`. */
const DATABASE_ENTRY =
  /^(PG_VERSION|base|global|pg_[a-z_]+(\.conf)?|postgresql(\.auto)?\.conf|postmaster\.(pid|opts)|lost\+found|pm-service\.pid|\..*)$/;

/**
 * Makes the data folder (missing parents too), readable by this user alone (as PostgreSQL requires of its own: the
 * files, its log of changes included, hold the webhooks' secrets, and PGlite writes them readable by everyone); or
 * refuses a folder that holds files of something else (`DATA_DIR=.` by mistake), as `initdb` refuses one.
 */
function prepareFolder(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const foreign = readdirSync(dataDir).filter((name) => !DATABASE_ENTRY.test(name));
  if (foreign.length > 0) {
    const named = foreign.slice(0, 3).join(', ') + (foreign.length > 3 ? ', …' : '');
    throw new Error(
      `holds files that are not a database (${named}); point it at a new or empty folder, or at one this service made`,
    );
  }
  chmodSync(dataDir, 0o700);
}

export interface PgliteOptions {
  /**
   * A database made by `dumpDataDir` to start from (skips creating an empty one, the slow part of a start); only
   * without a folder.
   */
  from?: Blob;
  /**
   * Every statement runs through it (the traces' spans), those of a transaction included; PGlite runs a
   * transaction's BEGIN and COMMIT itself, outside it. Absent: none.
   */
  observeStatement?: StatementObserver;
}

/** Where PGlite shows PostgreSQL the folder: its messages name this path. */
const PGLITE_DATA = '/pglite/data';

/** PostgreSQL's last error among what it said (`PANIC`, `FATAL` or `ERROR`, with its `DETAIL`), on one line. */
function reasonIn(said: readonly string[]): string | undefined {
  const lines = said.flatMap((text) => text.split('\n')).map((line) => line.replace(/^.*?\[\d+\] /, '').trim());
  const at = lines.findLastIndex((line) => /^(PANIC|FATAL|ERROR):/.test(line));
  if (at === -1) return undefined;
  const detail = lines[at + 1]?.startsWith('DETAIL:') ? ` ${lines[at + 1]}` : '';
  return `${lines[at]!.replace(/:\s+/, ': ')}${detail.replace(/:\s+/, ': ')}`;
}

/**
 * The embedded PostgreSQL (`@electric-sql/pglite`): the database in a folder (created if missing), or in memory
 * when no folder is given (tests). One connection, so one statement at a time; a transaction holds it to its end,
 * which is what makes its writes exclusive here. One process at a time may open a folder: it is held for the
 * driver's life (`holdFolder`), and a second open of it, here or in another process, fails.
 */
export class PgliteDriver implements SqlDriver {
  readonly kind = 'embedded';

  /** Statements outside any transaction. */
  private readonly own: SqlClient;

  private constructor(
    private readonly db: PGlite,
    private readonly observe: StatementObserver | undefined,
    private readonly release: () => void = () => {},
  ) {
    this.own = this.clientOver(db);
  }

  /** The database in `dataDir`, or in memory when absent. */
  static async open(dataDir?: string, options: PgliteOptions = {}): Promise<PgliteDriver> {
    const { from, observeStatement } = options;
    // pg_trgm: the trigram indexes of `q` (migration 005), as on a server.
    const extensions = { pg_trgm };
    if (dataDir === undefined) {
      const db = new PGlite({ loadDataDir: from, extensions });
      await db.waitReady;
      return new PgliteDriver(db, observeStatement);
    }
    prepareFolder(dataDir);
    const release = holdFolder(dataDir);
    // What PostgreSQL says on its way up, to name the reason should it not come up (PGlite's own error says only
    // `Aborted()` or that it "failed to initialize").
    const said: string[] = [];
    let opening = true;
    const heard = (text: string) => {
      if (opening) said.push(text);
      return false;
    };
    try {
      const db = new PGlite(dataDir, { extensions, onStderr: heard, onStdout: heard });
      await db.waitReady;
      opening = false;
      return new PgliteDriver(db, observeStatement, release);
    } catch (error) {
      release();
      const reason = reasonIn(said)?.replaceAll(PGLITE_DATA, dataDir) ?? (error as Error).message;
      throw new Error(`could not be opened as a database: ${reason}`, {
        cause: error,
      });
    } finally {
      opening = false;
    }
  }

  query<R extends object>(text: string, params?: readonly unknown[]): Promise<R[]> {
    return this.own.query<R>(text, params);
  }

  exec(script: string): Promise<void> {
    return this.own.exec(script);
  }

  /** One connection: transactions run one at a time, so only a snapshot's read-only view needs saying. */
  transaction<R>(work: (client: SqlClient) => Promise<R>, options: TransactionOptions = {}): Promise<R> {
    return this.db
      .transaction(async (tx) => {
        if (options.snapshot) await tx.exec('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        const started = new StartedStatements();
        const result = await work(this.clientOver(tx, started));
        await started.settled();
        return result;
      })
      .catch(rethrowTranslated);
  }

  /**
   * Statements on `db` (the database, or a transaction of it, whose statements `started` keeps track of), their
   * errors translated; each through the observer when there is one.
   */
  private clientOver(db: Pick<Transaction, 'query' | 'exec'>, started?: StartedStatements): SqlClient {
    const client: SqlClient = started
      ? {
          query: async <R extends object>(text: string, params?: readonly unknown[]) =>
            (await started.track(db.query<R>(text, params as unknown[]).catch(rethrowTranslated))).rows,
          exec: async (script: string) => void (await started.track(db.exec(script).catch(rethrowTranslated))),
        }
      : {
          query: async <R extends object>(text: string, params?: readonly unknown[]) =>
            (await db.query<R>(text, params as unknown[]).catch(rethrowTranslated)).rows,
          exec: async (script: string) => void (await db.exec(script).catch(rethrowTranslated)),
        };
    const { observe } = this;
    if (!observe) return client;
    return {
      query: (text, params) => observe(text, () => client.query(text, params)),
      exec: (script) => observe(script, () => client.exec(script)),
    };
  }

  /** The whole database as a tarball, for `open(undefined, from)`. */
  async dump(): Promise<Blob> {
    return this.db.dumpDataDir('none');
  }

  async close(): Promise<void> {
    try {
      await this.db.close();
    } finally {
      this.release();
    }
  }
}
