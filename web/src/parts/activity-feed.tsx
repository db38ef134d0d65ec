/**
 * An activity feed: who did what to which record, newest first, 50 at a time, filtered by actor, kind of record and
 * dates (kept in the address), with the entries of new changes added at the top as they happen.
 *
 * The whole log pages with `limit` and the cursor of the `Link` the service sends. A project's feed is the entries
 * about the project, its tasks and its milestones: the log has no project filter, so it asks for those records' ids
 * (`resourceId[in]`, 50 ids a request) and merges the answers, each page going on from the last one's oldest time.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, pages, query } from '../api.ts';
import { useLive } from '../live.ts';
import { navigate, place } from '../router.ts';
import type { ActivityEntry, Milestone, Task } from '../types.ts';
import { ErrorText, describe } from './error.tsx';
import { hasPage, resolvePage } from './links.ts';
import { when } from './time.ts';

const PAGE = 50;
const IDS_PER_REQUEST = 50;
const REFRESH_MS = 300;
const KINDS = ['project', 'task', 'comment', 'milestone', 'team', 'time_entry', 'webhook'];
const KIND_LABEL: Record<string, string> = { time_entry: 'time entry' };

interface Filters {
  actor: string;
  resourceType: string;
  since: string;
  until: string;
}

/** A page of entries, and where the next one starts (null: there is none). */
interface Page {
  readonly entries: ActivityEntry[];
  readonly next: string | null;
}

/** The first page (`after` null), or the one after `after`, a previous page's `next`. */
type Source = (filters: Filters, after: string | null) => Promise<Page>;

/** The filters as the log takes them: a date range covers whole days. */
const params = (f: Filters, before: string | null) => ({
  actor: f.actor.trim() || undefined,
  resourceType: f.resourceType || undefined,
  since: f.since || undefined,
  until: before ?? (f.until ? `${f.until}T23:59:59.999Z` : undefined),
  limit: PAGE,
});

const NEXT = /<([^>]+)>;\s*rel="next"/;

const wholeLog: Source = async (f, after) => {
  const answer = await api<{ data: ActivityEntry[] }>('GET', after ?? `/api/activity-log${query(params(f, null))}`);
  return { entries: answer.data.data, next: NEXT.exec(answer.headers.get('link') ?? '')?.[1] ?? null };
};

/** A project's entries: its own, its tasks' and its milestones'. */
function projectLog(projectId: string): Source {
  let ids: Promise<string[]> | undefined;
  const idsOf = async () => {
    const found = [projectId];
    for await (const page of pages<Task>('/api/tasks', { projectId }, 1000))
      found.push(...page.records.map((t) => t.id));
    for await (const page of pages<Milestone>('/api/milestones', { projectId }, 1000))
      found.push(...page.records.map((m) => m.id));
    return found;
  };
  return async (f, before) => {
    ids ??= idsOf();
    const all = await ids;
    const chunks: string[][] = [];
    for (let i = 0; i < all.length; i += IDS_PER_REQUEST) chunks.push(all.slice(i, i + IDS_PER_REQUEST));
    const answers = await Promise.all(
      chunks.map((chunk) =>
        api<{ data: ActivityEntry[] }>(
          'GET',
          `/api/activity-log${query({ ...params(f, before), 'resourceId[in]': chunk.join(',') })}`,
        ),
      ),
    );
    const entries = answers
      .flatMap((a) => a.data.data)
      .sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0))
      .slice(0, PAGE);
    // The next page goes on from this one's oldest time (inclusive: the caller drops what it has seen).
    return { entries, next: entries.length === PAGE ? entries.at(-1)!.timestamp : null };
  };
}

export function ActivityFeed({ projectId }: { projectId?: string }) {
  const search = place.value.params;
  const filters: Filters = {
    actor: search.get('actor') ?? '',
    resourceType: search.get('resourceType') ?? '',
    since: search.get('since') ?? '',
    until: search.get('until') ?? '',
  };
  const key = JSON.stringify(filters);
  const source = useRef<Source>(projectId ? projectLog(projectId) : wholeLog);
  const [entries, setEntries] = useState<ActivityEntry[] | null>(null);
  const next = useRef<string | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const load = useCallback(async () => {
    try {
      const first = await source.current(filters, null);
      setEntries(first.entries);
      next.current = first.next;
      setMore(first.next !== null);
      setError(null);
    } catch (err) {
      setError(describe(err));
    }
    // `key` stands for the filters.
  }, [key]);
  useEffect(() => {
    setEntries(null);
    void load();
    return () => clearTimeout(timer.current);
  }, [load]);

  const loadMore = async () => {
    if (!entries || next.current === null) return;
    try {
      const page = await source.current(filters, next.current);
      const seen = new Set(entries.map((e) => e.id));
      const fresh = page.entries.filter((e) => !seen.has(e.id));
      setEntries([...entries, ...fresh]);
      next.current = fresh.length > 0 ? page.next : null;
      setMore(next.current !== null);
    } catch (err) {
      setError(describe(err));
    }
  };

  // A change anywhere in scope may have written entries: the newest page is read again, and what is new goes on top.
  useLive(projectId, {
    onReset: () => void load(),
    onEvent: () => {
      clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        source.current(filters, null).then(
          (first) =>
            setEntries((list) => {
              const seen = new Set((list ?? []).map((e) => e.id));
              const fresh = first.entries.filter((e) => !seen.has(e.id));
              return fresh.length === 0 ? list : [...fresh, ...(list ?? [])];
            }),
          () => {},
        );
      }, REFRESH_MS);
    },
  });

  const setFilter = (name: keyof Filters, value: string) => {
    const next = new URLSearchParams(search);
    if (value) next.set(name, value);
    else next.delete(name);
    const text = next.toString();
    navigate(`${place.value.path}${text ? `?${text}` : ''}`, { replace: true });
  };

  const open = async (entry: ActivityEntry) => {
    try {
      const to = await resolvePage(entry.resourceType, entry.resourceId);
      if (to) navigate(to);
    } catch (err) {
      setError(describe(err));
    }
  };

  return (
    <div class="activity">
      <form class="filters" role="search" aria-label="Filter the activity" onSubmit={(e) => e.preventDefault()}>
        <label>
          <span>Who</span>
          <input value={filters.actor} maxLength={100} onChange={(e) => setFilter('actor', e.currentTarget.value)} />
        </label>
        <label>
          <span>Record</span>
          <select value={filters.resourceType} onChange={(e) => setFilter('resourceType', e.currentTarget.value)}>
            <option value="">Any</option>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {KIND_LABEL[k] ?? k}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>From</span>
          <input type="date" value={filters.since} onChange={(e) => setFilter('since', e.currentTarget.value)} />
        </label>
        <label>
          <span>To</span>
          <input type="date" value={filters.until} onChange={(e) => setFilter('until', e.currentTarget.value)} />
        </label>
      </form>
      <ErrorText error={error} />
      {entries === null && !error && <p aria-busy="true">Loading the activity…</p>}
      {entries?.length === 0 && (
        <p class="muted">
          Nothing here yet
          {key !== JSON.stringify({ actor: '', resourceType: '', since: '', until: '' }) ? ' with these filters' : ''}:
          changes show up here as people make them.
        </p>
      )}
      <ol class="history-list activity-list">
        {entries?.map((e) => (
          <li key={e.id}>
            <strong>{e.actor}</strong> <span class="badge">{e.action}</span>{' '}
            {hasPage(e.resourceType) ? (
              <button type="button" class="link" onClick={() => void open(e)}>
                {e.summary || `${KIND_LABEL[e.resourceType] ?? e.resourceType} ${e.resourceId}`}
              </button>
            ) : (
              <span>{e.summary || e.resourceId}</span>
            )}{' '}
            <time class="muted small" dateTime={e.timestamp}>
              {when(e.timestamp)}
            </time>
          </li>
        ))}
      </ol>
      {more && (
        <button type="button" class="quiet" onClick={() => void loadMore()}>
          Load more
        </button>
      )}
    </div>
  );
}
