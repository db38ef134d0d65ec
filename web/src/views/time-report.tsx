/**
 * A project's time: the hours logged on its tasks between two days (by default the last 30, today included), by
 * person and by task, with totals, and the entries themselves as a CSV file made in the browser. The project's tasks
 * are read first (their titles name the rows), then their entries in the range, `taskId[in]` a hundred tasks at a
 * time (the API's most), a few of those lists at once: what is read is the project's own entries, however many
 * other projects log. The range is in the address (`?from=…&to=…`), so a report can be bookmarked. Live: entries
 * logged, changed or deleted, and tasks renamed, show at once.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { pages } from '../api.ts';
import { useLive } from '../live.ts';
import { ErrorText, describe } from '../parts/error.tsx';
import { ProjectHead, useProject } from '../parts/project-head.tsx';
import { useRecords } from '../parts/records.ts';
import { showHours, totalOf } from '../parts/time-entries.tsx';
import { daysAgo, isDay } from '../parts/time.ts';
import { day, today } from '../parts/time.ts';
import { useTitle } from '../parts/title.ts';
import { navigate, place } from '../router.ts';
import type { Task, TimeEntry } from '../types.ts';
import { NotFound } from './not-found.tsx';

const PAGE = 1000;
/** The most values the API takes in one `field[in]`. */
const IDS_PER_LIST = 100;
/** Lists of entries read at the same time. */
const AT_ONCE = 4;
/** The default range: the last 30 days, today included. */
const DAYS = 30;

interface Sum {
  readonly key: string;
  readonly hours: number;
  readonly entries: number;
}

/** The entries' hours summed by `keyOf`, most hours first (then by key). */
function sumBy(entries: readonly TimeEntry[], keyOf: (e: TimeEntry) => string): Sum[] {
  const sums = new Map<string, { hours: number; entries: number }>();
  for (const e of entries) {
    const sum = sums.get(keyOf(e)) ?? { hours: 0, entries: 0 };
    sum.hours += e.hours;
    sum.entries += 1;
    sums.set(keyOf(e), sum);
  }
  return [...sums].map(([key, s]) => ({ key, ...s })).sort((a, b) => b.hours - a.hours || a.key.localeCompare(b.key));
}

/**
 * One CSV field (RFC 4180): quoted when it holds a quote, a comma or a line break, its quotes doubled. A text that a
 * spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab or a carriage return first) gets a `'` before it.
 */
function field(value: string, text: boolean): string {
  const safe = text && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The entries as CSV: a header line, one line per entry, CRLF line ends, a BOM so that spreadsheets read UTF-8. */
export function csvOf(entries: readonly TimeEntry[], titleOf: (taskId: string) => string): string {
  const lines = ['person,task,date,hours,note'];
  for (const e of entries)
    lines.push(
      [
        field(e.username, true),
        field(titleOf(e.taskId), true),
        field(e.date, false),
        field(String(e.hours), false),
        field(e.description, true),
      ].join(','),
    );
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

/** Downloads `text` as a file, made in the browser: a Blob behind a temporary link. */
function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Oldest day first, then by person, then in the order logged. */
const byDay = (a: TimeEntry, b: TimeEntry) =>
  a.date.localeCompare(b.date) || a.username.localeCompare(b.username) || a.createdAt.localeCompare(b.createdAt);

export function TimeReport({ projectId }: { projectId: string }) {
  const { project, error: projectError } = useProject(projectId);
  useTitle(project === 'missing' ? null : project ? `${project.name} time` : 'Time');
  const params = place.value.params;
  const from = params.get('from') ?? daysAgo(DAYS - 1);
  const to = params.get('to') ?? today();
  const rangeError =
    !isDay(from) || !isDay(to)
      ? 'Enter both days of the range'
      : from > to
        ? 'The first day must be on or before the last'
        : null;

  const tasks = useRecords<Task>();
  const { records, put, drop, reset } = useRecords<TimeEntry>();
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);

  const setRange = (name: 'from' | 'to', value: string | null) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    const search = next.toString();
    navigate(`/projects/${encodeURIComponent(projectId)}/time${search ? `?${search}` : ''}`, { replace: true });
  };

  const loading$ = useRef<AbortController | null>(null);
  const load = useCallback(async () => {
    loading$.current?.abort();
    const controller = (loading$.current = new AbortController());
    const { signal } = controller;
    reset();
    tasks.reset();
    if (rangeError) {
      setLoading(false);
      return;
    }
    setLoading(true);
    try {
      const ids: string[] = [];
      for await (const page of pages<Task>('/api/tasks', { projectId }, PAGE, signal)) {
        tasks.put(page.records);
        ids.push(...page.records.map((t) => t.id));
      }
      tasks.put([]);
      const lists: string[][] = [];
      for (let i = 0; i < ids.length; i += IDS_PER_LIST) lists.push(ids.slice(i, i + IDS_PER_LIST));
      let next = 0;
      const reader = async () => {
        for (let list = lists[next++]; list; list = lists[next++]) {
          const filters = { 'taskId[in]': list.join(','), 'date[gte]': from, 'date[lte]': to };
          for await (const page of pages<TimeEntry>('/api/time-entries', filters, PAGE, signal)) put(page.records);
        }
      };
      await Promise.all(Array.from({ length: Math.min(AT_ONCE, lists.length) }, reader));
      put([]);
      setError(null);
    } catch (err) {
      if (!signal.aborted) setError(describe(err));
    } finally {
      if (!signal.aborted) setLoading(false);
    }
  }, [projectId, from, to, rangeError]);
  useEffect(() => {
    void load();
    return () => loading$.current?.abort();
  }, [load]);

  // The stream of this project carries the entries of its tasks only.
  useLive(projectId, {
    onReset: () => void load(),
    onEvent: ({ type, data }) => {
      if (type === 'time_entry.deleted') drop(data.id);
      else if (type === 'time_entry.created' || type === 'time_entry.updated') {
        const entry = data as unknown as TimeEntry;
        if (!rangeError && entry.date >= from && entry.date <= to) put([entry], true);
        else drop(entry.id);
      } else if (type === 'task.created' || type === 'task.updated') tasks.put([data as unknown as Task], true);
      else if (type === 'task.deleted') tasks.drop(data.id);
    },
  });

  const entries = useMemo(() => (records ? [...records.values()].sort(byDay) : []), [records]);
  const titleOf = (taskId: string) => tasks.records?.get(taskId)?.title ?? taskId;
  const byPerson = useMemo(() => sumBy(entries, (e) => e.username), [entries]);
  const byTask = useMemo(() => sumBy(entries, (e) => e.taskId), [entries]);
  const total = totalOf(entries);

  if (project === 'missing') return <NotFound what="project" />;
  const busy = !rangeError && (loading || records === null);
  const canExport = !busy && !rangeError && entries.length > 0;
  return (
    <section class="view time-view" aria-busy={busy}>
      <ProjectHead projectId={projectId} project={project}>
        <button
          type="button"
          disabled={!canExport}
          title={canExport ? undefined : 'No entries in this range to export'}
          onClick={() => download(`time-${projectId}-${from}-to-${to}.csv`, csvOf(entries, titleOf))}
        >
          Export CSV
        </button>
      </ProjectHead>
      <form class="filters" aria-label="Date range" onSubmit={(e) => e.preventDefault()} noValidate>
        <label>
          <span>From</span>
          <input
            type="date"
            value={from}
            max={isDay(to) ? to : undefined}
            onChange={(e) => setRange('from', e.currentTarget.value)}
          />
        </label>
        <label>
          <span>To</span>
          <input
            type="date"
            value={to}
            min={isDay(from) ? from : undefined}
            onChange={(e) => setRange('to', e.currentTarget.value)}
          />
        </label>
        <div class="range-reset">
          <button
            type="button"
            class="quiet"
            disabled={!params.has('from') && !params.has('to')}
            onClick={() =>
              navigate(`/projects/${encodeURIComponent(projectId)}/time`, {
                replace: true,
              })
            }
          >
            Last {DAYS} days
          </button>
        </div>
      </form>
      <ErrorText error={rangeError ?? error ?? projectError} />
      <p class="time-summary" aria-live="polite">
        {busy
          ? 'Loading the time entries…'
          : rangeError
            ? ''
            : `${showHours(total)} ${total === 1 ? 'hour' : 'hours'} in ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}, ${day(from)} to ${day(to)}`}
      </p>
      {!busy && !rangeError && entries.length === 0 && (
        <p class="muted">No time logged on this project's tasks in these days.</p>
      )}
      {!busy && entries.length > 0 && (
        <>
          <div class="time-tables">
            <Totals caption="Hours by person" head="Person" sums={byPerson} total={total} count={entries.length} />
            <Totals
              caption="Hours by task"
              head="Task"
              sums={byTask}
              total={total}
              count={entries.length}
              name={(taskId) => <a href={`/tasks/${encodeURIComponent(taskId)}`}>{titleOf(taskId)}</a>}
            />
          </div>
          <details class="time-entries-all">
            <summary>The entries ({entries.length})</summary>
            <div class="time-scroll" tabIndex={0} role="region" aria-label="The entries (scrolls sideways)">
              <table class="time-table">
                <thead>
                  <tr>
                    <th scope="col">Date</th>
                    <th scope="col">Person</th>
                    <th scope="col">Task</th>
                    <th scope="col" class="num">
                      Hours
                    </th>
                    <th scope="col">Note</th>
                  </tr>
                </thead>
                <tbody>
                  {entries.map((e) => (
                    <tr key={e.id}>
                      <td>
                        <time dateTime={e.date}>{day(e.date)}</time>
                      </td>
                      <td>{e.username}</td>
                      <td>{titleOf(e.taskId)}</td>
                      <td class="num">{showHours(e.hours)}</td>
                      <td>{e.description}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </section>
  );
}

function Totals(props: {
  caption: string;
  head: string;
  sums: readonly Sum[];
  total: number;
  count: number;
  name?: (key: string) => ComponentChildren;
}) {
  return (
    <div class="time-scroll">
      <table class="time-table">
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">{props.head}</th>
            <th scope="col" class="num">
              Hours
            </th>
            <th scope="col" class="num">
              Entries
            </th>
          </tr>
        </thead>
        <tbody>
          {props.sums.map((s) => (
            <tr key={s.key}>
              <th scope="row">{props.name ? props.name(s.key) : s.key}</th>
              <td class="num">{showHours(s.hours)}</td>
              <td class="num">{s.entries}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total</th>
            <td class="num">{showHours(props.total)}</td>
            <td class="num">{props.count}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
