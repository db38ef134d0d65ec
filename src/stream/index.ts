import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../model/time.ts';
import type { EventBus } from '../events/bus.ts';
import type { DomainEvent } from '../events/types.ts';
import type { TypedApp } from '../http/typed.ts';
import { SqlStore } from '../store/sql/store.ts';
import type { Store } from '../store/store.ts';
import type { StreamEntry } from '../store/types.ts';
import { StreamEntries } from './entries.ts';
import { StreamHub, type StreamClosed } from './hub.ts';
import { MemorySource } from './memory-source.ts';
import type { StreamSource } from './source.ts';
import { SqlSource } from './sql-source.ts';
import { streamRoutes, type TokenWatch } from './routes.ts';

/** The settings the stream reads, as the service's settings name them (config.ts), handed in by the entry. */
export interface StreamSettings {
  readonly streamReplay: number;
  readonly streamHeartbeatMs: number;
  readonly streamMaxClients: number;
  readonly streamRetentionMs: number;
  readonly streamClientBufferBytes: number;
  readonly streamFlushMs: number;
  readonly streamFlushMaxMs: number;
  readonly streamCompression: boolean;
}

export interface StreamDeps {
  store: Store;
  events: EventBus;
  config: StreamSettings;
  clock: Clock;
  /** The API tokens: a stream opened with one ends when it is revoked or expires. */
  tokens: TokenWatch;
  /** Writes a stream's access line once it has closed (the reply was hijacked: Fastify does not see the end). */
  accessLine: (request: FastifyRequest, reply: FastifyReply) => void;
}

export const STREAM_TAG = {
  name: 'Events',
  description: 'The live event stream: every change, as server-sent events.',
};

/**
 * The event stream (`GET /api/stream`): each change's entries are made in its transaction (and, on the durable
 * stores, written there to the event table), then sent once it has committed, from memory or from the table.
 * Answers the hub, started; the caller closes it when the service stops.
 */
export async function registerStream(app: TypedApp, deps: StreamDeps): Promise<StreamHub> {
  const { store, events, config } = deps;
  const source: StreamSource =
    store instanceof SqlStore
      ? new SqlSource(store.driver, {
          retentionMs: config.streamRetentionMs,
          onError: (err) =>
            app.log.error({ err }, 'event stream: pruning the event table or announcing new events failed'),
          onReadFailing: (err, failures) =>
            app.log.error(
              { err, failures },
              failures === 1
                ? 'event stream: reading the event table failed; trying again every second'
                : 'event stream: reading the event table still fails',
            ),
          onReadRecovered: (failures) =>
            app.log.info({ failures }, 'event stream: the event table is read again after failed reads'),
        })
      : new MemorySource(config.streamReplay, deps.clock.now().getTime());
  const entries = new StreamEntries();
  const made = new WeakMap<DomainEvent, StreamEntry[]>();
  events.subscribeInTransaction('stream', async (event, unit) => {
    const list = await entries.of(event, unit.tx);
    made.set(event, list);
    await unit.tx.streamLog.append(list);
  });
  events.subscribe('stream', (event) => {
    const list = made.get(event);
    if (list) source.committed(list);
  });

  const closed: StreamClosed = (request, reply) => {
    // A stream the service ended has finished its response, and Fastify has written its line; not one cut short.
    if (!reply.raw.writableFinished) deps.accessLine(request, reply);
  };
  const hub = new StreamHub(
    source,
    {
      maxClients: config.streamMaxClients,
      heartbeatMs: config.streamHeartbeatMs,
      clientBufferBytes: config.streamClientBufferBytes,
      flushMs: config.streamFlushMs,
      flushMaxMs: config.streamFlushMaxMs,
      compression: config.streamCompression,
      retryMs: 2_000,
      retryAfterS: 5,
    },
    deps.clock,
    closed,
  );
  await hub.start();
  deps.tokens.onRevoked((id) => hub.revoke(id));
  streamRoutes(app, hub, STREAM_TAG.name, deps.tokens);
  return hub;
}
