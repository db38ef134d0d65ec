/**
 * What a store reports when the database, not the request, is the problem. The store translates its driver's
 * errors into these (sql/driver.ts); the HTTP error handler answers them (http/errors.ts). The memory store has
 * no reason to throw either.
 */

/**
 * Why the database could not answer: `unreachable`, the connection is lost, refused or not answering, or the server
 * is going away; `timeout`, a statement ran past the statement timeout or waited past the lock timeout; `contention`,
 * the write kept colliding with concurrent writes after every retry; `schema`, the database answers but no longer
 * holds the service's tables (dropped and made again under a running service). Each is worth trying again later.
 */
export type UnavailableReason = 'unreachable' | 'timeout' | 'contention' | 'schema';

/** The database cannot be reached or cannot answer now (connection lost or refused, a timeout): try again later. */
export class StoreUnavailableError extends Error {
  constructor(
    message: string,
    options?: ErrorOptions,
    readonly reason: UnavailableReason = 'unreachable',
  ) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * A write the schema refused: `reference`, a referenced record does not exist (a foreign key); `invalid`, a value
 * outside its column's rules (a CHECK, NOT NULL, a type); `conflict`, a record with that key exists already.
 * `field` names the record's field when the database says which column.
 */
export class ConstraintViolationError extends Error {
  constructor(
    readonly kind: 'reference' | 'invalid' | 'conflict',
    readonly field: string | undefined,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ConstraintViolationError';
  }
}
