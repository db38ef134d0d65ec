/**
 * A task's time entries: who worked how long on which day, with a note; the task's total; log time as the signed-in
 * user (the day defaults to today in the browser's time zone); edit and delete your own. Live: entries logged,
 * changed or deleted elsewhere show at once. Also how hours are shown and summed, which the time report shares.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { refusal, user } from '../session.ts';
import type { TimeEntry } from '../types.ts';
import { ErrorText, describe } from './error.tsx';
import { useLiveRecords } from './records.ts';
import { day, isDay, today } from './time.ts';

const HOURS = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
/** Hours as a person reads them: at most two decimals, without a sum's rounding noise (0.1 + 0.2). */
export const showHours = (hours: number) => HOURS.format(Math.round(hours * 1e6) / 1e6);

/** The sum of the entries' hours. */
export const totalOf = (entries: Iterable<{ hours: number }>) => {
  let sum = 0;
  for (const e of entries) sum += e.hours;
  return sum;
};

/** Newest day first; on one day, the entry logged last first. */
const byDay = (a: TimeEntry, b: TimeEntry) => b.date.localeCompare(a.date) || b.createdAt.localeCompare(a.createdAt);

export function TimeEntries({ taskId, projectId }: { taskId: string; projectId: string }) {
  const { records, put, drop, error } = useLiveRecords<TimeEntry>({
    path: '/api/time-entries',
    params: { taskId },
    projectId,
    type: 'time_entry',
    belongs: (entry) => entry.taskId === taskId,
  });
  const me = user.value?.username;
  const cannotWrite = refusal('write');

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
