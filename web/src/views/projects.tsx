/** The projects: each with its status, team and open tasks; create, edit and delete (saying what a delete removes). */
import { Confirm } from '../parts/confirm.tsx';
import { useSignal } from '@preact/signals';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, query } from '../api.ts';
import { useLive } from '../live.ts';
import { Dialog } from '../parts/dialog.tsx';
import { ErrorText, describe } from '../parts/error.tsx';
import { RecordList, RecordRow, RowAction } from '../parts/record-list.tsx';
import { useTitle } from '../parts/title.ts';
import { navigate } from '../router.ts';
import { refusal } from '../session.ts';
import { Choice } from '../parts/choice.tsx';
import { PROJECT_STATUS_LABEL } from '../parts/labels.ts';
import type { Project, TeamSummary } from '../types.ts';

interface Row extends Project {
  open?: number;
}

/** How many records a list has, from its `X-Total-Count`, without reading them. */
async function countOf(path: string, params: Record<string, string>): Promise<number> {
  const answer = await api<unknown>('GET', `${path}${query({ ...params, limit: 1 })}`);
  return Number(answer.headers.get('x-total-count') ?? 0);
}

const RECOUNT_MS = 300;

const openTasks = (projectId: string) => countOf('/api/tasks', { projectId, 'status[in]': 'todo,in_progress' });

export function Projects() {
  useTitle('Projects');
  const [rows, setRows] = useState<Row[] | null>(null);
  const [teams, setTeams] = useState<TeamSummary[]>([]);
  const [error, setError] = useState<string | null>(null);
  const editing = useSignal<Project | 'new' | null>(null);
  const deleting = useSignal<Project | null>(null);

  const load = useCallback(async () => {
    try {
      const [projects, teamList] = await Promise.all([
        api<{ data: Project[] }>('GET', '/api/projects'),
        api<{ data: TeamSummary[] }>('GET', '/api/teams'),
      ]);
      const counted = await Promise.all(projects.data.data.map(async (p) => ({ ...p, open: await openTasks(p.id) })));
      setRows(counted);
      setTeams(teamList.data.data);
      setError(null);
    } catch (err) {
      setError(describe(err));
    }
  }, []);
  useEffect(() => void load(), [load]);

  // A burst of task changes is counted again once, a moment after it.
  const stale = useRef(new Set<string>());
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const recount = (projectId: string) => {
    stale.current.add(projectId);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      for (const id of stale.current)
        openTasks(id)
          .then((open) => setRows((list) => list && list.map((r) => (r.id === id ? { ...r, open } : r))))
          .catch(() => {});
      stale.current.clear();
    }, RECOUNT_MS);
  };

  useLive(undefined, {
    onReset: () => void load(),
    onEvent: ({ type, data }) => {
      if (type === 'project.created')
        setRows(
          (list) => list && [...list.filter((r) => r.id !== data.id), { ...(data as unknown as Project), open: 0 }],
        );
      else if (type === 'project.updated')
        setRows((list) => list && list.map((r) => (r.id === data.id ? { ...r, ...(data as unknown as Project) } : r)));
      else if (type === 'project.deleted') setRows((list) => list && list.filter((r) => r.id !== data.id));
      else if (type.startsWith('task.')) recount(String(data.projectId));
      else if (type.startsWith('team.')) void load();
    },
  });

  const teamName = (id: string | null) => (id ? (teams.find((t) => t.id === id)?.name ?? id) : '—');
  const cannotWrite = refusal('write');

  return (
    <section class="view">
      <div class="view-head">
        <h1>Projects</h1>
        <button
          type="button"
          onClick={() => (editing.value = 'new')}
          disabled={!!cannotWrite}
          title={cannotWrite ?? undefined}
        >
          New project
        </button>
      </div>
      <ErrorText error={error} />
      <RecordList
        label="Projects"
        rows={rows}
        error={error}
        loading="Loading the projects…"
        empty="No projects yet. Create the first one."
        row={(p) => (
          <RecordRow
            key={p.id}
            href={`/projects/${encodeURIComponent(p.id)}`}
            name={p.name}
            description={p.description}
            facts={[
              {
                label: 'Status',
                value: <span class={`badge status-${p.status}`}>{PROJECT_STATUS_LABEL[p.status]}</span>,
              },
              { label: 'Team', value: teamName(p.teamId) },
              { label: 'Open tasks', value: p.open ?? '…' },
            ]}
          >
            <div class="row-actions">
              <RowAction label="Edit" name={p.name} refused={cannotWrite} onClick={() => (editing.value = p)} />
              <RowAction
                label="Delete"
                name={p.name}
                danger
                refused={cannotWrite}
                onClick={() => (deleting.value = p)}
              />
            </div>
          </RecordRow>
        )}
      />
      {cannotWrite && <p class="muted">{cannotWrite}: you can look, not change.</p>}
      {editing.value && (
        <ProjectForm
          project={editing.value === 'new' ? null : editing.value}
          teams={teams}
          onClose={() => (editing.value = null)}
          onSaved={(saved, created) => {
            editing.value = null;
            setRows(
              (list) =>
                list &&
                (created
                  ? [...list.filter((r) => r.id !== saved.id), { ...saved, open: 0 }]
                  : list.map((r) => (r.id === saved.id ? { ...r, ...saved } : r))),
            );
            if (created) navigate(`/projects/${encodeURIComponent(saved.id)}`);
          }}
        />
      )}
      {deleting.value && (
        <DeleteProject
          project={deleting.value}
          onClose={() => (deleting.value = null)}
          onDeleted={(id) => {
            deleting.value = null;
            setRows((list) => list && list.filter((r) => r.id !== id));
          }}
        />
      )}
    </section>
  );
}

function ProjectForm(props: {
  project: Project | null;
  teams: TeamSummary[];
  onClose: () => void;
  onSaved: (project: Project, created: boolean) => void;
}) {
  const { project } = props;
  const [name, setName] = useState(project?.name ?? '');
  const [description, setDescription] = useState(project?.description ?? '');
  const [status, setStatus] = useState<Project['status']>(project?.status ?? 'planned');
  const [teamId, setTeamId] = useState(project?.teamId ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const body = { name, description, status, teamId: teamId === '' ? null : teamId };
      const answer = project
        ? await api<{ data: Project }>('PUT', `/api/projects/${encodeURIComponent(project.id)}`, { body })
        : await api<{ data: Project }>('POST', '/api/projects', { body });
      props.onSaved(answer.data.data, !project);
    } catch (err) {
      setError(describe(err));
      setBusy(false);
    }
  };
  return (
    <Dialog title={project ? `Edit ${project.name}` : 'New project'} onClose={props.onClose}>
      <form class="stack" onSubmit={(e) => void submit(e)} noValidate>
        <label for="project-name">Name</label>
        <input
          id="project-name"
          value={name}
          maxLength={200}
          autoFocus
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <label for="project-description">Description</label>
        <textarea
          id="project-description"
          rows={3}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
        <label for="project-status">Status</label>
        <Choice id="project-status" value={status} labels={PROJECT_STATUS_LABEL} onChange={setStatus} />
        <label for="project-team">Team</label>
        <select id="project-team" value={teamId} onChange={(e) => setTeamId(e.currentTarget.value)}>
          <option value="">No team</option>
          {props.teams.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
        <ErrorText error={error} />
        <div class="buttons">
          <button type="submit" disabled={busy}>
            {project ? 'Save' : 'Create project'}
          </button>
          <button type="button" class="quiet" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The confirmation says what the cascade removes, counted when it opens. */
function DeleteProject(props: { project: Project; onClose: () => void; onDeleted: (id: string) => void }) {
  const { project } = props;
  const [counts, setCounts] = useState<{ tasks: number; milestones: number; comments: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    Promise.all([
      countOf('/api/tasks', { projectId: project.id }),
      countOf('/api/milestones', { projectId: project.id }),
      countOf('/api/comments', { targetType: 'project', targetId: project.id }),
    ])
      .then(([tasks, milestones, comments]) => setCounts({ tasks, milestones, comments }))
      .catch((err: unknown) => setError(describe(err)));
  }, [project.id]);
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return (
    <Confirm
      title={`Delete ${project.name}?`}
      action="Delete project"
      ready={counts !== null}
      onClose={props.onClose}
      onConfirm={async () => {
        await api('DELETE', `/api/projects/${encodeURIComponent(project.id)}`);
        props.onDeleted(project.id);
      }}
    >
      <p>
        {counts
          ? `This deletes the project with ${plural(counts.tasks, 'task', 'tasks')} (and their comments and time entries), ${plural(counts.milestones, 'milestone', 'milestones')} and ${plural(counts.comments, 'comment', 'comments')} on the project. It cannot be undone.`
          : (error ?? 'Counting what the delete removes…')}
      </p>
    </Confirm>
  );
}
