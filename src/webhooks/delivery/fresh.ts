import type { CurrentWebhook } from '../../store/outbox.ts';
import { KEPT, type InFlight } from './context.ts';

/**
 * How long a webhook read with a claim serves the attempts claimed with it. A row claimed ahead can wait seconds for
 * a slot (behind a slow receiver); past this, its attempt reads the webhook again, so that a URL changed or a
 * webhook switched off or deleted on another instance stops the attempts that start after the change. A change
 * committed in this process is seen at once (`changed`).
 */
const FRESH_MS = 50;

/** The webhook as each attempt reads it: read with the claim, again when that read is stale. */
export class FreshWebhooks {
  /** Changes to each webhook committed in this process (`changed`): a read before one is stale. */
  private readonly changes = new Map<string, number>();
  /** The last read of each webhook made for an attempt starting late, shared by those starting within `FRESH_MS`. */
  private readonly reread = new Map<string, { at: number; seen: number; hook: Promise<CurrentWebhook | undefined> }>();

  /** `read`: the webhook as it is now, `undefined` once deleted. */
  constructor(readonly read: (webhookId: string) => Promise<CurrentWebhook | undefined>) {}

  /** The changes to the webhook committed here so far: what a read made now has seen. */
  seen(webhookId: string): number {
    return this.changes.get(webhookId) ?? 0;
  }

  /** A webhook changed in a change committed in this process (a URL, `active`, a delete): read it again. */
  changed(webhookId: string): void {
    this.changes.set(webhookId, this.seen(webhookId) + 1);
    this.reread.delete(webhookId);
  }

  /**
   * Reads the webhook again for an attempt starting more than `FRESH_MS` after its claim read it, or after a change
   * to it here; one read serves the attempts to the webhook that start within `FRESH_MS` of it.
   */
  refresh(flight: InFlight): void {
    const { webhookId } = flight.row;
    const now = performance.now();
    const seen = this.seen(webhookId);
    if (now - flight.readAt <= FRESH_MS && flight.seen === seen) return;
    let last = this.reread.get(webhookId);
    if (!last || now - last.at > FRESH_MS || last.seen !== seen) {
      last = { at: now, seen, hook: this.read(webhookId) };
      this.reread.set(webhookId, last);
      if (this.reread.size > KEPT) this.reread.clear();
    }
    Object.assign(flight, { hook: last.hook, readAt: last.at, seen });
  }
}
