import { DELIVERY_STATUSES, type DeliveryRecord, type DeliveryStatus } from '../model/delivery.ts';
import { AnyOf, PositionError, type Range, type Page, type Position, type SortKey } from '../model/list.ts';
import { isSeq, isStoredInstant } from '../model/position.ts';
import { iso } from '../model/time.ts';

/** Where a delivery goes: a webhook as the workers need it (a snapshot, taken when the event is queued). */
export interface DeliveryTarget {
  readonly id: string;
  readonly url: string;
  /** `whsec_` + base64; the part after the prefix is the HMAC key, base64-decoded. */
  readonly secret: string;
}

/** A webhook as an attempt reads it, at the moment it is made: where it goes, how it is signed, whether it is on. */
export interface CurrentWebhook extends DeliveryTarget {
  readonly active: boolean;
}

/**
 * One attempt as the outbox keeps it: the record the delivery log shows, and what the workers need to make it.
 * A pending row is an attempt still to be made: due at `dueAt`, and claimed by a worker while `leasedBy` holds
 * it until `leaseUntil`. A failed attempt that will be retried is followed at once by the next attempt's pending
 * row, due at the failed one's `nextAttemptAt`: the retry schedule lives in the store, not in a process's timers.
 */
export interface StoredDelivery extends DeliveryRecord {
  /** The body every attempt sends: the event's payload, made once when the delivery was queued. */
  readonly payload: string;
  /** When a pending attempt may be made. */
  dueAt: string;
  /** Made whether the webhook is active or not: the first attempt of a ping or a redelivery asked for by hand. */
  force: boolean;
  leaseUntil: string | null;
  leasedBy: string | null;
  /**
   * The trace context of the request that caused the delivery (a change's, a ping's, a redelivery's), in the W3C
   * `traceparent` form (version, trace id, span id, flags): written with its first attempt when traces are on, and
   * carried by its retries, so that the span of each attempt links to that request's, on any instance and after a
   * restart. Absent when traces were off.
   */
  traceParent?: string;
}

/** A row a worker claimed, with the webhook as it was read by the claim where the store reads it there. */
export interface ClaimedDelivery extends StoredDelivery {
  /** The webhook at the claim (SQL, one statement for both); null: the store has no such webhook; absent: not read. */
  readonly webhook?: CurrentWebhook | null;
}

/** A claimed attempt as made (its status no longer `pending`), and the attempt that follows it, if any. */
export interface Outcome {
  readonly done: StoredDelivery;
  readonly next?: StoredDelivery;
}

export interface Backlog {
  readonly due: number;
  readonly waiting: number;
}

export interface DeliveryQuery {
  /** This status, or any of these. */
  status?: DeliveryStatus | readonly DeliveryStatus[];
  /** This event type, or any of these. */
  eventType?: string | readonly string[];
  /** Inclusive bounds on `createdAt`, ISO 8601. */
  since?: string;
  until?: string;
  /** Bounds on `createdAt` (`toISOString()` form), with `since` and `until`. */
  createdAt?: Range;
  /**
   * The order, over `createdAt` and `status` (by `DELIVERY_STATUS_ORDER`); newest first (`DELIVERY_NEWEST_FIRST`)
   * when absent. Ties: the attempt added last first, whatever the direction (as the activity log's).
   */
  sort?: readonly SortKey[];
  /** At most this many attempts; all when absent. */
  limit?: number;
  /** Only attempts after this position of a previous page (`next` of a `Page`). */
  after?: Position;
  /** As `ListQuery.skipTotal`. */
  skipTotal?: boolean;
}

export interface ClaimRequest {
  /** Rows due by this instant are claimed (ISO 8601). */
  now: string;
  leaseUntil: string;
  /** Who claims: written to each claimed row's `leasedBy`. */
  owner: string;
  /** At most this many rows. */
  limit: number;
  /** At most this many rows of a webhook that `room` does not name. */
  perWebhook: number;
  /** At most this many rows of each webhook named (what the claiming worker holds of it already counted). */
  room: ReadonlyMap<string, number>;
}

/**
 * The webhook outbox and delivery log of a store: every attempt, one row each. First attempts are added in the
 * transaction of the change that causes them (through the transaction's collections), so a change that rolls back
 * sends nothing and one that commits is delivered even if the process dies the next instant. Workers claim due
 * rows, make the attempts, and settle them; on PostgreSQL several instances share the rows (sql/deliveries.ts),
 * in memory one process has them (memory/deliveries.ts).
 */
export interface DeliveryLog {
  /** Kept on disk and shared by every instance on the database (SQL), or gone with the process (memory). */
  readonly durable: boolean;
  add(rows: readonly StoredDelivery[]): Promise<void>;
  /**
   * Leases due, unclaimed pending rows to `owner`, oldest due first, within the per-webhook limit; with the webhook
   * of each as it is now where the store can read it in the same statement.
   */
  claim(request: ClaimRequest): Promise<ClaimedDelivery[]>;
  /**
   * Writes claimed attempts' outcomes, each with the attempt that follows it if any, for the rows `owner` still
   * holds the lease of; answers their ids. An attempt whose lease was lost (it ran out and another worker claimed
   * the row) is not in the answer, and nothing of it is written.
   */
  settle(outcomes: readonly Outcome[], owner: string): Promise<ReadonlySet<string>>;
  /** Gives claimed rows back, still pending and due at once (an attempt cut short by a shutdown). */
  release(ids: readonly string[], owner: string): Promise<void>;
  /** A webhook's attempts, newest first (`createdAt`, then the order they were added), as `page` orders them. */
  list(webhookId: string, query?: DeliveryQuery): Promise<StoredDelivery[]>;
  /**
   * A page of a webhook's attempts, newest first: `createdAt` descending, then the order they were added, last
   * first. A position is `[createdAt, the attempt's place in that order]`; one the log did not make is a
   * `PositionError`. `total`: the attempts matching the filters, whatever `after` and `limit` cut. Keyset pages:
   * attempts added while a client pages come before its first page (newer), never within the pages it walks.
   */
  page(webhookId: string, query: DeliveryQuery): Promise<Page<StoredDelivery>>;
  find(webhookId: string, deliveryId: string): Promise<StoredDelivery | undefined>;
  /** The earliest `dueAt` later than `after` of the pending rows nobody holds, or null. */
  nextDue(after: string): Promise<string | null>;
  /** Pending rows. */
  pending(): Promise<number>;
  /** Pending rows due by `now` (claimed or not), and those due later (retries waiting for their time). */
  backlog(now: string): Promise<Backlog>;
  /** Removes settled attempts created before `before`; answers how many. */
  prune(before: string): Promise<number>;
  /** Drops what is kept of a deleted webhook, where the log is bounded per webhook (memory). */
  forget(webhookId: string): Promise<void>;
  /** Where the log is bounded per webhook (memory): sets how many attempts of each it keeps. */
  bound?(perWebhook: number): void;
  /**
   * Where the pending rows are bounded (memory): how many there are, counted now, without yielding, so that rows
   * staged together cannot all see room for one more.
   */
  waitingNow?(): number;
  /**
   * Runs `work` with the log while no other `exclusively` for the webhook runs on any instance sharing it (SQL: in a
   * transaction holding an advisory lock for the webhook; memory: one after the other in the process).
   */
  exclusively<R>(webhookId: string, work: (log: DeliveryLog) => Promise<R>): Promise<R>;
  /** Calls `wake` whenever another instance adds due rows; resolves to a function that stops listening. */
  listen?(wake: () => void): Promise<() => Promise<void>>;
  /** Tells the workers of every instance that deliveries were added (once their transaction has committed). */
  announce?(): Promise<void>;
}

/** The record the delivery log shows for a stored attempt (a copy, without the outbox's own fields). */
export function recordOf(row: StoredDelivery): DeliveryRecord {
  return {
    id: row.id,
    webhookId: row.webhookId,
    eventId: row.eventId,
    eventType: row.eventType,
    attempt: row.attempt,
    status: row.status,
    responseStatus: row.responseStatus,
    error: row.error,
    durationMs: row.durationMs,
    createdAt: row.createdAt,
    completedAt: row.completedAt,
    nextAttemptAt: row.nextAttemptAt,
    url: row.url,
    queuedMs: row.queuedMs,
    stopReason: row.stopReason,
  };
}

/** A new attempt still to be made (`pending`), due at `at` unless `dueAt` says otherwise. */
export function pendingAttempt(a: {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  payload: string;
  attempt: number;
  at: Date;
  dueAt?: Date;
  force: boolean;
}): StoredDelivery {
  return {
    id: a.id,
    webhookId: a.webhookId,
    eventId: a.eventId,
    eventType: a.eventType,
    attempt: a.attempt,
    status: 'pending',
    responseStatus: null,
    error: null,
    durationMs: null,
    createdAt: iso(a.at),
    completedAt: null,
    nextAttemptAt: null,
    url: null,
    queuedMs: null,
    stopReason: null,
    payload: a.payload,
    dueAt: iso(a.dueAt ?? a.at),
    force: a.force,
    leaseUntil: null,
    leasedBy: null,
  };
}

/**
 * The progression `sort=status` follows: the attempt still to be made first, then the outcomes from the best to the
 * worst: delivered, refused (never sent: the target's address is not allowed), failed (sent, and not taken). So
 * `-status` puts the failures first, then the refusals, and what is still under way last.
 */
export const DELIVERY_STATUS_ORDER: readonly DeliveryStatus[] = ['pending', 'succeeded', 'refused', 'failed'];

/** The log's default order: `createdAt` descending (ties, as always, the attempt added last first). */
export const DELIVERY_NEWEST_FIRST: readonly SortKey[] = [{ field: 'createdAt', descending: true }];

const listOf = <T>(value: T | readonly T[] | undefined): readonly T[] | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? (value as readonly T[]) : [value as T];

/** Whether a row matches a query's filters (not its limit). */
export function matches(row: StoredDelivery, q: DeliveryQuery): boolean {
  const statuses = listOf(q.status);
  if (statuses && !statuses.includes(row.status)) return false;
  const types = listOf(q.eventType);
  if (types && !types.includes(row.eventType)) return false;
  const at = Date.parse(row.createdAt);
  if (q.since !== undefined && at < Date.parse(q.since)) return false;
  if (q.until !== undefined && at > Date.parse(q.until)) return false;
  if (q.createdAt) {
    // Instants in `toISOString()` form compare as they are written.
    const { gt, gte, lt, lte } = q.createdAt.bounds;
    const c = row.createdAt;
    if ((gt !== undefined && !(c > gt)) || (gte !== undefined && !(c >= gte))) return false;
    if ((lt !== undefined && !(c < lt)) || (lte !== undefined && !(c <= lte))) return false;
  }
  return true;
}

/** The conditions of a query as a store's filter (types.ts `Filter`): `AnyOf` for lists, a `Range` on `createdAt`. */
export function deliveryFilter(q: DeliveryQuery): Record<string, unknown> {
  const any = <T>(value: T | readonly T[] | undefined) => {
    const list = listOf(value);
    return list === undefined ? undefined : list.length === 1 ? list[0] : AnyOf.of(list);
  };
  return { status: any(q.status), eventType: any(q.eventType), createdAt: q.createdAt };
}

/**
 * The sort values and `seq` of a position (`[...values of the sort's keys, seq]`; newest first, `[createdAt, seq]`),
 * checked for shape: a `PositionError` when it is not one a log made for this sort.
 */
export function readDeliveryPosition(
  position: Position,
  sort: readonly SortKey[] = DELIVERY_NEWEST_FIRST,
): { values: readonly string[]; seq: string } {
  if (!Array.isArray(position) || position.length !== sort.length + 1) throw new PositionError();
  const values = sort.map((k, i) => {
    const value: unknown = position[i];
    const fits =
      typeof value === 'string' &&
      (k.field === 'status' ? (DELIVERY_STATUSES as readonly string[]).includes(value) : isStoredInstant(value));
    if (!fits) throw new PositionError();
    return value as string;
  });
  const seq: unknown = position[sort.length];
  if (!isSeq(seq)) throw new PositionError();
  return { values, seq: String(seq) };
}
