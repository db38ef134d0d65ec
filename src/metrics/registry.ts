import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DeliveryRecord } from '../model/delivery.ts';
import type { Backlog } from '../store/outbox.ts';
import type { StoreStats } from '../store/store.ts';
import { RequestDurations } from './request-durations.ts';

/**
 * What the metrics read from the rest of the service when they are scraped, handed in by the entry: each a small
 * function, so that no part below the edge imports this folder.
 */
export interface MetricSources {
  /** The outbox's pending deliveries now; rejects while the store is unavailable (the gauges then keep their value). */
  backlog(): Promise<Backlog>;
  /** The event stream's clients connected now, and the events sent to clients since the start. */
  stream?: { clients(): number; eventsSent(): number };
  /** A SQL store's counters (`Store.stats`); absent on the memory store. */
  store?: () => StoreStats;
}

/** How a settled attempt is counted: its outcome, by the delivery record it left. */
export type DeliveryOutcome = 'succeeded' | 'failed' | 'retried' | 'refused' | 'cancelled';

/** Seconds, from a millisecond to ten: requests answered from memory, and those waiting on a database. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds, from 5 ms to 5 min: a delivery made at once, and one that waited for a slot or a busy receiver. */
const DELAY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * The process's and the runtime's metrics (CPU, memory, event-loop lag, GC): one set for the process, shared by every
 * app built in it, as the process is one (each set would add a GC observer of its own).
 */
function processRegistry(): Registry {
  if (shared === undefined) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
    // Gauges named as counters (`promtool check metrics` refuses them); the same counts by type stay
    // (`nodejs_active_handles`, `nodejs_active_requests`, `nodejs_active_resources`).
    for (const name of [
      'nodejs_active_handles_total',
      'nodejs_active_requests_total',
      'nodejs_active_resources_total',
    ]) {
      shared.removeSingleMetric(name);
    }
  }
  return shared;
}
let shared: Registry | undefined;

/** The service's metrics: what the edge and the delivery workers record, and what is read at each scrape. */
export class Metrics {
  private readonly registry = new Registry();
  readonly requestDuration: RequestDurations;
  readonly unavailable: Counter<'reason'>;
  private readonly attempts: Counter;
  private readonly outcomes: Counter<'outcome'>;
  private readonly delay: Histogram;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    this.requestDuration = new RequestDurations({
      name: 'http_server_request_duration_seconds',
      help: "Time from a request's arrival to its answer, by method, route template and status class",
      labelNames: ['method', 'route', 'status_class'],
      buckets: REQUEST_BUCKETS,
      registers,
    });
    this.unavailable = new Counter({
      name: 'http_server_unavailable_responses_total',
      help: 'Requests answered 503 because the store could not answer, by reason (unreachable, timeout, contention, schema)',
      labelNames: ['reason'],
      registers,
    });
    this.attempts = new Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts made (requests sent, or refused by the URL guard before sending)',
      registers,
    });
    this.outcomes = new Counter({
      name: 'webhook_delivery_attempts_settled_total',
      help: 'Webhook delivery attempts settled, by outcome: succeeded, retried (failed, another attempt scheduled), failed (no attempt follows), refused (private address), cancelled (webhook deleted or inactive, not sent)',
      labelNames: ['outcome'],
      registers,
    });
    this.delay = new Histogram({
      name: 'webhook_delivery_delay_seconds',
      help: 'Time from the commit of a change to the first attempt of each delivery it caused',
      buckets: DELAY_BUCKETS,
      registers,
    });
    backlogGauges(sources, registers);
    if (sources.stream) streamMetrics(sources.stream, registers);
    if (sources.store) storeMetrics(sources.store, registers);
  }

  /** The exposition text, with its content type, of the process's and the service's metrics. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    const merged = Registry.merge([processRegistry(), this.registry]);
    return { contentType: merged.contentType, text: await merged.metrics() };
  }

  /** What the delivery workers tell (their `DeliveryObserver`). */
  readonly deliveries = {
    attempted: (row: Pick<DeliveryRecord, 'attempt' | 'createdAt'>, startedAt: Date): void => {
      this.attempts.inc();
      if (row.attempt === 1) this.delay.observe(Math.max(0, startedAt.getTime() - Date.parse(row.createdAt)) / 1000);
    },
    settled: (record: DeliveryRecord): void => {
      this.outcomes.inc({ outcome: outcomeOf(record) });
    },
  };
}

/** A settled attempt's outcome, read from its record. */
export function outcomeOf(record: Pick<DeliveryRecord, 'status' | 'nextAttemptAt' | 'stopReason'>): DeliveryOutcome {
  if (record.status === 'succeeded') return 'succeeded';
  if (record.status === 'refused') return 'refused';
  if (record.nextAttemptAt !== null) return 'retried';
  return record.stopReason?.startsWith('cancelled') ? 'cancelled' : 'failed';
}

function backlogGauges(sources: MetricSources, registers: Registry[]): void {
  new Gauge({
    name: 'webhook_outbox_deliveries',
    help: 'Deliveries pending in the outbox, counted at the scrape, by state: due (due now, claimed or not), waiting (a retry waiting for its time)',
    labelNames: ['state'],
    registers,
    async collect() {
      try {
        const backlog = await sources.backlog();
        this.set({ state: 'due' }, backlog.due);
        this.set({ state: 'waiting' }, backlog.waiting);
      } catch {
        // The store is away: the scrape still answers, with the last counts (its 503s say why).
      }
    },
  });
}

function streamMetrics(stream: NonNullable<MetricSources['stream']>, registers: Registry[]): void {
  new Gauge({
    name: 'event_stream_clients',
    help: 'Event stream clients connected',
    registers,
    collect() {
      this.set(stream.clients());
    },
  });
  new Counter({
    name: 'event_stream_events_sent_total',
    help: 'Events sent to event stream clients (one per client it went to)',
    registers,
    collect() {
      this.reset();
      this.inc(stream.eventsSent());
    },
  });
}

function storeMetrics(stats: () => StoreStats, registers: Registry[]): void {
  new Counter({
    name: 'db_transaction_conflict_retries_total',
    help: 'Transactions run again after a conflict with concurrent ones (SQL stores)',
    registers,
    collect() {
      this.reset();
      this.inc(stats().conflictRetries);
    },
  });
  if (stats().pool === undefined) return;
  new Gauge({
    name: 'db_pool_waiting_requests',
    help: 'Requests waiting for a connection of the PostgreSQL pool',
    registers,
    collect() {
      this.set(stats().pool!.waiting);
    },
  });
  new Gauge({
    name: 'db_pool_connections',
    help: 'Connections of the PostgreSQL pool that serves requests, by state (in_use, idle)',
    labelNames: ['state'],
    registers,
    collect() {
      const pool = stats().pool!;
      this.set({ state: 'in_use' }, pool.inUse);
      this.set({ state: 'idle' }, pool.idle);
    },
  });
}
