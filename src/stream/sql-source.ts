import type { SqlDriver } from '../store/sql/driver.ts';
import { STREAM_CHANNEL, StreamLogReader, type SqlPosition, type StreamRow } from '../store/sql/stream-log.ts';
import type { StreamEntry } from '../store/types.ts';
import { compare, deliveryOf, type Delivery, type Position, type Reset, type StreamSource } from './source.ts';

const PAGE = 500;
/** How soon to look again for rows committed but not yet settled (an older transaction still running). */
const RECHECK_MS = [2, 5, 10, 20, 50, 100];

const positionOf = (p: SqlPosition): Position => ({ hi: p.xid, lo: p.seq });
const sqlOf = (p: Position): SqlPosition => ({ xid: p.hi, seq: p.lo });

export interface SqlSourceOptions {
  /** Rows older than this are deleted (checked every tenth of it, at most every minute). */
  retentionMs: number;
  /** A pruning or a notification failed; a read, too, without `onReadFailing`. */
  onError: (err: unknown) => void;
  /**
   * Reads of the table fail: called for the first failure of a run, then at most once every `failureLogMs`, with
   * the number failed so far in the run.
   */
  onReadFailing?: (err: unknown, failures: number) => void;
  /** Reads of the table go through again after `failures` failed in a row (the database is back). */
  onReadRecovered?: (failures: number) => void;
  /** While reads fail, how long before the next try, in ms. Default 1,000. */
  failedRetryMs?: number;
  /** While reads fail, how often a failure is reported again, in ms. Default 60,000. */
  failureLogMs?: number;
}

/**
 * The events of a durable store, from its `stream_events` table (written in each change's transaction): read in
 * position order, and only once settled (store/sql/stream-log.ts), so that nothing is skipped when transactions
 * commit out of order. Reads follow each local commit, and on PostgreSQL each notification of a commit on any
 * instance (LISTEN); a read that leaves rows unsettled looks again shortly. Every instance reads the same table,
 * so every instance's clients get the same events under the same positions.
 */
export class SqlSource implements StreamSource {
  private readonly reader: StreamLogReader;
  private cursor: Position = { hi: 0n, lo: 0n };
  private emit: (batch: readonly Delivery[]) => void = () => {};
  private reading = false;
  private again = false;
  private recheck: NodeJS.Timeout | undefined;
  private rechecks = 0;
  private pruning: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private closed = false;
  private announcing = false;
  /** Reads failed in a row (the database away), and when one of them was last reported. */
  private failures = 0;
  private failureReportedAt = 0;

  constructor(
    private readonly driver: SqlDriver,
    private readonly options: SqlSourceOptions,
  ) {
    this.reader = new StreamLogReader(driver);
  }

  async start(emit: (batch: readonly Delivery[]) => void): Promise<void> {
    this.emit = emit;
    const head = await this.reader.head();
    if (head) this.cursor = positionOf(head);
    if (this.driver.listen) {
      this.unlisten = await this.driver.listen(STREAM_CHANNEL, this.onNotify, () => this.poll());
    }
    const every = Math.max(1_000, Math.min(60_000, Math.floor(this.options.retentionMs / 10)));
    this.pruning = setInterval(() => void this.prune(), every).unref();
    void this.prune();
    this.poll();
  }

  head(): Position {
    return this.cursor;
  }

  format(position: Position): string {
    return `${position.hi}-${position.lo}`;
  }

  parse(text: string): Position | undefined {
    const m = /^(\d{1,20})-(\d{1,19})$/.exec(text);
    return m ? { hi: BigInt(m[1]!), lo: BigInt(m[2]!) } : undefined;
  }

  committed(entries: readonly StreamEntry[]): void {
    this.poll();
    if (entries.length > 0 && this.driver.notify) this.announce();
  }

  /**
   * Tells the other instances that events committed: one NOTIFY (outside any transaction) for every change
   * committed in one turn of the event loop (the driver gathers them further). A listener reads the table from its
   * cursor.
   */
  private announce(): void {
    if (this.announcing) return;
    this.announcing = true;
    setImmediate(() => {
      this.announcing = false;
      if (this.closed) return;
      this.driver.notify?.(STREAM_CHANNEL).catch(this.options.onError);
    });
  }

  async replay(
    after: Position,
    upTo: Position,
    page: (batch: readonly Delivery[]) => Promise<void>,
  ): Promise<Reset | void> {
    if (compare(after, upTo) === 0) return;
    const where = await this.reader.locate(sqlOf(after));
    if (where !== 'kept') return { reset: where };
    for (let from = sqlOf(after); ;) {
      const { rows } = await this.reader.after(from, PAGE, sqlOf(upTo));
      if (rows.length > 0) await page(rows.map(this.delivery));
      if (rows.length < PAGE) return;
      from = rows.at(-1)!;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.recheck);
    clearInterval(this.pruning);
    await this.unlisten?.();
  }

  /** Another instance committed events: read them. */
  private readonly onNotify = (): void => this.poll();

  /** Reads what has settled since the cursor; one read at a time, another after it when asked meanwhile. */
  private poll(): void {
    if (this.closed) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    clearTimeout(this.recheck);
    this.recheck = undefined;
    void this.read()
      .catch((err: unknown) => this.failed(err))
      .finally(() => {
        this.reading = false;
        if (this.again) {
          this.again = false;
          this.poll();
        }
      });
  }

  /**
   * A read failed: try again after `failedRetryMs` (not at the pace of the settling rechecks), and report the first
   * failure of a run, then one every `failureLogMs`: an outage is a few lines in the log, not ten a second.
   */
  private failed(err: unknown): void {
    const now = performance.now();
    if (this.failures++ === 0 || now - this.failureReportedAt >= (this.options.failureLogMs ?? 60_000)) {
      this.failureReportedAt = now;
      (this.options.onReadFailing ?? this.options.onError)(err, this.failures);
    }
    this.schedule(this.options.failedRetryMs ?? 1_000);
  }

  private async read(): Promise<void> {
    for (let first = true; ; first = false) {
      const { rows, unsettled } = await this.reader.after(sqlOf(this.cursor), PAGE);
      if (first && this.failures > 0) {
        this.options.onReadRecovered?.(this.failures);
        this.failures = 0;
      }
      if (rows.length > 0) {
        this.cursor = positionOf(rows.at(-1)!);
        this.emit(rows.map(this.delivery));
      }
      if (rows.length === PAGE) continue;
      if (unsettled) this.schedule();
      else this.rechecks = 0;
      return;
    }
  }

  /** Looks again after `afterMs`, or the next step of the settling rechecks. */
  private schedule(afterMs?: number): void {
    if (this.closed || this.recheck) return;
    const wait = afterMs ?? RECHECK_MS[Math.min(this.rechecks++, RECHECK_MS.length - 1)]!;
    this.recheck = setTimeout(() => {
      this.recheck = undefined;
      this.poll();
    }, wait).unref();
  }

  private async prune(): Promise<void> {
    try {
      await this.reader.prune(this.options.retentionMs);
    } catch (err) {
      this.options.onError(err);
    }
  }

  private readonly delivery = (row: StreamRow): Delivery =>
    deliveryOf(row, positionOf(row), this.format(positionOf(row)));
}
