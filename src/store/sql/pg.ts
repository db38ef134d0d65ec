import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import pg from 'pg';
import type { PoolStats } from '../store.ts';
import {
  beginStatement,
  rethrowTranslated,
  StartedStatements,
  translateError,
  type SqlClient,
  type SqlDriver,
  type StatementObserver,
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
  /** Every statement runs through it (the traces' spans); absent: none. */
  observeStatement?: StatementObserver;
}

/** What the client waits past the server's own statement timeout before it gives up on the connection. */
const READ_MARGIN_MS = 1_000;
/**
 * How long closing a connection waits for the server to acknowledge its end before the socket is destroyed: a server
 * that answers does within milliseconds; behind a network cut none comes, and the shutdown would wait for TCP.
 */
const END_WAIT_MS = 300;
/**
 * The NOTIFYs asked for within this many ms go in one statement: under load, one every few ms rather than one per
 * turn of the event loop. Only other instances wait for them (this one acts on its own changes at once).
 */
const NOTIFY_GATHER_MS = 5;

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
  private readonly backgroundPool: pg.Pool;
  /** Statements on the pool, outside any transaction. */
  private readonly own: SqlClient;
  readonly background: SqlClient;
  private readonly options: PgOptions;
  private readonly statements = new PreparedStatements();
  /** The payload of this driver's NOTIFYs: its listeners ignore them (this process already acted on the change). */
  private readonly sender = randomUUID();
  /** Every connection open: the pools' and the listeners', destroyed by `close` if they do not end in time. */
  private readonly open = new Set<pg.Client>();

  constructor(options: PgOptions) {
    this.options = options;
    this.location = describe(options.connectionString);
    this.pool = this.tracked(newPool(options, options.poolSize));
    // Its commits do not wait for the disk: see `background` in driver.ts and SqlDeliveryLog. Its statements are
    // few and fixed (the workers' claim, settle, release, next due time and prune), each written to reach its rows
    // through one index or `ctid` whatever the table holds, and it plans them once per connection. A plan made by
    // the usual costing would follow the table as it was when planned: the outbox's pending rows go from none to a
    // backlog of thousands within seconds, faster than statistics follow, and a plan made on the empty table (scans
    // of the whole table) read the whole backlog at every claim. With sequential and bitmap scans, hash and merge
    // joins costed out on these connections, the one plan left for each is the index walk it was written for; the
    // alternative, planning each call afresh, cost PostgreSQL about a millisecond per claim and settle under load.
    const background = this.tracked(newPool(options, BACKGROUND_POOL_SIZE, BACKGROUND_SETTINGS));
    this.backgroundPool = background;
    this.own = this.clientOver((query) => this.pool.query(query));
    this.background = this.clientOver((query) => background.query(query));
  }

  poolStats(): PoolStats {
    const { totalCount, idleCount, waitingCount } = this.pool;
    return { inUse: totalCount - idleCount, idle: idleCount, waiting: waitingCount };
  }

  /** `pool`, its connections counted in `open` while they are. */
  private tracked(pool: pg.Pool): pg.Pool {
    pool.on('connect', (client) => this.open.add(client));
    pool.on('remove', (client) => this.open.delete(client));
    return pool;
  }

  query<R extends object>(text: string, params?: readonly unknown[]): Promise<R[]> {
    return this.own.query<R>(text, params);
  }

  exec(script: string): Promise<void> {
    return this.own.exec(script);
  }

  /** Statements through `send` (a pool, or one connection), named as `statements` says, their errors translated. */
  private clientOver(send: (query: string | pg.QueryConfig) => Promise<pg.QueryResult>): SqlClient {
    const observe = this.options.observeStatement;
    if (observe) {
      const sent = send;
      send = (query) => observe(typeof query === 'string' ? query : query.text, () => sent(query));
    }
    return {
      query: async <R extends object>(text: string, params?: readonly unknown[]) =>
        (await send(this.statements.config(text, params)).catch(rethrowTranslated)).rows as R[],
      exec: async (script: string) => void (await send(script).catch(rethrowTranslated)),
    };
  }

  async transaction<R>(work: (client: SqlClient) => Promise<R>, options: TransactionOptions = {}): Promise<R> {
    const connection = await this.pool.connect().catch(rethrowTranslated);
    // The connection failing between two statements (the server ended the session) is reported by the next
    // statement; pg emits it as an event too, which would end the process with no listener.
    connection.on('error', ignore);
    const started = new StartedStatements();
    const gather = gatherWrites(connection);
    const client = this.clientOver((query) => {
      gather();
      return started.track(connection.query(query));
    });
    try {
      // The pool's connections pipeline (`pipeline`): BEGIN is not waited for, so it goes out with the first
      // statement of `work`, and COMMIT with the statements `work` left on their way (its batched rows). Two round
      // trips fewer per transaction; a statement that failed still fails the transaction (`started`).
      client.exec(beginStatement(options)).catch(ignore);
      const result = await work(client);
      await Promise.all([client.exec('COMMIT'), started.settled()]);
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
        void endWithin(c, END_WAIT_MS);
        if (!stopped) retry = setTimeout(() => void open().then(onReconnect, lost), 500).unref();
      };
      c.on('error', lost);
      c.on('end', () => {
        if (client === c) lost();
      });
      c.on('notification', (n) => {
        if (n.payload !== this.sender) onNotify(n.payload ?? '');
      });
      await c.connect();
      this.open.add(c);
      c.once('end', () => this.open.delete(c));
      await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      if (stopped) return endWithin(c, END_WAIT_MS);
      client = c;
    };
    await open().catch(rethrowTranslated);
    return async () => {
      stopped = true;
      clearTimeout(retry);
      const c = client;
      client = undefined;
      if (c) await endWithin(c, END_WAIT_MS);
    };
  }

  private notifying: { channels: Set<string>; sent: Promise<void> } | undefined;

  notify(channel: string): Promise<void> {
    if (!this.notifying) {
      const channels = new Set<string>();
      const sent = new Promise<void>((resolve, reject) =>
        setTimeout(() => {
          this.notifying = undefined;
          this.query('SELECT pg_notify(c, $2) FROM unnest($1::text[]) AS c', [[...channels], this.sender]).then(
            () => resolve(),
            reject,
          );
        }, NOTIFY_GATHER_MS),
      );
      this.notifying = { channels, sent };
    }
    this.notifying.channels.add(channel);
    return this.notifying.sent;
  }

  /**
   * Ends every connection. The pools wait for the connections in use to come back; the ones still open after
   * END_WAIT_MS (the server does not answer) have their sockets destroyed, which also fails the statements they were
   * waiting on, so that a shutdown never waits for a database that does not answer.
   */
  async close(): Promise<void> {
    const timer = setTimeout(() => {
      for (const client of this.open) socketOf(client)?.destroy?.();
    }, END_WAIT_MS);
    await Promise.all([this.pool.end(), this.backgroundPool.end()]);
    clearTimeout(timer);
  }
}

const ignore = () => {};

/** The socket under a connection, when it is a network one. */
function socketOf(client: pg.Client): Partial<Socket> | undefined {
  // pg keeps the connection in a field its type declarations leave out.
  return (client as unknown as { connection?: { stream?: Partial<Socket> } }).connection?.stream;
}

/** Ends `client` politely, or destroys its socket when the server has not acknowledged the end within `ms`. */
async function endWithin(client: pg.Client, ms: number): Promise<void> {
  const timer = setTimeout(() => socketOf(client)?.destroy?.(), ms);
  await client.end().catch(ignore);
  clearTimeout(timer);
}

/**
 * Answers a function that holds the connection's writes until the event loop's turn has run its callbacks (its check
 * phase): the statements a transaction sends in one go (`BEGIN` with its first reads, the held-back rows with
 * `COMMIT`), issued a few promise steps apart, then leave in one write to the socket, not one each: fewer system calls
 * here and fewer reads for PostgreSQL. Without the socket (not a network connection), it does nothing.
 */
function gatherWrites(connection: pg.PoolClient): () => void {
  const socket = socketOf(connection);
  if (typeof socket?.cork !== 'function' || typeof socket.uncork !== 'function') return ignore;
  const cork = socket.cork.bind(socket);
  const uncork = socket.uncork.bind(socket);
  let held = false;
  return () => {
    if (held) return;
    held = true;
    cork();
    setImmediate(() => {
      held = false;
      uncork();
    });
  };
}

/** The connections of `PgDriver.background`, beside the pool's: the delivery workers' claims and settles. */
const BACKGROUND_POOL_SIZE = 2;
/** The session settings of those connections (see the constructor), as a connection's `options`. */
export const BACKGROUND_SETTINGS = [
  'synchronous_commit=off',
  'plan_cache_mode=force_generic_plan',
  'enable_seqscan=off',
  'enable_bitmapscan=off',
  'enable_hashjoin=off',
  'enable_mergejoin=off',
]
  .map((setting) => `-c ${setting}`)
  .join(' ');

/** A pool of at most `max` connections (pg's default, 10, when absent); `startup`: settings for each session. */
function newPool(options: PgOptions, max: number | undefined, startup?: string): pg.Pool {
  const { statementTimeoutMs } = options;
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max,
    ...(startup === undefined ? {} : { options: startup }),
    connectionTimeoutMillis: options.connectTimeoutMs,
    ...(statementTimeoutMs === undefined
      ? {}
      : { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + READ_MARGIN_MS }),
    // A server that vanished without closing its connections is noticed on idle ones too.
    keepAlive: true,
    // A statement is sent without waiting for the answer to the one before (see `PgDriver.transaction`).
    pipeline: true,
  });
  // An idle connection the server closed is dropped by the pool and replaced on demand; without a listener its
  // error would end the process.
  pool.on('error', ignore);
  return pool;
}

/**
 * Names the statements the service sends again and again, so that each connection parses and plans them once
 * (a prepared statement) instead of at every call: most of a short statement's cost on the server. A text gets a
 * name the second time it is seen, so one-off texts (a batch of unusual size) do not; at most `MAX_NAMED` names,
 * and the texts counted are forgotten now and then, so that neither grows without bound.
 */
class PreparedStatements {
  private static readonly MAX_NAMED = 500;
  private static readonly MAX_SEEN = 5_000;
  private readonly named = new Map<string, string>();
  private seen = new Set<string>();

  config(text: string, params: readonly unknown[] | undefined): pg.QueryConfig {
    const values = params as unknown[] | undefined;
    const name = this.named.get(text);
    if (name !== undefined) return { name, text, values };
    if (this.named.size < PreparedStatements.MAX_NAMED) {
      if (this.seen.has(text)) {
        const name = `pm_${this.named.size}`;
        this.named.set(text, name);
        this.seen.delete(text);
        return { name, text, values };
      }
      if (this.seen.size >= PreparedStatements.MAX_SEEN) this.seen = new Set();
      this.seen.add(text);
    }
    return { text, values };
  }
}

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
