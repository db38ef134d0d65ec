import { ConstraintViolationError, StoreUnavailableError, type UnavailableReason } from '../errors.ts';
import type { PoolStats } from '../store.ts';

/**
 * The little the SQL store needs of a database: run a statement with positional parameters (`$1`, …) and get
 * its rows, and run several on one connection in a transaction. Two drivers implement it, so the same SQL serves
 * a PostgreSQL server (pg.ts) and the embedded PostgreSQL (pglite.ts).
 */
export interface SqlClient {
  query<R extends object = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs a script of several statements, without parameters (a migration). */
  exec(script: string): Promise<void>;
}

/**
 * Runs one statement (`run`), told its text: a driver given one calls every statement through it (traces wrap each
 * in a span). Never given: the statements run as they are, at no cost.
 */
export type StatementObserver = <R>(text: string, run: () => Promise<R>) => Promise<R>;

export interface SqlDriver extends SqlClient {
  /** What the store runs on, for messages and the readiness check: `postgres` or `embedded`. */
  readonly kind: 'postgres' | 'embedded';
  /**
   * Statements outside any transaction on connections of their own, for the delivery workers: their short claims
   * and settles do not wait in line behind the requests' transactions for a connection, and their commits do not
   * wait for the disk (`synchronous_commit` off: a crash of the database server may lose the last few, never
   * corrupt anything). Absent: the driver itself.
   */
  readonly background?: SqlClient;
  /**
   * Runs `work` between BEGIN and COMMIT on one connection; ROLLBACK when it throws, and the error passes on.
   * Statements `work` started and did not wait for (the last of a transaction's batched rows) run before the
   * COMMIT: when one of them fails, the transaction rolls back and its error passes on. Statements run outside
   * `work` (on the driver itself) may use other connections. `serializable`: at the SERIALIZABLE isolation level
   * (a driver with one connection runs every transaction alone anyway).
   */
  transaction<R>(work: (client: SqlClient) => Promise<R>, options?: TransactionOptions): Promise<R>;
  /**
   * Hears the notifications of `channel` (LISTEN) on a connection of its own, kept open (opened again after a
   * failure, then `onReconnect` is called: what was notified meanwhile is lost), except those this driver's own
   * `notify` sent. Answers how to stop. Only drivers whose database other processes share have it.
   */
  listen?(channel: string, onNotify: (payload: string) => void, onReconnect: () => void): Promise<() => Promise<void>>;
  /**
   * Notifies `channel` (the payload names the sender, so that its own listeners skip it), outside any transaction:
   * the channels notified within a few ms go in one statement. Resolves once sent. Drivers with `listen` have it.
   */
  notify?(channel: string): Promise<void>;
  close(): Promise<void>;
  /** The request pool's connections in use, idle, and the requests waiting for one; absent with one connection. */
  poolStats?(): PoolStats;
}

export interface TransactionOptions {
  readonly serializable?: boolean;
  /**
   * A consistent read-only view (an export): `REPEATABLE READ, READ ONLY`, so that every statement of `work` sees
   * the database as its first one did, whatever commits meanwhile.
   */
  readonly snapshot?: boolean;
}

/** The first statement of a transaction with these options. */
export function beginStatement(options: TransactionOptions): string {
  if (options.snapshot) return 'BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY';
  return options.serializable ? 'BEGIN ISOLATION LEVEL SERIALIZABLE' : 'BEGIN';
}

/** Socket errors that mean the server cannot be reached. */
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
]);
/**
 * SQLSTATEs of a database that cannot answer now, by why: the server shutting down or ending the session
 * (57P01–57P03), too many connections, the database missing (renamed or dropped under a running service), as
 * class 08 (connection) is; a statement cancelled by its timeout or a lock not had in time; a serialization failure
 * or deadlock (the same request may succeed again); a table or schema missing (the database made again, empty).
 */
const UNAVAILABLE_STATES: Record<string, UnavailableReason> = {
  '57P01': 'unreachable',
  '57P02': 'unreachable',
  '57P03': 'unreachable',
  '53300': 'unreachable',
  '3D000': 'unreachable',
  '57014': 'timeout',
  '55P03': 'timeout',
  '40001': 'contention',
  '40P01': 'contention',
  '42P01': 'schema',
  '3F000': 'schema',
};
/** The start of a translated error's message, by reason: the log line of a 503 says which it was. */
const UNAVAILABLE_MESSAGES: Record<UnavailableReason, string> = {
  unreachable: 'the database is unavailable',
  timeout: 'the database did not answer in time',
  contention: 'the write kept colliding with concurrent writes',
  schema: "the database does not hold the service's tables (made again empty? a restart applies the migrations)",
};
/** node-postgres' own messages for a connection that is gone, never came, or did not answer in time. */
const CONNECTION_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|not queryable|Client was closed|after calling end on the pool/i;
/** SQLSTATEs of a write the schema refused, and what kind of refusal each is. */
const CONSTRAINT_STATES: Record<string, ConstraintViolationError['kind']> = {
  '23503': 'reference',
  '23514': 'invalid',
  '23502': 'invalid',
  '22P02': 'invalid',
  '22003': 'invalid',
  '22001': 'invalid',
  '23505': 'conflict',
};

/** `project_id` → `projectId`. */
const fieldOf = (column: string | undefined) => column?.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * A driver's error as the store reports it: the database unreachable or not answering → `StoreUnavailableError`;
 * a constraint the schema enforces → `ConstraintViolationError`; anything else (the caller's own errors among them)
 * unchanged. Both drivers pass every error through this.
 */
export function translateError(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof StoreUnavailableError) return error;
  const e = error as Error & { code?: unknown; column?: string; detail?: string; constraint?: string };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const reason =
    code === undefined
      ? CONNECTION_MESSAGES.test(e.message)
        ? 'unreachable'
        : undefined
      : SOCKET_ERRORS.has(code) || code.startsWith('08')
        ? 'unreachable'
        : UNAVAILABLE_STATES[code];
  if (reason !== undefined) {
    return new StoreUnavailableError(`${UNAVAILABLE_MESSAGES[reason]}: ${e.message}`, { cause: error }, reason);
  }
  const kind = code === undefined ? undefined : CONSTRAINT_STATES[code];
  if (kind !== undefined) {
    // A foreign key or unique violation names its column in the detail: `Key (project_id)=(…) is not present…`.
    const column = e.column ?? /^Key \((\w+)\)/.exec(e.detail ?? '')?.[1];
    return new ConstraintViolationError(kind, fieldOf(column), e.message, { cause: error });
  }
  return error;
}

/**
 * Whether `error` (as `translateError` reports it, or as the driver threw it) is a serialization failure or a
 * deadlock: the transaction was rolled back because of a concurrent one, and running it again is the documented remedy.
 */
export function isConflict(error: unknown): boolean {
  const translated = translateError(error);
  return translated instanceof StoreUnavailableError && translated.reason === 'contention';
}

/** `translateError` as a rejection handler. */
export const rethrowTranslated = (error: unknown): never => {
  throw translateError(error);
};

/**
 * Waits until the database answers a query, trying again while it is unreachable, for at most `timeoutMs`.
 * Then throws a `StoreUnavailableError` saying since when and why; any other failure (a wrong password) at once.
 */
export async function waitForDatabase(driver: SqlDriver, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
    try {
      await driver.query('SELECT 1');
      return;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      // The server answered that the database does not exist: waiting will not make it (it is unavailable, not
      // refused, only for a service already running, whose database was renamed or dropped under it).
      if ((error.cause as { code?: unknown } | undefined)?.code === '3D000') throw error.cause;
      const left = deadline - Date.now();
      if (left <= 0) {
        const reason = error.cause instanceof Error ? error.cause.message : error.message;
        throw new StoreUnavailableError(`did not answer within ${timeoutMs} ms (${reason})`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
    }
  }
}

/**
 * The statements a transaction started, as its driver keeps track of them: those still on their way are waited
 * for before COMMIT, and the first that failed fails the transaction, whether or not `work` waited for it (a
 * statement that failed leaves the transaction aborted; PostgreSQL would answer the COMMIT with a ROLLBACK).
 */
export class StartedStatements {
  private readonly open = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;

  /** Keeps track of `sent`, and answers it as it is (its caller still gets its rows or its error). */
  track<T>(sent: Promise<T>): Promise<T> {
    const done: Promise<void> = sent.then(
      () => void this.open.delete(done),
      (error: unknown) => {
        this.failure ??= { error };
        this.open.delete(done);
      },
    );
    this.open.add(done);
    return sent;
  }

  /** Resolves once every statement started so far is done; rejects with the first failure among them. */
  async settled(): Promise<void> {
    await Promise.all(this.open);
    if (this.failure) throw this.failure.error;
  }
}
