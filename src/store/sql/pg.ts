import pg from 'pg';
import {
  rethrowTranslated,
  translateError,
  type SqlClient,
  type SqlDriver,
  type TransactionOptions,
} from './driver.ts';

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
  private readonly options: PgOptions;

  constructor(options: PgOptions) {
    this.options = options;
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

  async transaction<R>(work: (client: SqlClient) => Promise<R>, options: TransactionOptions = {}): Promise<R> {
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
      await connection.query(options.serializable ? 'BEGIN ISOLATION LEVEL SERIALIZABLE' : 'BEGIN');
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

  async listen(
    channel: string,
    onNotify: (payload: string) => void,
    onReconnect: () => void,
  ): Promise<() => Promise<void>> {
    let stopped = false;
    let client: pg.Client | undefined;
    let retry: NodeJS.Timeout | undefined;
    const open = async (): Promise<void> => {
      const c = new pg.Client({
        connectionString: this.options.connectionString,
        connectionTimeoutMillis: this.options.connectTimeoutMs,
        keepAlive: true,
      });
      const lost = () => {
        c.removeAllListeners('notification');
        if (client === c) client = undefined;
        void c.end().catch(ignore);
        if (!stopped) retry = setTimeout(() => void open().then(onReconnect, lost), 500).unref();
      };
      c.on('error', lost);
      c.on('end', () => {
        if (client === c) lost();
      });
      c.on('notification', (n) => onNotify(n.payload ?? ''));
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      if (stopped) return void (await c.end().catch(ignore));
      client = c;
    };
    await open().catch(rethrowTranslated);
    return async () => {
      stopped = true;
      clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(ignore);
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
