import pg from 'pg';
import { rethrowTranslated, translateError, type SqlClient, type SqlDriver } from './driver.ts';

export interface PgOptions {
  connectionString: string;
  /** Connections in the pool; pg's default (10) when absent. */
  poolSize?: number;
  /** How long opening one connection (or waiting for a free one in a full pool) may take before it fails. */
  connectTimeoutMs?: number;
  /**
   * How long one statement may run: the server cancels it (`statement_timeout`), and the driver gives up on a
   * server that no longer answers at all a little later. Absent: no limit.
   */
  statementTimeoutMs?: number;
}

/** What the client waits past the server's own statement timeout before it gives up on the connection. */
const READ_MARGIN_MS = 1_000;

/**
 * A PostgreSQL server through node-postgres (`pg`), chosen over `postgres` (porsager): its `Pool` is the plain,
 * explicit piece this store needs (one client checked out per transaction, BEGIN/COMMIT written out), it is the
 * most widely used and longest-maintained driver (what most tools and answers assume), and its `Client` offers
 * LISTEN/NOTIFY for sharing events between instances later.
 *
 * When the server goes away, every call fails within the timeouts with a `StoreUnavailableError`; the pool drops
 * the broken connections and opens new ones on demand, so the store works again as soon as the server answers.
 */
export class PgDriver implements SqlDriver {
  readonly kind = 'postgres';
  /** Where the server is, for messages: its host, port and database, never the password. */
  readonly location: string;
  private readonly pool: pg.Pool;
  private readonly connectionString: string;

  constructor(options: PgOptions) {
    this.connectionString = options.connectionString;
    const { statementTimeoutMs } = options;
    this.location = describe(options.connectionString);
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize,
      connectionTimeoutMillis: options.connectTimeoutMs,
      ...(statementTimeoutMs === undefined
        ? {}
        : { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + READ_MARGIN_MS }),
      // A server that vanished without closing its connections is noticed on idle ones too.
      keepAlive: true,
    });
    // An idle connection the server closed is dropped by the pool and replaced on demand; without a listener its
    // error would end the process.
    this.pool.on('error', () => {});
  }

  async query<R extends object>(text: string, params?: readonly unknown[]): Promise<R[]> {
    return (await this.pool.query<R>(text, params as unknown[]).catch(rethrowTranslated)).rows;
  }

  async exec(script: string): Promise<void> {
    await this.pool.query(script).catch(rethrowTranslated);
  }

  async transaction<R>(work: (client: SqlClient) => Promise<R>): Promise<R> {
    const connection = await this.pool.connect().catch(rethrowTranslated);
    // The connection failing between two statements (the server ended the session) is reported by the next
    // statement; pg emits it as an event too, which would end the process with no listener.
    connection.on('error', ignore);
    const client: SqlClient = {
      query: async <T extends object>(text: string, params?: readonly unknown[]) =>
        (await connection.query<T>(text, params as unknown[]).catch(rethrowTranslated)).rows,
      exec: async (script: string) => void (await connection.query(script).catch(rethrowTranslated)),
    };
    try {
      await connection.query('BEGIN');
      const result = await work(client);
      await connection.query('COMMIT');
      connection.off('error', ignore);
      connection.release();
      return result;
    } catch (error) {
      // A connection that cannot even roll back is broken: it leaves the pool rather than going back to it.
      const broken = await connection.query('ROLLBACK').then(
        () => undefined,
        (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
      );
      connection.off('error', ignore);
      connection.release(broken);
      throw translateError(error);
    }
  }

  /**
   * LISTEN on a client of its own, outside the pool. A connection lost is opened again after a pause (notifications
   * sent meanwhile are missed: listeners poll as a backstop).
   */
  async listen(channel: string, onNotify: () => void): Promise<() => Promise<void>> {
    let stopped = false;
    let client: pg.Client | undefined;
    let retry: NodeJS.Timeout | undefined;
    const connect = async (): Promise<void> => {
      const c = new pg.Client({ connectionString: this.connectionString, keepAlive: true });
      c.on('error', () => {
        c.end().catch(ignore);
        if (stopped || client !== c) return;
        client = undefined;
        retry = setTimeout(() => void connect().catch(ignore), 1_000);
        retry.unref();
      });
      c.on('notification', (n) => {
        if (n.channel === channel) onNotify();
      });
      try {
        await c.connect();
        await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      } catch (error) {
        await c.end().catch(ignore);
        if (!stopped) {
          retry = setTimeout(() => void connect().catch(ignore), 1_000);
          retry.unref();
        }
        throw translateError(error);
      }
      if (stopped) await c.end().catch(ignore);
      else client = c;
      onNotify(); // whatever was announced while not listening
    };
    await connect().catch(ignore);
    return async () => {
      stopped = true;
      clearTimeout(retry);
      await client?.end().catch(ignore);
      client = undefined;
    };
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

const ignore = () => {};

/** `host:port/database` of a connection string: what a message may say of it (never the user's password). */
export function describe(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    const host = url.searchParams.get('host') ?? (url.hostname || 'localhost');
    return `${host}:${url.port || '5432'}${url.pathname.length > 1 ? url.pathname : ''}`;
  } catch {
    return 'the PostgreSQL server of DATABASE_URL';
  }
}
