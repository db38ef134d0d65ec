/**
 * A project's milestones: each with its status, its due date (an overdue one, due before today and not reached, says
 * so in words) and the day it was reached. Create, edit and delete (asked first); _Mark reached_ is a `PATCH` of the
 * status alone, after which the service records `milestone.reached` and notifies the project's team. Live: a
 * milestone created, changed or deleted anywhere shows at once.
 */
import { Confirm } from '../parts/confirm.tsx';
import { useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Choice } from '../parts/choice.tsx';
import { Dialog } from '../parts/dialog.tsx';
import { ErrorText, describe } from '../parts/error.tsx';
import { MILESTONE_STATUS_LABEL } from '../parts/labels.ts';
import { ProjectHead, useProject } from '../parts/project-head.tsx';
import { useLiveRecords } from '../parts/records.ts';
import { day, isDay, localDate, today } from '../parts/time.ts';
import { useTitle } from '../parts/title.ts';
import { refusal } from '../session.ts';
import type { Milestone } from '../types.ts';
import { NotFound } from './not-found.tsx';

/** Soonest due first; those without a due date last; then in the order they were created. */
function byDue(a: Milestone, b: Milestone): number {
  if (a.dueDate !== b.dueDate) {
    if (a.dueDate === null) return 1;
    if (b.dueDate === null) return -1;
    return a.dueDate.localeCompare(b.dueDate);
  }
  return a.createdAt.localeCompare(b.createdAt);
}

/** Due before `today` (the browser's) and not reached. */
export const isOverdue = (m: Milestone, today: string) => m.status !== 'reached' && !!m.dueDate && m.dueDate < today;

export function Milestones({ projectId }: { projectId: string }) {
  const { project, error: projectError } = useProject(projectId);
  const { records, put, drop, error } = useLiveRecords<Milestone>({
    path: '/api/milestones',
    params: { projectId },
    projectId,
    type: 'milestone',
    belongs: (m) => m.projectId === projectId,
  });
  const [editing, setEditing] = useState<Milestone | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Milestone | null>(null);
  const [rowError, setRowError] = useState<{ id: string; text: string } | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const newButton = useRef<HTMLButtonElement>(null);
  // Missing, the view names itself as NotFound does: a parent's effect runs after its child's, and would win.
  useTitle(project === 'missing' ? null : project ? `${project.name} milestones` : 'Milestones');

  const cannotWrite = refusal('write');
  const markReached = async (m: Milestone) => {
    setRowError(null);
    try {
      const answer = await api<{ data: Milestone }>('PATCH', `/api/milestones/${encodeURIComponent(m.id)}`, {
        body: { status: 'reached' },
      });
      put([answer.data.data], true);
      setAnnouncement(`${m.title} reached`);
      // Its button is gone: the focus goes to the row's next action.
      requestAnimationFrame(() => document.getElementById(`edit-${m.id}`)?.focus());
    } catch (err) {
      setRowError({ id: m.id, text: describe(err) });
    }
  };

  if (project === 'missing') return <NotFound what="project" />;
  const now = today();
  const list = records ? [...records.values()].sort(byDue) : null;
  const overdue = list?.filter((m) => isOverdue(m, now)).length ?? 0;
  return (
    <section class="view milestones-view" aria-busy={list === null}>
      <ProjectHead projectId={projectId} project={project}>
        <button
          type="button"
          ref={newButton}
          disabled={!!cannotWrite}
          title={cannotWrite ?? undefined}
          onClick={() => setEditing('new')}
        >
          New milestone
        </button>
      </ProjectHead>
      <ErrorText error={error ?? projectError} />
      {cannotWrite && <p class="muted">{cannotWrite}: you can look, not change.</p>}
      {list === null && !error && <p aria-busy="true">Loading the milestones…</p>}
      {list?.length === 0 && <p>No milestones yet.</p>}
      {list && list.length > 0 && (
        <p class="muted">
          {list.length} {list.length === 1 ? 'milestone' : 'milestones'}
          {overdue > 0 && `, ${overdue} overdue`}
        </p>
      )}
      {list && list.length > 0 && (
        <ul class="milestones" aria-label="Milestones">
          {list.map((m) => {
            const late = isOverdue(m, now);
            return (
              <li key={m.id} class={late ? 'milestone-row overdue' : 'milestone-row'}>
                <div class="milestone-main">
                  <h2 class="milestone-title">{m.title}</h2>
                  {m.description && <p class="muted clamp">{m.description}</p>}
                </div>
                <dl class="facts">
                  <div>
                    <dt>Status</dt>
                    <dd>
                      <span class={`badge milestone-${m.status}`}>{MILESTONE_STATUS_LABEL[m.status]}</span>
                    </dd>
                  </div>
                  <div>
                    <dt>Due</dt>
                    <dd>
                      {m.dueDate ? <time dateTime={m.dueDate}>{day(m.dueDate)}</time> : '—'}
                      {late && <span class="badge overdue-badge">Overdue</span>}
                    </dd>
                  </div>
                  <div>
                    <dt>Reached</dt>
                    <dd>
                      {m.status === 'reached' && m.reachedAt ? (
                        <time dateTime={m.reachedAt}>{day(localDate(new Date(m.reachedAt)))}</time>
                      ) : (
                        '—'
                      )}
                    </dd>
                  </div>
                </dl>
                <div class="row-actions">
                  {m.status !== 'reached' && (
                    <button
                      type="button"
                      class="quiet"
                      aria-label={`Mark ${m.title} reached`}
                      disabled={!!cannotWrite}
                      title={cannotWrite ?? undefined}
                      onClick={() => void markReached(m)}
                    >
                      Mark reached
                    </button>
                  )}
                  <button
                    type="button"
                    class="quiet"
                    id={`edit-${m.id}`}
                    aria-label={`Edit ${m.title}`}
                    disabled={!!cannotWrite}
                    title={cannotWrite ?? undefined}
                    onClick={() => setEditing(m)}
                  >
                    Edit
                  </button>
                  <button
                    type="button"
                    class="quiet danger"
                    aria-label={`Delete ${m.title}`}
                    disabled={!!cannotWrite}
                    title={cannotWrite ?? undefined}
                    onClick={() => setDeleting(m)}
                  >
                    Delete
                  </button>
                </div>
                {rowError?.id === m.id && (
                  <div class="milestone-error">
                    <ErrorText error={rowError.text} />
                  </div>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <p class="visually-hidden" aria-live="polite">
        {announcement}
      </p>
      {editing && (
        <MilestoneForm
          projectId={projectId}
          milestone={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setEditing(null);
            put([saved], true);
            setAnnouncement(`${saved.title} saved`);
          }}
        />
      )}
      {deleting && (
        <DeleteMilestone
          milestone={deleting}
          onClose={() => setDeleting(null)}
          onDeleted={(id) => {
            setDeleting(null);
            drop(id);
            // Its row is gone: the focus goes to the view's first action, once the dialog has closed.
            setTimeout(() => newButton.current?.focus());
            setAnnouncement(`${deleting.title} deleted`);
          }}
        />
      )}
    </section>
  );
}

function MilestoneForm(props: {
  projectId: string;
  milestone: Milestone | null;
  onClose: () => void;
  onSaved: (milestone: Milestone) => void;
}) {
  const { milestone } = props;
  const [title, setTitle] = useState(milestone?.title ?? '');
  const [description, setDescription] = useState(milestone?.description ?? '');
  const [status, setStatus] = useState<Milestone['status']>(milestone?.status ?? 'pending');
  const [dueDate, setDueDate] = useState(milestone?.dueDate ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (dueDate !== '' && !isDay(dueDate)) {
      setError('Enter the due date as a whole date, or leave it empty');
      return;
    }
    setBusy(true);
    try {
      const fields = { title, description, status, dueDate: dueDate === '' ? null : dueDate };
      const answer = milestone
        ? await api<{ data: Milestone }>('PATCH', `/api/milestones/${encodeURIComponent(milestone.id)}`, {
            body: fields,
          })
        : await api<{ data: Milestone }>('POST', '/api/milestones', {
            body: { projectId: props.projectId, ...fields },
          });
      props.onSaved(answer.data.data);
    } catch (err) {
      setError(describe(err));
      setBusy(false);
    }
  };
  return (
    <Dialog title={milestone ? `Edit ${milestone.title}` : 'New milestone'} onClose={props.onClose}>
      <form class="stack" onSubmit={(e) => void submit(e)} noValidate>
        <label for="milestone-title">Title</label>
        <input
          id="milestone-title"
          value={title}
          maxLength={200}
          autoFocus
          onInput={(e) => setTitle(e.currentTarget.value)}
        />
        <label for="milestone-description">Description</label>
        <textarea
          id="milestone-description"
          rows={3}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
        <div class="row">
          <div class="stack">
            <label for="milestone-status">Status</label>
            <Choice id="milestone-status" value={status} labels={MILESTONE_STATUS_LABEL} onChange={setStatus} />
          </div>
          <div class="stack">
            <label for="milestone-due">Due date</label>
            <input
              id="milestone-due"
              type="date"
              value={dueDate}
              aria-describedby="milestone-due-hint"
              onInput={(e) => setDueDate(e.currentTarget.value)}
            />
          </div>
        </div>
        <p id="milestone-due-hint" class="muted small">
          Optional; empty for none.
        </p>
        <ErrorText error={error} />
        <div class="buttons">
          <button type="submit" disabled={busy}>
            {milestone ? 'Save' : 'Create milestone'}
          </button>
          <button type="button" class="quiet" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function DeleteMilestone(props: { milestone: Milestone; onClose: () => void; onDeleted: (id: string) => void }) {
  const { milestone } = props;
  return (
    <Confirm
      title={`Delete ${milestone.title}?`}
      action="Delete milestone"
      onClose={props.onClose}
      onConfirm={async () => {
        await api('DELETE', `/api/milestones/${encodeURIComponent(milestone.id)}`);
        props.onDeleted(milestone.id);
      }}
    >
      <p>This deletes the milestone. It cannot be undone.</p>
    </Confirm>
  );
}
