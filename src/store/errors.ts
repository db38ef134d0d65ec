/**
 * What a store reports when the database, not the request, is the problem. The store translates its driver's
 * errors into these (sql/driver.ts); the HTTP error handler answers them (http/errors.ts). The memory store has
 * no reason to throw either.
 */

/** The database cannot be reached or cannot answer now (connection lost or refused, a timeout): try again later. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
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
