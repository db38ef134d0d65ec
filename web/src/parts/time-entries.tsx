/**
 * A task's time entries: who worked how long on which day, with a note; the task's total; log time as the signed-in
 * user (the day defaults to today in the browser's time zone); edit and delete your own. Live: entries logged,
 * changed or deleted elsewhere show at once. Also the helpers the project's milestones and time report share: days
 * in the browser's time zone, hours as a person reads them, and a map of records kept current from loads and the
 * event stream.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, pages } from '../api.ts';
import { useLive } from '../live.ts';
import { refusal, user } from '../session.ts';
import type { TimeEntry } from '../types.ts';
import { ErrorText, describe } from './error.tsx';
import { day, today } from './time.ts';

/** A day as the API writes it (`YYYY-MM-DD`), in the browser's time zone. */
export function localDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The day `days` days before today, in the browser's time zone. */
export function daysAgo(days: number): string {
  const date = new Date();
  date.setDate(date.getDate() - days);
  return localDate(date);
}

export const isDay = (text: string) => /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text));

const HOURS = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
/** Hours as a person reads them: at most two decimals, without a sum's rounding noise (0.1 + 0.2). */
export const showHours = (hours: number) => HOURS.format(Math.round(hours * 1e6) / 1e6);

/** The sum of the entries' hours. */
export const totalOf = (entries: Iterable<{ hours: number }>) => {
  let sum = 0;
  for (const e of entries) sum += e.hours;
  return sum;
};

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

/** Newest day first; on one day, the entry logged last first. */
const byDay = (a: TimeEntry, b: TimeEntry) => b.date.localeCompare(a.date) || b.createdAt.localeCompare(a.createdAt);

export function TimeEntries({ taskId, projectId }: { taskId: string; projectId: string }) {
  const { records, put, drop, reset } = useRecords<TimeEntry>();
  const [error, setError] = useState<string | null>(null);
  const me = user.value?.username;
  const cannotWrite = refusal('write');

  const loading = useRef<AbortController | null>(null);
  const load = useCallback(async () => {
    loading.current?.abort();
    const controller = (loading.current = new AbortController());
    reset();
    try {
      for await (const page of pages<TimeEntry>('/api/time-entries', { taskId }, PAGE, controller.signal))
        put(page.records);
      put([]);
      setError(null);
    } catch (err) {
      if (!controller.signal.aborted) setError(describe(err));
    }
  }, [taskId]);
  useEffect(() => {
    void load();
    return () => loading.current?.abort();
  }, [load]);

  useLive(projectId, {
    onReset: () => void load(),
    onEvent: ({ type, data }) => {
      if (!type.startsWith('time_entry.') || data.taskId !== taskId) return;
      if (type === 'time_entry.deleted') drop(data.id);
      else put([data as unknown as TimeEntry], true);
    },
  });

  const entries = records ? [...records.values()].sort(byDay) : null;
  const total = entries ? totalOf(entries) : 0;
  return (
    <section class="time-entries" aria-labelledby="time-title">
      <h2 id="time-title" tabIndex={-1}>
        Time {entries && <span class="count">{showHours(total)} h</span>}
      </h2>
      <ErrorText error={error} />
      {entries === null && !error && <p aria-busy="true">Loading the time entries…</p>}
      {entries && (
        <p class="time-total" role="status">
          Total: <strong>{showHours(total)}</strong> {total === 1 ? 'hour' : 'hours'}
          {entries.length > 0 && ` in ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}`}
        </p>
      )}
      {entries?.length === 0 && <p class="muted">No time logged yet.</p>}
      <ol class="time-list" aria-label="Time entries">
        {entries?.map((entry) => (
          <EntryItem
            key={entry.id}
            entry={entry}
            mine={entry.username === me && !cannotWrite}
            onChanged={(e) => put([e], true)}
            onDeleted={drop}
          />
        ))}
      </ol>
      {cannotWrite ? (
        <p class="muted">{cannotWrite}: you cannot log time.</p>
      ) : (
        <LogTime taskId={taskId} username={me ?? ''} onLogged={(e) => put([e], true)} />
      )}
    </section>
  );
}

/** The fields of an entry as its form holds them (the hours as typed). */
interface Draft {
  hours: string;
  date: string;
  description: string;
}

/** The draft as a request body, or why it cannot be one (said before asking the service). */
function bodyOf(draft: Draft): { hours: number; date: string; description: string } | string {
  const hours = Number(draft.hours);
  if (draft.hours.trim() === '' || !Number.isFinite(hours)) return 'Enter the hours worked (more than 0, at most 24)';
  if (!isDay(draft.date)) return 'Enter the day worked';
  return { hours, date: draft.date, description: draft.description };
}

/** The hours, day and note boxes of an entry's form; `id` makes their ids unique on the page. */
function EntryFields(props: { id: string; draft: Draft; set: (d: Draft) => void; focus?: boolean }) {
  const { id, draft, set } = props;
  const hours = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (props.focus) hours.current?.focus();
  }, []);
  return (
    <div class="time-fields">
      <div class="stack">
        <label for={`${id}-hours`}>Hours</label>
        <input
          id={`${id}-hours`}
          ref={hours}
          type="number"
          inputMode="decimal"
          min="0"
          max="24"
          step="0.25"
          value={draft.hours}
          onInput={(e) => set({ ...draft, hours: e.currentTarget.value })}
        />
      </div>
      <div class="stack">
        <label for={`${id}-date`}>Date</label>
        <input
          id={`${id}-date`}
          type="date"
          value={draft.date}
          onInput={(e) => set({ ...draft, date: e.currentTarget.value })}
        />
      </div>
      <div class="stack time-note">
        <label for={`${id}-note`}>Note</label>
        <input
          id={`${id}-note`}
          maxLength={10_000}
          value={draft.description}
          onInput={(e) => set({ ...draft, description: e.currentTarget.value })}
        />
      </div>
    </div>
  );
}

function LogTime(props: { taskId: string; username: string; onLogged: (entry: TimeEntry) => void }) {
  const empty = (): Draft => ({ hours: '', date: today(), description: '' });
  const [draft, setDraft] = useState<Draft>(empty);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const body = bodyOf(draft);
    if (typeof body === 'string') {
      setError(body);
      return;
    }
    setBusy(true);
    try {
      const answer = await api<{ data: TimeEntry }>('POST', '/api/time-entries', {
        body: { taskId: props.taskId, username: props.username, ...body },
      });
      props.onLogged(answer.data.data);
      setDraft(empty());
      setError(null);
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="stack log-time" aria-label="Log time" onSubmit={(e) => void submit(e)} noValidate>
      <EntryFields id="log-time" draft={draft} set={setDraft} />
      <ErrorText error={error} />
      <div class="buttons">
        <button type="submit" disabled={busy}>
          Log time
        </button>
        <span class="muted small">as {props.username}</span>
      </div>
    </form>
  );
}

function EntryItem(props: {
  entry: TimeEntry;
  mine: boolean;
  onChanged: (entry: TimeEntry) => void;
  onDeleted: (id: string) => void;
}) {
  const { entry } = props;
  const [editing, setEditing] = useState<Draft | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const yes = useRef<HTMLButtonElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const deleteButton = useRef<HTMLButtonElement>(null);
  /** Where the focus goes back to once the form or the question has gone. */
  const back = useRef<'edit' | 'delete' | null>(null);
  useEffect(() => {
    if (confirming) yes.current?.focus();
    else if (back.current === 'delete') deleteButton.current?.focus();
    else if (back.current === 'edit' && !editing) editButton.current?.focus();
    back.current = null;
  }, [confirming, editing]);
  const closeForm = () => {
    back.current = 'edit';
    setEditing(null);
  };
  const path = `/api/time-entries/${encodeURIComponent(entry.id)}`;
  const what = `${showHours(entry.hours)} h on ${day(entry.date)}`;
  const save = async (event: Event) => {
    event.preventDefault();
    if (!editing) return;
    const body = bodyOf(editing);
    if (typeof body === 'string') {
      setError(body);
      return;
    }
    try {
      const answer = await api<{ data: TimeEntry }>('PATCH', path, { body });
      props.onChanged(answer.data.data);
      closeForm();
      setError(null);
    } catch (err) {
      setError(describe(err));
    }
  };
  const remove = async () => {
    try {
      await api('DELETE', path);
      props.onDeleted(entry.id);
      // Its buttons are gone with it: the focus goes to the section's heading.
      document.getElementById('time-title')?.focus();
    } catch (err) {
      setError(describe(err));
    }
  };
  return (
    <li class="time-entry">
      <p class="time-head">
        <strong>{entry.username}</strong>{' '}
        <time dateTime={entry.date} class="muted small">
          {day(entry.date)}
        </time>{' '}
        <span class="hours">{showHours(entry.hours)} h</span>
      </p>
      {editing ? (
        <form
          class="stack"
          aria-label={`Edit your entry of ${what}`}
          onSubmit={(e) => void save(e)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              closeForm();
            }
          }}
          noValidate
        >
          <EntryFields id={`edit-${entry.id}`} draft={editing} set={setEditing} focus />
          <div class="buttons">
            <button type="submit">Save entry</button>
            <button type="button" class="quiet" onClick={closeForm}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        entry.description && <p class="time-note-text">{entry.description}</p>
      )}
      <ErrorText error={error} />
      {props.mine && !editing && (
        <div class="buttons">
          {confirming ? (
            <>
              <button type="button" class="danger small" ref={yes} onClick={() => void remove()}>
                Yes, delete<span class="visually-hidden"> your entry of {what}</span>
              </button>
              <button
                type="button"
                class="quiet small"
                onClick={() => {
                  back.current = 'delete';
                  setConfirming(false);
                }}
              >
                Keep it
              </button>
            </>
          ) : (
            <>
              <button
                type="button"
                class="quiet small"
                ref={editButton}
                onClick={() => {
                  setEditing({ hours: String(entry.hours), date: entry.date, description: entry.description });
                  setError(null);
                }}
              >
                Edit<span class="visually-hidden"> your entry of {what}</span>
              </button>
              <button type="button" class="quiet small danger" ref={deleteButton} onClick={() => setConfirming(true)}>
                Delete<span class="visually-hidden"> your entry of {what}</span>
              </button>
            </>
          )}
        </div>
      )}
    </li>
  );
}
