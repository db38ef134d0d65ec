/**
 * Records by id kept current from loads and the event stream, for the views that show a collection of one project's
 * records (its milestones, a task's time entries, the time report).
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { pages } from '../api.ts';
import { useLive } from '../live.ts';
import { describe } from './error.tsx';

interface Versioned {
  readonly id: string;
  readonly updatedAt: string;
}

/**
 * Records by id (null until the first `reset`), kept current from a load's pages and from the stream: a version older
 * than the one held is ignored, and a record dropped since the load began does not come back with a page read before.
 */
export function useRecords<T extends Versioned>() {
  const [records, setRecords] = useState<ReadonlyMap<string, T> | null>(null);
  const dropped = useRef(new Set<string>());
  /** Puts records in: a load's (`live` false) or the stream's, which is newest and so may bring a dropped one back. */
  const put = useCallback((list: readonly T[], live = false) => {
    if (live) for (const r of list) dropped.current.delete(r.id);
    setRecords((map) => {
      let next: Map<string, T> | undefined;
      for (const record of list) {
        const had = map?.get(record.id);
        if ((had && had.updatedAt > record.updatedAt) || dropped.current.has(record.id)) continue;
        next ??= new Map(map ?? []);
        next.set(record.id, record);
      }
      return next ?? map ?? new Map();
    });
  }, []);
  const drop = useCallback((id: string) => {
    dropped.current.add(id);
    setRecords((map) => {
      if (!map?.has(id)) return map;
      const next = new Map(map);
      next.delete(id);
      return next;
    });
  }, []);
  /** A load begins: nothing is held (null: loading), nothing dropped. */
  const reset = useCallback(() => {
    dropped.current.clear();
    setRecords(null);
  }, []);
  return { records, put, drop, reset };
}

const PAGE = 1000;

export interface LiveRecordsOptions<T> {
  /** The collection (`/api/milestones`) and the filter that makes the set (`{ projectId }`). */
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  /** The project whose stream carries the records' changes. */
  readonly projectId: string;
  /** The records' event type, before the verb (`milestone`). */
  readonly type: string;
  /** Whether a record heard on the stream is of the set. */
  readonly belongs: (record: T) => boolean;
}

/**
 * The whole set, read in pages of 1,000 and kept current from the project's stream (read again after a
 * `stream.reset`). `error`: why the set could not be read.
 */
export function useLiveRecords<T extends Versioned>(options: LiveRecordsOptions<T>) {
  const { path, params, projectId, type, belongs } = options;
  const { records, put, drop, reset } = useRecords<T>();
  const [error, setError] = useState<string | null>(null);
  const key = JSON.stringify(params);
  const loading = useRef<AbortController | null>(null);
  const load = useCallback(async () => {
    loading.current?.abort();
    const controller = (loading.current = new AbortController());
    reset();
    try {
      for await (const page of pages<T>(path, params, PAGE, controller.signal)) put(page.records);
      put([]);
      setError(null);
    } catch (err) {
      if (!controller.signal.aborted) setError(describe(err));
    }
  }, [path, key]);
  useEffect(() => {
    void load();
    return () => loading.current?.abort();
  }, [load]);
  useLive(projectId, {
    onReset: () => void load(),
    onEvent: ({ type: happened, data }) => {
      if (!happened.startsWith(`${type}.`) || !belongs(data as unknown as T)) return;
      if (happened === `${type}.deleted`) drop(data.id);
      else put([data as unknown as T], true);
    },
  });
  return { records, put, drop, error };
}
