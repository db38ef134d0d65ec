import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { iso, type Clock } from '../model/time.ts';
import { AppError } from '../errors.ts';
import { acceptsGzip } from '../http/accept-encoding.ts';
import { matches, RESET_EVENT, type StreamFilter } from './catalog.ts';
import { StreamClient, type StreamAccess, type StreamEncoding } from './client.ts';
import { Payload } from './gzip.ts';
import { FlushPace, loopTime, type LoopTime } from './pace.ts';
import { type Delivery, type Reset, type StreamSource } from './source.ts';

export interface HubOptions {
  maxClients: number;
  heartbeatMs: number;
  /** Per client: bytes written (compressed, to a gzip client) and not yet taken by it, beyond which it is cut. */
  clientBufferBytes: number;
  /** What `retry:` advises clients to wait before reconnecting, in ms. */
  retryMs: number;
  /** What a 503 for too many clients asks them to wait, in seconds. */
  retryAfterS: number;
  /**
   * Events committed within this many ms are written to the clients together (0: at the end of each turn of the
   * event loop); the timer runs only while events wait.
   */
  flushMs: number;
  /**
   * While the event loop is saturated the interval grows up to this many ms (fewer writes, each of more events), and
   * goes back to `flushMs` once it is not (pace.ts); at or below `flushMs`: always `flushMs`.
   */
  flushMaxMs: number;
  /** Streams are gzip for the clients that accept it. */
  compression: boolean;
}

/** Called when a stream's response is over, however it ended. */
export type StreamClosed = (request: FastifyRequest, reply: FastifyReply, client: StreamClient) => void;

const RESET_REASONS: Record<Reset['reset'], string> = {
  unknown: 'the last event id is not a position of this stream',
  expired: 'the last event id is older than the events kept for resuming',
};

/** The events of one flush for the live clients of one filter: made once (and compressed once), written to each. */
interface Shared {
  readonly text: Payload;
  readonly count: number;
}

/**
 * The connected clients and what they are sent: the events the source emits wait up to `flushMs` (longer, up to
 * `flushMaxMs`, while the event loop is saturated), then go to each client (filtered by each) in one write, a
 * comment every `heartbeatMs` keeps idle connections open through proxies, and at shutdown each stream ends at once
 * (a stream never holds the service's grace period). With `compression`, a client that accepts gzip gets a gzip
 * stream, and what many clients are sent (a flush's text for a filter, the heartbeat, `retry:`) is compressed once
 * for all of them.
 */
export class StreamHub {
  private readonly clients = new Set<StreamClient>();
  /** Events sent to the clients that have gone. */
  private sentByGone = 0;
  private heartbeat: NodeJS.Timeout | undefined;
  private closing = false;
  /** Events emitted since the last flush, in position order. */
  private waiting: Delivery[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private flushImmediate: NodeJS.Immediate | undefined;
  private readonly pace: FlushPace;
  private readonly heartbeatText = new Payload(Buffer.from(': keep-alive\n\n'));
  private readonly revokedText = new Payload(Buffer.from(': the token of this stream was revoked or has expired\n\n'));
  private readonly retryText: Payload;

  constructor(
    private readonly source: StreamSource,
    private readonly options: HubOptions,
    private readonly clock: Clock,
    private readonly closed: StreamClosed,
    /** The event loop's time since the previous call (injected by tests). */
    private readonly loop: () => LoopTime = loopTime(),
  ) {
    this.pace = new FlushPace(options.flushMs, options.flushMaxMs);
    this.retryText = new Payload(Buffer.from(`retry: ${options.retryMs}\n\n`));
  }

  async start(): Promise<void> {
    await this.source.start((batch) => this.broadcast(batch));
    this.heartbeat = setInterval(() => {
      for (const client of this.clients) {
        client.write(this.heartbeatText);
        if (client.access) this.checkAccess(client, client.access);
      }
    }, this.options.heartbeatMs).unref();
  }

  /** Ends, at once, every stream opened with the token of id `tokenId` (revoked through this instance). */
  revoke(tokenId: string): void {
    for (const client of this.clients) if (client.access?.tokenId === tokenId) this.endRevoked(client);
  }

  /**
   * Asks whether a stream's token still holds (revoked on another instance, or expired, it does not) and ends the
   * stream when it does not. A store that cannot answer ends nothing: the next heartbeat asks again.
   */
  private checkAccess(client: StreamClient, access: StreamAccess): void {
    if (client.checking) return;
    client.checking = true;
    access.holds().then(
      (holds) => {
        client.checking = false;
        if (!holds) this.endRevoked(client);
      },
      () => {
        client.checking = false;
      },
    );
  }

  private endRevoked(client: StreamClient): void {
    client.write(this.revokedText);
    client.end('revoked');
  }

  /**
   * How a stream answers `request`, and the headers that say so (for a `HEAD` too): gzip when compression is on and
   * its `Accept-Encoding` takes gzip; the answer then varies with that header.
   */
  encodingFor(request: FastifyRequest): { encoding: StreamEncoding; headers: OutgoingHttpHeaders } {
    if (!this.options.compression) return { encoding: 'identity', headers: {} };
    const encoding = acceptsGzip(request.headers['accept-encoding']) ? 'gzip' : 'identity';
    return {
      encoding,
      headers:
        encoding === 'gzip' ? { vary: 'Accept-Encoding', 'content-encoding': 'gzip' } : { vary: 'Accept-Encoding' },
    };
  }

  get size(): number {
    return this.clients.size;
  }

  /** Events sent to clients since the hub started, those connected now and those gone (read by the metrics). */
  get eventsSent(): number {
    let sent = this.sentByGone;
    for (const client of this.clients) sent += client.sent;
    return sent;
  }

  /**
   * Answers `request` with the stream: 200 `text/event-stream`, subscribed from the moment the headers are sent;
   * first the events after `lastEventId` (or one `stream.reset` when it cannot be resumed from), then live. The
   * answer is written to the raw response (the reply is hijacked) and lasts until the client leaves or the
   * service stops. Throws (before anything is sent) when the service has as many clients as it takes. With
   * `access`, the stream ends once its token no longer holds: at once when revoked through this instance
   * (`revoke`), else at the next heartbeat, which asks again.
   */
  async serve(
    request: FastifyRequest,
    reply: FastifyReply,
    filter: StreamFilter,
    lastEventId?: string,
    access?: StreamAccess,
  ): Promise<void> {
    if (this.closing || this.clients.size >= this.options.maxClients) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        'The event stream has all the clients it takes; try again shortly',
        [],
        {
          'retry-after': String(this.options.retryAfterS),
        },
      );
    }
    reply.hijack();
    const res = reply.raw;
    const { encoding, headers } = this.encodingFor(request);
    res.writeHead(200, {
      ...(reply.getHeaders() as OutgoingHttpHeaders),
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
      // A stream's connection serves nothing after it: it closes with the stream (never left open, idle).
      connection: 'close',
    });
    const start = this.source.head();
    const client = new StreamClient(res, filter, this.options.clientBufferBytes, start, encoding, access);
    this.clients.add(client);
    res.once('close', () => {
      this.clients.delete(client);
      this.sentByGone += client.sent;
      this.closed(request, reply, client);
    });
    client.write(this.retryText);

    if (lastEventId === undefined) return client.goLive(start);
    const after = this.source.parse(lastEventId);
    let reset: Reset | void = after === undefined ? { reset: 'unknown' } : undefined;
    if (after !== undefined) {
      client.resumeAfter(after);
      try {
        reset = await this.source.replay(after, start, (batch) => client.replay(batch));
      } catch (err) {
        request.log.error({ err }, 'event stream replay failed');
        return client.drop('error');
      }
    }
    if (reset) {
      const body = {
        type: RESET_EVENT,
        timestamp: iso(this.clock.now()),
        data: { reason: RESET_REASONS[reset.reset], lastEventId },
      };
      client.write(`id: ${this.source.format(start)}\nevent: ${RESET_EVENT}\ndata: ${JSON.stringify(body)}\n\n`);
      client.resumeAfter(start);
      return client.goLive(start);
    }
    client.goLive(start);
  }

  /** Ends every stream and stops following the source. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.heartbeat);
    this.flush();
    for (const client of this.clients) client.end('shutdown');
    await this.source.close();
  }

  /** Keeps each batch until the next flush; with no client, nobody needs it (a client that comes starts after it). */
  private broadcast(batch: readonly Delivery[]): void {
    if (this.closing || this.clients.size === 0 || batch.length === 0) return;
    for (const event of batch) this.waiting.push(event);
    if (this.flushTimer !== undefined || this.flushImmediate !== undefined) return;
    if (this.pace.ms === 0) this.flushImmediate = setImmediate(this.flush);
    else this.flushTimer = setTimeout(this.flush, this.pace.ms);
  }

  /**
   * Sends the events waiting. A live client that takes all of them gets its filter's text, made once for every such
   * client of that filter (one concatenation, one encoding and, for the gzip clients, one compression per filter,
   * then one write per client); a client still replaying, or one that started within the batch, is offered the
   * events one by one (client.ts), which keeps its seam.
   */
  private readonly flush = (): void => {
    clearTimeout(this.flushTimer);
    clearImmediate(this.flushImmediate);
    this.flushTimer = undefined;
    this.flushImmediate = undefined;
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    const first = batch[0]!.position;
    const last = batch.at(-1)!.position;
    const shared = new Map<string, Shared>();
    for (const client of this.clients) {
      if (!client.takesFrom(first)) {
        client.offer(batch);
        client.flush();
        continue;
      }
      let group = shared.get(client.filterKey);
      if (group === undefined) {
        group = share(batch, client.filter);
        shared.set(client.filterKey, group);
      }
      client.deliver(group.text, group.count, last);
    }
    if (this.pace.adaptive) this.pace.next(this.loop());
  };
}

function share(batch: readonly Delivery[], filter: StreamFilter): Shared {
  let text = '';
  let count = 0;
  for (const event of batch) {
    if (!matches(filter, event.type, event.projectId)) continue;
    text += event.frame;
    count++;
  }
  return { text: new Payload(Buffer.from(text)), count };
}
