import type { ServerResponse } from 'node:http';
import { filterKey, matches, type StreamFilter } from './catalog.ts';
import { deflate, GZIP_HEADER, GzipTrail, type Payload } from './gzip.ts';
import { compare, type Delivery, type Position } from './source.ts';

/** Why a stream ended, for its access line. */
export type EndReason = 'client' | 'shutdown' | 'slow' | 'error' | 'revoked';

/** The API token a stream was opened with (`AUTH=token`), which must still hold for the stream to go on. */
export interface StreamAccess {
  readonly tokenId: string;
  /** Whether the token still authenticates (not revoked, not expired); rejects when that cannot be told. */
  readonly holds: () => Promise<boolean>;
}

/** How a stream's bytes are sent: as they are, or as one gzip stream (gzip.ts). */
export type StreamEncoding = 'identity' | 'gzip';

/**
 * One client's stream. Subscribed from its start: events offered while it is still being sent its replay wait
 * (theirs only, bounded like the rest), then follow it; nothing at or before the last position sent goes out
 * again, so the seam between replay and live neither loses nor repeats an event. Whatever is written and not yet
 * taken by the client is bounded by `maxBytes` (the bytes as written: compressed, for a gzip stream): a client that
 * does not read is disconnected (it may resume). A gzip stream sends text shared with other clients (a `Payload`)
 * compressed once for all of them, and its own text (`retry:`, a replay, a reset) compressed for it alone.
 */
export class StreamClient {
  private live = false;
  private pending: Delivery[] = [];
  private pendingBytes = 0;
  private after: Position;
  private ended: EndReason | undefined;
  /** Events gathered by `send`, written together by `flush` (one write for a batch). */
  private out = '';
  sent = 0;
  /** Clients with the same key have filters that let the same events through (catalog.ts `filterKey`). */
  readonly filterKey: string;
  /** A gzip stream's CRC and length so far; undefined for identity. */
  private readonly gzip: GzipTrail | undefined;
  /** Whether the stream's token is being checked again (hub.ts): one check at a time. */
  checking = false;

  constructor(
    private readonly res: ServerResponse,
    readonly filter: StreamFilter,
    private readonly maxBytes: number,
    start: Position,
    encoding: StreamEncoding = 'identity',
    /** The token the stream was opened with; none without `AUTH=token` or with `ADMIN_TOKEN`, which never ends. */
    readonly access?: StreamAccess,
  ) {
    this.after = start;
    this.filterKey = filterKey(filter);
    // The headers go now: shared text is written straight to the connection, after them (`putShared`).
    res.flushHeaders();
    if (encoding === 'gzip') {
      this.gzip = new GzipTrail();
      res.write(GZIP_HEADER);
    }
  }

  get endReason(): EndReason {
    return this.ended ?? 'client';
  }

  /**
   * Whether this client takes every event from `first` on, live: it may be sent text made once for every client of
   * its filter (`deliver`). Not while it replays, nor when it started (or resumed) at or after `first`.
   */
  takesFrom(first: Position): boolean {
    return this.live && !this.ended && compare(first, this.after) > 0;
  }

  /**
   * The events of a batch that pass this client's filter, as text made once for all the clients of that filter
   * (`count` events; `last` the batch's last position). Only when `takesFrom` the batch's first position.
   */
  deliver(text: Payload, count: number, last: Position): void {
    this.after = last;
    if (count === 0) return;
    this.sent += count;
    this.write(text);
  }

  /** Events in position order, as the source emits them; what a live client takes is written by `flush`. */
  offer(batch: readonly Delivery[]): void {
    if (this.ended) return;
    if (!this.live) {
      for (const event of batch) {
        if (!matches(this.filter, event.type, event.projectId)) continue;
        this.pending.push(event);
        this.pendingBytes += event.frame.length;
      }
      if (this.pendingBytes > this.maxBytes) this.drop('slow');
      return;
    }
    for (const event of batch) this.send(event);
  }

  /** The client resumes after `position`: the replay goes on from there. */
  resumeAfter(position: Position): void {
    this.after = position;
  }

  /** A page of the replay; resolves once the client has room for more. */
  async replay(batch: readonly Delivery[]): Promise<void> {
    for (const event of batch) this.send(event);
    this.flush();
    while (!this.ended && this.res.writableLength > this.maxBytes / 2) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.res.off('drain', done).off('close', done);
          resolve();
        };
        this.res.once('drain', done).once('close', done);
      });
    }
  }

  /** Done replaying (or nothing to replay): from `after`, live. */
  goLive(after: Position): void {
    if (compare(after, this.after) > 0) this.after = after;
    this.live = true;
    const pending = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    for (const event of pending) this.send(event);
    this.flush();
  }

  /** Writes what `send` gathered. */
  flush(): void {
    if (this.out === '') return;
    const text = this.out;
    this.out = '';
    this.write(text);
  }

  /**
   * Text written now (after what `send` gathered): `retry:`, a comment, a reset event, a batch's events; a `Payload`
   * when the same text goes to other clients too.
   */
  write(text: string | Payload): void {
    if (this.ended) return;
    if (this.out !== '') {
      const gathered = this.out;
      this.out = '';
      if (typeof text === 'string') text = gathered + text;
      else this.put(gathered);
    }
    this.put(text);
    if (this.res.writableLength > this.maxBytes) this.drop('slow');
  }

  /**
   * Ends the response normally, and the connection with it (the service is stopping); a gzip stream with its final
   * block and trailer, so that the client sees it complete.
   */
  end(reason: EndReason): void {
    if (this.ended) return;
    this.ended = reason;
    const socket = this.res.socket;
    if (this.gzip) this.res.end(this.gzip.end(), () => socket?.destroy());
    else this.res.end(() => socket?.destroy());
  }

  /** Cuts the connection. */
  drop(reason: EndReason): void {
    if (this.ended) return;
    this.ended = reason;
    this.res.destroy();
  }

  private put(text: string | Payload): void {
    if (typeof text !== 'string') return this.putShared(text);
    if (this.gzip === undefined) {
      this.res.write(text);
      return;
    }
    const piece = deflate(Buffer.from(text));
    if (piece.length > 0) this.res.write(this.gzip.add(piece));
  }

  /**
   * Text shared with other clients: its bytes (compressed, on a gzip stream) framed once for all of them (a chunk of
   * the chunked body, unless the response is not chunked: HTTP/1.0), written straight to the connection. The
   * response's own `write` would frame them again for each client, in four pieces corked until the next tick: at
   * hundreds of clients, most of a flush's cost. The headers went first (constructor), and the response's own
   * writes (`retry:`, a replay) go to the same connection's buffer, so the order holds; until the response has its
   * connection (a request pipelined behind another), the response writes them.
   */
  private putShared(text: Payload): void {
    const gzip = this.gzip !== undefined;
    if (gzip) {
      const piece = text.deflated;
      if (piece.length === 0) return;
      this.gzip.add(piece);
    } else if (text.text.length === 0) {
      return;
    }
    const socket = this.res.socket;
    if (!socket?.writable) {
      this.res.write(gzip ? text.deflated.bytes : text.text);
      return;
    }
    socket.write(this.res.chunkedEncoding ? text.chunk(gzip) : gzip ? text.deflated.bytes : text.text);
  }

  private send(event: Delivery): void {
    if (compare(event.position, this.after) <= 0) return;
    this.after = event.position;
    if (!matches(this.filter, event.type, event.projectId)) return;
    this.sent++;
    this.out += event.frame;
  }
}
