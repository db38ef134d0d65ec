/**
 * One task: its fields to edit, its comments, its history. An edit is sent with `If-Match` (the version the user
 * started from); when someone else changed the task in between, the service answers 412 and the user sees the
 * current values beside theirs, and applies theirs again or drops them.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { useLive } from '../live.ts';
import { Comments } from '../parts/comments.tsx';
import { ErrorText, describe } from '../parts/error.tsx';
import { History } from '../parts/history.tsx';
import { TimeEntries } from '../parts/time-entries.tsx';
import { Choice } from '../parts/choice.tsx';
import { PRIORITY_LABEL, TASK_STATUS_LABEL } from '../parts/labels.ts';
import { useMembers } from '../parts/members.ts';
import { useTitle } from '../parts/title.ts';
import { refusal } from '../session.ts';
import type { Project, Task } from '../types.ts';
import { deletedHere, NotFound } from './not-found.tsx';
import { when } from '../parts/time.ts';

type Fields = Pick<Task, 'title' | 'description' | 'status' | 'priority' | 'assignee'>;
const FIELDS = ['title', 'description', 'status', 'priority', 'assignee'] as const;
const LABEL: Record<keyof Fields, string> = {
  title: 'Title',
  description: 'Description',
  status: 'Status',
  priority: 'Priority',
  assignee: 'Assignee',
};

const fieldsOf = (task: Task): Fields => ({
  title: task.title,
  description: task.description,
  status: task.status,
  priority: task.priority,
  assignee: task.assignee,
});

/** The fields the draft changes from `base`, as a `PATCH` body. */
function changes(base: Fields, draft: Fields): Partial<Fields> {
  const out: Partial<Fields> = {};
  for (const field of FIELDS) if (draft[field] !== base[field]) (out as Record<string, unknown>)[field] = draft[field];
  return out;
}

const show = (field: keyof Fields, value: Fields[keyof Fields]) =>
  field === 'status'
    ? TASK_STATUS_LABEL[value as Task['status']]
    : field === 'priority'
      ? PRIORITY_LABEL[value as Task['priority']]
      : value === null || value === ''
        ? '(none)'
        : String(value);

export function TaskView({ taskId }: { taskId: string }) {
  const [task, setTask] = useState<{ record: Task; etag: string | null } | null | 'missing'>(null);
  const [project, setProject] = useState<Project | null>(null);
  const [draft, setDraft] = useState<Fields | null>(null);
  const [conflict, setConflict] = useState<{ current: Task; etag: string | null; mine: Partial<Fields> } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [historyVersion, setHistoryVersion] = useState(0);
  // Missing, the view names itself as NotFound does: a parent's effect runs after its child's, and would win.
  useTitle(task === 'missing' ? null : task ? task.record.title : 'Task');

  const load = useCallback(async () => {
    try {
      const answer = await api<{ data: Task }>('GET', `/api/tasks/${encodeURIComponent(taskId)}`);
      const record = answer.data.data;
      setTask({ record, etag: answer.etag });
      setDraft(fieldsOf(record));
      const p = await api<{ data: Project }>('GET', `/api/projects/${encodeURIComponent(record.projectId)}`);
      setProject(p.data.data);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) setTask('missing');
      else setError(describe(err));
    }
  }, [taskId]);
  useEffect(() => void load(), [load]);

  const members = useMembers(project?.teamId ?? null);
  const record = task && task !== 'missing' ? task.record : null;
  const dirty = !!(record && draft && Object.keys(changes(fieldsOf(record), draft)).length > 0);

  useLive(record?.projectId ?? null, {
    onReset: () => void load(),
    onEvent: ({ type, data }) => {
      if (data.id !== taskId) return;
      if (type === 'task.deleted') {
        deletedHere();
        setTask('missing');
      } else if (type === 'task.updated') {
        setHistoryVersion((n) => n + 1);
        // Someone else's change: shown at once unless the user is editing (their save will then meet a 412).
        if (!dirty) void load();
      }
    },
  });

  if (task === 'missing') return <NotFound what="task" />;
  if (!record || !draft || !task)
    return <section class="view">{error ? <ErrorText error={error} /> : <p aria-busy="true">Loading…</p>}</section>;

  const cannotWrite = refusal('write');
  const set = <K extends keyof Fields>(field: K, value: Fields[K]) => {
    setDraft({ ...draft, [field]: value });
    setSaved(null);
  };

  const save = async (body: Partial<Fields>, etag: string | null) => {
    setBusy(true);
    setError(null);
    try {
      const answer = await api<{ data: Task }>('PATCH', `/api/tasks/${encodeURIComponent(taskId)}`, {
        body,
        ifMatch: etag,
      });
      setTask({ record: answer.data.data, etag: answer.etag });
      setDraft(fieldsOf(answer.data.data));
      setConflict(null);
      setSaved('Saved');
      setHistoryVersion((n) => n + 1);
    } catch (err) {
      if (err instanceof ApiError && err.status === 412) {
        const current = await api<{ data: Task }>('GET', `/api/tasks/${encodeURIComponent(taskId)}`);
        setConflict({ current: current.data.data, etag: current.etag, mine: body });
      } else setError(describe(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <article class="view task-view">
      <p class="crumbs">
        <a href="/projects">Projects</a>
        {' / '}
        <a href={`/projects/${encodeURIComponent(record.projectId)}`}>{project?.name ?? 'Board'}</a>
      </p>
      <h1>{record.title}</h1>
      <div class="task-grid">
        <form
          class="stack task-form"
          aria-label="Edit the task"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void save(changes(fieldsOf(record), draft), task.etag);
          }}
        >
          <label for="task-title">Title</label>
          <input
            id="task-title"
            value={draft.title}
            maxLength={200}
            readOnly={!!cannotWrite}
            onInput={(e) => set('title', e.currentTarget.value)}
          />
          <label for="task-description">Description</label>
          <textarea
            id="task-description"
            rows={6}
            value={draft.description}
            readOnly={!!cannotWrite}
            onInput={(e) => set('description', e.currentTarget.value)}
          />
          <div class="row">
            <div class="stack">
              <label for="task-status">Status</label>
              <Choice
                id="task-status"
                value={draft.status}
                labels={TASK_STATUS_LABEL}
                disabled={!!cannotWrite}
                onChange={(v) => set('status', v)}
              />
            </div>
            <div class="stack">
              <label for="task-priority">Priority</label>
              <Choice
                id="task-priority"
                value={draft.priority}
                labels={PRIORITY_LABEL}
                disabled={!!cannotWrite}
                onChange={(v) => set('priority', v)}
              />
            </div>
            <div class="stack">
              <label for="task-assignee">Assignee</label>
              <input
                id="task-assignee"
                list="task-members"
                placeholder="Unassigned"
                maxLength={100}
                value={draft.assignee ?? ''}
                readOnly={!!cannotWrite}
                onInput={(e) => set('assignee', e.currentTarget.value.trim() === '' ? null : e.currentTarget.value)}
              />
              <datalist id="task-members">
                {members.map((m) => (
                  <option key={m} value={m} />
                ))}
              </datalist>
            </div>
          </div>
          <ErrorText error={error} />
          {conflict && (
            <div class="conflict" role="alert">
              <h2>Someone else changed this task</h2>
              <p>It changed after you opened it. Its values now, and yours:</p>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Field</th>
                    <th scope="col">Now</th>
                    <th scope="col">Yours</th>
                  </tr>
                </thead>
                <tbody>
                  {(Object.keys(conflict.mine) as (keyof Fields)[]).map((field) => (
                    <tr key={field}>
                      <th scope="row">{LABEL[field]}</th>
                      <td>{show(field, conflict.current[field])}</td>
                      <td>{show(field, conflict.mine[field]!)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div class="buttons">
                <button type="button" disabled={busy} onClick={() => void save(conflict.mine, conflict.etag)}>
                  Apply my changes again
                </button>
                <button
                  type="button"
                  class="quiet"
                  onClick={() => {
                    setTask({ record: conflict.current, etag: conflict.etag });
                    setDraft(fieldsOf(conflict.current));
                    setConflict(null);
                  }}
                >
                  Drop my changes
                </button>
              </div>
            </div>
          )}
          {cannotWrite ? (
            <p class="muted">{cannotWrite}: you can read this task, not change it.</p>
          ) : (
            <div class="buttons">
              <button type="submit" disabled={!dirty || busy || !!conflict}>
                Save changes
              </button>
              <button
                type="button"
                class="quiet"
                disabled={!dirty || busy}
                onClick={() => {
                  setDraft(fieldsOf(record));
                  setConflict(null);
                }}
              >
                Undo changes
              </button>
              <span role="status" class="muted">
                {saved}
              </span>
            </div>
          )}
        </form>
        <div class="stack">
          <Comments taskId={taskId} projectId={record.projectId} />
          <TimeEntries taskId={taskId} projectId={record.projectId} />
          <History resourceId={taskId} version={historyVersion} />
        </div>
      </div>
      <p class="muted small">
        Created {when(record.createdAt)} · updated {when(record.updatedAt)}
      </p>
    </article>
  );
}
