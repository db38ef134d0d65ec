import type { ServerResponse } from 'node:http';
import { matches, type StreamFilter } from './catalog.ts';
import { compare, type Delivery, type Position } from './source.ts';

/** Why a stream ended, for its access line. */
export type EndReason = 'client' | 'shutdown' | 'slow' | 'error';

/**
 * One client's stream. Subscribed from its start: events offered while it is still being sent its replay wait
 * (theirs only, bounded like the rest), then follow it; nothing at or before the last position sent goes out
 * again, so the seam between replay and live neither loses nor repeats an event. Whatever is written and not yet
 * taken by the client is bounded by `maxBytes`: a client that does not read is disconnected (it may resume).
 */
export class StreamClient {
  private live = false;
  private pending: Delivery[] = [];
  private pendingBytes = 0;
  private after: Position;
  private ended: EndReason | undefined;
  /** Events sent during this turn of the event loop, written together by `flush` (one write per client and turn). */
  private out = '';
  sent = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly filter: StreamFilter,
    private readonly maxBytes: number,
    start: Position,
  ) {
    this.after = start;
  }

  get endReason(): EndReason {
    return this.ended ?? 'client';
  }

  /** Events in position order, as the source emits them. */
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

  /** Text written now (after what `send` gathered): `retry:`, a comment, a reset event. */
  write(text: string): void {
    if (this.ended) return;
    if (this.out !== '') {
      text = this.out + text;
      this.out = '';
    }
    this.res.write(text);
    if (this.res.writableLength > this.maxBytes) this.drop('slow');
  }

  /** Ends the response normally, and the connection with it (the service is stopping). */
  end(reason: EndReason): void {
    if (this.ended) return;
    this.ended = reason;
    const socket = this.res.socket;
    this.res.end(() => socket?.destroy());
  }

  /** Cuts the connection. */
  drop(reason: EndReason): void {
    if (this.ended) return;
    this.ended = reason;
    this.res.destroy();
  }

  private send(event: Delivery): void {
    if (compare(event.position, this.after) <= 0) return;
    this.after = event.position;
    if (!matches(this.filter, event.type, event.projectId)) return;
    this.sent++;
    this.out += event.frame;
  }
}
