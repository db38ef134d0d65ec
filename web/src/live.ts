/**
 * The live event stream (`GET /api/stream`): a view subscribes with `useLive` and hears every change as it
 * commits, other people's and its own. `EventSource` resumes a dropped stream with `Last-Event-ID` by itself; when
 * the service refused it outright (503, or a restart that closed it), the stream is opened again after a pause,
 * from the last event seen. `stream.reset` (the service cannot resume from there) asks the view to load again.
 */
import { signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { streamToken } from './api.ts';
import { query } from './api.ts';

export type StreamState = 'connecting' | 'live' | 'reconnecting';
export const streamState = signal<StreamState>('connecting');

export interface LiveEvent {
  readonly type: string;
  readonly data: { id: string } & Record<string, unknown>;
}

const TYPES = ['project', 'task', 'comment', 'milestone', 'team', 'time_entry', 'notification'].flatMap((r) =>
  ['created', 'updated', 'deleted'].map((verb) => `${r}.${verb}`),
);
const RESET = 'stream.reset';
const REOPEN_MS = 2_000;

export interface LiveHandlers {
  readonly onEvent: (event: LiveEvent) => void;
  /** The stream could not resume: what the view shows may be stale and is loaded again. */
  readonly onReset: () => void;
}

/** Subscribes the calling view to the stream (of one project's changes, when `projectId` is given). */
export function useLive(projectId: string | undefined, handlers: LiveHandlers): void {
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    let source: EventSource | undefined;
    let lastId: string | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let everOpen = false;
    const open = () => {
      const url = `/api/stream${query({ projectId, access_token: streamToken(), lastEventId: lastId })}`;
      source = new EventSource(url);
      streamState.value = everOpen ? 'reconnecting' : 'connecting';
      source.onopen = () => {
        // A stream opened anew after a failure may have missed changes the resume could not replay.
        everOpen = true;
        streamState.value = 'live';
      };
      source.onerror = () => {
        streamState.value = 'reconnecting';
        if (source?.readyState === EventSource.CLOSED) {
          source.close();
          timer = setTimeout(open, REOPEN_MS);
        }
      };
      const listener = (message: MessageEvent<string>) => {
        if (message.lastEventId) lastId = message.lastEventId;
        const body = JSON.parse(message.data) as { type: string; data: LiveEvent['data'] };
        current.current.onEvent({ type: body.type, data: body.data });
      };
      for (const type of TYPES) source.addEventListener(type, listener);
      source.addEventListener(RESET, (message) => {
        if (message.lastEventId) lastId = message.lastEventId;
        current.current.onReset();
      });
    };
    open();
    return () => {
      clearTimeout(timer);
      source?.close();
    };
  }, [projectId]);
}
