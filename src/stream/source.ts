import type { StreamEntry } from '../store/types.ts';

/** A position in the stream: ordered by `hi`, then `lo`. Its text form (the SSE `id`) depends on the source. */
export interface Position {
  readonly hi: bigint;
  readonly lo: bigint;
}

export const compare = (a: Position, b: Position): number =>
  a.hi !== b.hi ? (a.hi < b.hi ? -1 : 1) : a.lo !== b.lo ? (a.lo < b.lo ? -1 : 1) : 0;

/** One event as the clients get it, at its position. */
export interface Delivery extends StreamEntry {
  readonly position: Position;
  /** The position's text: the event's `id`. */
  readonly id: string;
  /** The event as sent: `id:`, `event:`, `data:` lines and the blank line; made once for every client. */
  readonly frame: string;
}

/** An entry at its position, ready to send. */
export function deliveryOf(entry: StreamEntry, position: Position, id: string): Delivery {
  return new Framed(entry, position, id);
}

/**
 * A delivery whose frame (and so its entry's body) is made when a client first needs it, then kept for the others:
 * the memory store's ring keeps the last events for clients that may come, and while none reads them, none of their
 * text is made (bench/HISTORY.md, *the stream's text, made when a client needs it*).
 */
class Framed implements Delivery {
  readonly type: string;
  readonly projectId: string | null;
  private made: string | undefined;

  constructor(
    private readonly entry: StreamEntry,
    readonly position: Position,
    readonly id: string,
  ) {
    this.type = entry.type;
    this.projectId = entry.projectId;
  }

  get body(): string {
    return this.entry.body;
  }

  get frame(): string {
    // The body is JSON from JSON.stringify: one line (line breaks in strings are escaped).
    return (this.made ??= `id: ${this.id}\nevent: ${this.type}\ndata: ${this.entry.body}\n\n`);
  }
}

/** Why a client's `Last-Event-ID` cannot be resumed from. */
export interface Reset {
  readonly reset: 'unknown' | 'expired';
}

/**
 * Where the stream's events come from, in position order, each once: the memory ring (memory-source.ts) or the
 * durable store's table (sql-source.ts).
 */
export interface StreamSource {
  /** Starts; `emit` gets every event committed from now on, in order, in batches. */
  start(emit: (batch: readonly Delivery[]) => void): Promise<void>;
  /** The position of the last event emitted (before any: where the source started). */
  head(): Position;
  format(position: Position): string;
  /** A `Last-Event-ID` as a position; undefined when it cannot be one of this source's. */
  parse(text: string): Position | undefined;
  /**
   * The events after `after` up to `upTo` (a head), in order, page by page (`page` may wait until the client took
   * the previous one); or why `after` cannot be resumed from.
   */
  replay(after: Position, upTo: Position, page: (batch: readonly Delivery[]) => Promise<void>): Promise<Reset | void>;
  /** A change committed here: look for its events now. */
  committed(entries: readonly StreamEntry[]): void;
  close(): Promise<void>;
}
