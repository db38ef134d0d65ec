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

export interface SqlDriver extends SqlClient {
  /** What the store runs on, for messages and the readiness check: `postgres` or `embedded`. */
  readonly kind: 'postgres' | 'embedded';
  /**
   * Runs `work` between BEGIN and COMMIT on one connection; ROLLBACK when it throws, and the error passes on.
   * Statements run outside `work` (on the driver itself) may use other connections.
   */
  transaction<R>(work: (client: SqlClient) => Promise<R>): Promise<R>;
  close(): Promise<void>;
}
