import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { rethrowTranslated, StartedStatements, type SqlClient, type SqlDriver } from './driver.ts';
import { holdFolder } from './folder-lock.ts';

/**
 * The embedded PostgreSQL (`@electric-sql/pglite`): the database in a folder (created if missing), or in memory
 * when no folder is given (tests). One connection, so one statement at a time; a transaction holds it to its end,
 * which is what makes its writes exclusive here. One process at a time may open a folder: it is held for the
 * driver's life (`holdFolder`), and a second open of it, here or in another process, fails.
 */
export class PgliteDriver implements SqlDriver {
  readonly kind = 'embedded';

  private constructor(
    private readonly db: PGlite,
    private readonly release: () => void = () => {},
  ) {}

  /**
   * `from`: a database made by `dumpDataDir` to start from (skips creating an empty one, the slow part of a
   * start); only without a folder.
   */
  static async open(dataDir?: string, from?: Blob): Promise<PgliteDriver> {
    // pg_trgm: the trigram indexes of `q` (migration 005), as on a server.
    const extensions = { pg_trgm };
    if (dataDir === undefined) {
      const db = new PGlite({ loadDataDir: from, extensions });
      await db.waitReady;
      return new PgliteDriver(db);
    }
    mkdirSync(dataDir, { recursive: true });
    const release = holdFolder(dataDir);
    try {
      const db = new PGlite(dataDir, { extensions });
      await db.waitReady;
      return new PgliteDriver(db, release);
    } catch (error) {
      release();
      throw error;
    }
  }

  async query<R extends object>(text: string, params?: readonly unknown[]): Promise<R[]> {
    return (await this.db.query<R>(text, params as unknown[]).catch(rethrowTranslated)).rows;
  }

  async exec(script: string): Promise<void> {
    await this.db.exec(script).catch(rethrowTranslated);
  }

  transaction<R>(work: (client: SqlClient) => Promise<R>): Promise<R> {
    return this.db
      .transaction(async (tx) => {
        const started = new StartedStatements();
        const result = await work({
          query: async <T extends object>(text: string, params?: readonly unknown[]) =>
            (await started.track(tx.query<T>(text, params as unknown[]).catch(rethrowTranslated))).rows,
          exec: async (script: string) => void (await started.track(tx.exec(script).catch(rethrowTranslated))),
        });
        await started.settled();
        return result;
      })
      .catch(rethrowTranslated);
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
