/**
 * The live event stream (`GET /api/stream`): a view subscribes with `useLive` and hears every change as it
 * commits, other people's and its own. The views on screen that ask for the same project share one stream.
 * `EventSource` resumes a dropped stream with `Last-Event-ID` by itself; when the service refused it outright (503,
 * a 401, or a restart that closed it), the stream is opened again after a pause, from the last event seen.
 * `stream.reset` (the service cannot resume from there) asks the views to load again.
 */
import { signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { query, streamToken } from './api.ts';

export type StreamState = 'connecting' | 'live' | 'reconnecting';
export const streamState = signal<StreamState>('connecting');

export interface LiveEvent {
  readonly type: string;
  readonly data: { id: string } & Record<string, unknown>;
}

export interface LiveHandlers {
  readonly onEvent: (event: LiveEvent) => void;
  /** The stream could not resume: what the view shows may be stale and is loaded again. */
  readonly onReset: () => void;
}

const TYPES = ['project', 'task', 'comment', 'milestone', 'team', 'time_entry', 'notification'].flatMap((r) =>
  ['created', 'updated', 'deleted'].map((verb) => `${r}.${verb}`),
);
const RESET = 'stream.reset';
const REOPEN_MS = 2_000;

/** One stream, open while any view listens to it. */
class Stream {
  readonly listeners = new Set<{ current: LiveHandlers }>();
  private source: EventSource | undefined;
  private lastId: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private everOpen = false;

  constructor(
    private readonly projectId: string | undefined,
    private readonly types: string | undefined,
  ) {
    this.open();
  }

  private open() {
    const url = `/api/stream${query({
      projectId: this.projectId,
      types: this.types,
      access_token: streamToken(),
      lastEventId: this.lastId,
    })}`;
    const source = (this.source = new EventSource(url));
    streamState.value = this.everOpen ? 'reconnecting' : 'connecting';
    source.onopen = () => {
      this.everOpen = true;
      streamState.value = 'live';
    };
    source.onerror = () => {
      streamState.value = 'reconnecting';
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        this.timer = setTimeout(() => this.open(), REOPEN_MS);
      }
    };
    const onEvent = (message: MessageEvent<string>) => {
      if (message.lastEventId) this.lastId = message.lastEventId;
      const body = JSON.parse(message.data) as { type: string; data: LiveEvent['data'] };
      for (const listener of this.listeners) listener.current.onEvent({ type: body.type, data: body.data });
    };
    for (const type of TYPES) source.addEventListener(type, onEvent);
    source.addEventListener(RESET, (message) => {
      if (message.lastEventId) this.lastId = message.lastEventId;
      for (const listener of this.listeners) listener.current.onReset();
    });
  }

  close() {
    clearTimeout(this.timer);
    this.source?.close();
  }
}

const streams = new Map<string, Stream>();

/**
 * Subscribes the calling view to the stream: of one project's changes when `projectId` is given, of every change when
 * it is undefined, of none (yet) when it is null; of the event types `types` names only, when given (`notification.*`).
 */
export function useLive(projectId: string | null | undefined, handlers: LiveHandlers, types?: string): void {
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    if (projectId === null) return;
    const key = `${projectId ?? ''}|${types ?? ''}`;
    let stream = streams.get(key);
    if (!stream) streams.set(key, (stream = new Stream(projectId, types)));
    stream.listeners.add(current);
    return () => {
      stream.listeners.delete(current);
      if (stream.listeners.size === 0) {
        stream.close();
        streams.delete(key);
      }
    };
  }, [projectId, types]);
}
