import type { SqlClient } from './driver.ts';

/**
 * Rows for one table: `INSERT INTO <table> (<columns>) VALUES` (`head`), then one `tuple` per row, a template whose
 * parameters are numbered from `$1` (`($1::text, $2::int)`), with each row's values in that order.
 */
export interface RowInsert {
  readonly head: string;
  readonly tuple: string;
  readonly rows: readonly (readonly unknown[])[];
}

/** PostgreSQL takes at most 65,535 parameters in one statement; a batch stays well under. */
const MAX_PARAMS = 30_000;

/** Tuple templates split at their parameters: literal text at even indexes, parameter numbers at odd ones. */
const templates = new Map<string, string[]>();

/** A tuple template renumbered to start after `offset` parameters. */
function shifted(tuple: string, offset: number): string {
  let parts = templates.get(tuple);
  if (!parts) {
    parts = tuple.split(/\$(\d+)/);
    if (templates.size < 1_000) templates.set(tuple, parts);
  }
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) out += `$${Number(parts[i]) + offset}${parts[i + 1]}`;
  return out;
}

/**
 * The statements that add `inserts`, in as few as fit: the rows of one table in one multi-row INSERT (in the order
 * they came, so each table's `seq` follows it), the tables of one statement joined as data-modifying CTEs
 * (`WITH w1 AS (INSERT …) INSERT …`). PostgreSQL checks foreign keys and fires the statement triggers at the end of
 * the whole statement, so rows may reference rows of another table added by the same statement.
 */
export function insertStatements(inserts: readonly RowInsert[]): { text: string; params: unknown[] }[] {
  const byHead = new Map<string, { tuple: string; rows: (readonly unknown[])[] }>();
  for (const insert of inserts) {
    const group = byHead.get(insert.head) ?? { tuple: insert.tuple, rows: [] };
    group.rows.push(...insert.rows);
    byHead.set(insert.head, group);
  }
  const statements: { text: string; params: unknown[] }[] = [];
  let parts: string[] = [];
  let params: unknown[] = [];
  const close = () => {
    if (parts.length === 0) return;
    const last = parts.pop()!;
    const text = parts.length === 0 ? last : `WITH ${parts.map((p, i) => `w${i} AS (${p})`).join(', ')} ${last}`;
    statements.push({ text, params });
    parts = [];
    params = [];
  };
  for (const [head, { tuple, rows }] of byHead) {
    let tuples: string[] = [];
    for (const row of rows) {
      if (params.length + row.length > MAX_PARAMS) {
        if (tuples.length > 0) parts.push(`${head} ${tuples.join(', ')}`);
        tuples = [];
        close();
      }
      tuples.push(shifted(tuple, params.length));
      params.push(...row);
    }
    if (tuples.length > 0) parts.push(`${head} ${tuples.join(', ')}`);
  }
  close();
  return statements;
}

/**
 * Adds rows now, or, in a transaction's `WriteBatch`, with the transaction's other new rows just before its next
 * read or its COMMIT: a change that adds a record, its activity entries, notifications, stream events and webhook
 * deliveries sends them in one statement rather than one round trip each.
 */
export async function addRows(db: SqlClient, insert: RowInsert): Promise<void> {
  if (insert.rows.length === 0) return;
  if (db instanceof WriteBatch) return db.defer(insert);
  for (const { text, params } of insertStatements([insert])) await db.query(text, params);
}

/**
 * Reads with a statement that reads only `tables` (no trigger, function or view reaching further): in a
 * `WriteBatch`, rows held back for other tables stay held back, since the read cannot see them anyway.
 */
export async function readFrom<R extends object>(
  db: SqlClient,
  tables: readonly string[],
  text: string,
  params?: readonly unknown[],
): Promise<R[]> {
  return db instanceof WriteBatch ? db.read<R>(tables, text, params) : db.query<R>(text, params);
}

/**
 * A transaction's connection that holds back the rows it is asked to add (`defer`) and sends them together before
 * any other statement (which may read them) and when the work is done (`flush`, before COMMIT). A row the schema
 * refuses fails the statement that sends it, and with it the transaction, as it would have alone.
 */
export class WriteBatch implements SqlClient {
  private pending: RowInsert[] = [];
  private pendingRows = 0;
  private sending: Promise<void> = Promise.resolve();

  /**
   * `bound`: at most this many rows are held back; the insert that reaches it sends them and waits until they are
   * done (a bulk load, which then holds a bounded part of what it loads). Default: no bound (a change's few rows).
   */
  constructor(
    private readonly client: SqlClient,
    private readonly bound = Infinity,
  ) {}

  defer(insert: RowInsert): void | Promise<void> {
    this.pending.push(insert);
    this.pendingRows += insert.rows.length;
    if (this.pendingRows >= this.bound) return this.flush();
  }

  /**
   * Sends what is held back, at once: a connection runs statements in the order they are started, so these go
   * after any send under way. Resolves when everything sent so far is done.
   */
  flush(): Promise<void> {
    if (this.pending.length > 0) {
      const statements = insertStatements(this.pending);
      this.pending = [];
      this.pendingRows = 0;
      this.sending = Promise.all([
        this.sending,
        ...statements.map(({ text, params }) => this.client.query(text, params)),
      ]).then(() => undefined);
    }
    return this.sending;
  }

  /**
   * Sends what is held back without waiting for it: the end of a transaction's work. The driver runs COMMIT after
   * it, and a statement of it that fails fails the transaction with its error (`SqlDriver.transaction`).
   */
  send(): void {
    this.flush().catch(() => {});
  }

  async query<R extends object = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<R[]> {
    await this.flush();
    return this.client.query<R>(text, params);
  }

  /** A read of `tables` only: sends what is held back first only when some of it is for one of them. */
  async read<R extends object>(tables: readonly string[], text: string, params?: readonly unknown[]): Promise<R[]> {
    if (this.pending.some((insert) => tables.some((t) => insert.head.startsWith(`INSERT INTO ${t} (`)))) {
      await this.flush();
    } else {
      await this.sending;
    }
    return this.client.query<R>(text, params);
  }

  async exec(script: string): Promise<void> {
    await this.flush();
    return this.client.exec(script);
  }
}
