import pg from 'pg';
import type { SqlClient, SqlDriver } from './driver.ts';

export interface PgOptions {
  connectionString: string;
  /** Connections in the pool; pg's default (10) when absent. */
  poolSize?: number;
}

/**
 * A PostgreSQL server through node-postgres (`pg`), chosen over `postgres` (porsager): its `Pool` is the plain,
 * explicit piece this store needs (one client checked out per transaction, BEGIN/COMMIT written out), it is the
 * most widely used and longest-maintained driver (what most tools and answers assume), and its `Client` offers
 * LISTEN/NOTIFY for sharing events between instances later.
 */
export class PgDriver implements SqlDriver {
  readonly kind = 'postgres';
  private readonly pool: pg.Pool;

  constructor(options: PgOptions) {
    this.pool = new pg.Pool({ connectionString: options.connectionString, max: options.poolSize });
    // An idle connection the server closed is dropped by the pool and replaced on demand; without a listener its
    // error would end the process.
    this.pool.on('error', () => {});
  }

  async query<R extends object>(text: string, params?: readonly unknown[]): Promise<R[]> {
    return (await this.pool.query<R>(text, params as unknown[])).rows;
  }

  async exec(script: string): Promise<void> {
    await this.pool.query(script);
  }

  async transaction<R>(work: (client: SqlClient) => Promise<R>): Promise<R> {
    const connection = await this.pool.connect();
    const client: SqlClient = {
      query: async <T extends object>(text: string, params?: readonly unknown[]) =>
        (await connection.query<T>(text, params as unknown[])).rows,
      exec: async (script: string) => void (await connection.query(script)),
    };
    try {
      await connection.query('BEGIN');
      const result = await work(client);
      await connection.query('COMMIT');
      connection.release();
      return result;
    } catch (error) {
      // A connection that cannot even roll back is broken: it leaves the pool rather than going back to it.
      const broken = await connection.query('ROLLBACK').then(
        () => undefined,
        (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
      );
      connection.release(broken);
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
