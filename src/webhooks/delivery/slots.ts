import type { CurrentWebhook, StoredDelivery } from '../../store/outbox.ts';
import type { DeliveryContext, InFlight } from './context.ts';

/**
 * A row claimed ahead is started only while its lease has the attempt's timeout and this much left; past that
 * (it waited behind a receiver that became slow) it is given back to the outbox instead.
 */
const LEASE_START_MARGIN_MS = 1_000;

/** What the slots call on: the clock (as the wake-up timers see it), the attempt, and a claim pass. */
export interface SlotHooks {
  now(): number;
  /** Makes a started row's attempt; never rejects. */
  run(flight: InFlight): Promise<void>;
  wake(): void;
}

/**
 * The slots: at most `concurrency` requests under way, `perWebhookConcurrency` to one webhook. Rows claimed ahead
 * wait here, in the order claimed, for a slot of all and of their webhook; a row whose lease no longer covers an
 * attempt is given back. Counts per webhook what it holds (sending or ready) and what it answered since the last
 * claim pass: the claims' shares (claim.ts).
 */
export class Slots {
  /** Claimed ahead, in the order claimed, waiting for a slot. */
  private ready: InFlight[] = [];
  /** Requests under way (the slots taken), in all and per webhook. */
  private sending = 0;
  private readonly sendingTo = new Map<string, number>();
  /** Rows held per webhook, sending or ready: what a claim counts against a webhook's share. */
  readonly held = new Map<string, number>();
  /** Answers per webhook since the last claim pass began (timeouts aside): how fast each receiver takes its rows. */
  private answered = new Map<string, number>();
  /** Attempts started whose outcome is not written yet (their request may be over). */
  private readonly started = new Map<string, InFlight>();
  private settledWaiters: (() => void)[] = [];

  constructor(
    private readonly c: DeliveryContext,
    private readonly hooks: SlotHooks,
  ) {}

  /** Rows a claim may take now: the free slots and as many ahead (`concurrency` in all), less those waiting. */
  room(): number {
    return 2 * this.c.s.concurrency - this.sending - this.ready.length;
  }

  /** Attempts started whose outcome is not written yet. */
  get inFlight(): number {
    return this.started.size;
  }

  /** The answers counted since the last call, per webhook: a claim pass takes them as it begins. */
  takeAnswered(): Map<string, number> {
    const answered = this.answered;
    this.answered = new Map();
    return answered;
  }

  /** Adds a claimed row to those waiting for a slot. */
  add(row: StoredDelivery, hook: Promise<CurrentWebhook | undefined>, readAt: number, seen: number): void {
    this.ready.push({ row, hook, readAt, seen, freed: false });
    count(this.held, row.webhookId, 1);
  }

  /**
   * Starts the ready rows, in the order claimed, that a slot (of all, and of their webhook) is free for. One whose
   * lease no longer covers an attempt (it waited behind a receiver that became slow) is given back instead, so an
   * attempt never outlasts its lease and another instance never makes it at the same time.
   */
  startReady(): void {
    const { c } = this;
    if (c.closed) return;
    const now = this.hooks.now();
    const stale: string[] = [];
    for (let i = 0; i < this.ready.length && this.sending < c.s.concurrency;) {
      const flight = this.ready[i]!;
      const { id, webhookId, leaseUntil } = flight.row;
      if ((this.sendingTo.get(webhookId) ?? 0) >= c.s.perWebhookConcurrency) {
        i++;
        continue;
      }
      this.ready.splice(i, 1);
      if (Date.parse(leaseUntil!) - now < c.s.timeoutMs + LEASE_START_MARGIN_MS) {
        count(this.held, webhookId, -1);
        stale.push(id);
      } else {
        this.begin(flight);
      }
    }
    if (stale.length === 0) return;
    c.work.hold(
      c.outbox.release(stale, c.owner).then(
        () => this.hooks.wake(),
        (err: unknown) => c.s.log.warn({ err }, 'webhook deliveries could not be given back (their lease runs out)'),
      ),
    );
  }

  /**
   * Gives back an attempt's slot once its request is over (or was never to be made), before its outcome is written:
   * the next ready row takes the slot at once, and a pass claims more. `answered`: counted towards the rows its
   * webhook is claimed ahead (not a timeout: a receiver that hangs gains nothing ahead).
   */
  free(flight: InFlight, answered = true): void {
    if (flight.freed) return;
    flight.freed = true;
    const { webhookId } = flight.row;
    if (answered) count(this.answered, webhookId, 1);
    this.sending--;
    count(this.sendingTo, webhookId, -1);
    count(this.held, webhookId, -1);
    this.startReady();
    this.hooks.wake();
  }

  /** Empties the rows waiting for a slot (the shutdown gives them back); answers their ids. */
  takeReady(): string[] {
    const ids = this.ready.map((flight) => flight.row.id);
    this.ready = [];
    return ids;
  }

  /** Resolves when the next attempt in flight settles. */
  settledOne(): Promise<void> {
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** Resolves when nothing is in flight. */
  async allSettled(): Promise<void> {
    while (this.started.size > 0) await this.settledOne();
  }

  /** Starts a ready row's attempt in a free slot. */
  private begin(flight: InFlight): void {
    const { row } = flight;
    this.started.set(row.id, flight);
    this.sending++;
    count(this.sendingTo, row.webhookId, 1);
    void this.hooks.run(flight).finally(() => {
      this.free(flight);
      this.started.delete(row.id);
      for (const wake of this.settledWaiters.splice(0)) wake();
    });
  }
}

/** Adds `by` to a count kept per key, dropping the key at zero. */
function count(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
