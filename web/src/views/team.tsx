/**
 * One team: its members with their roles (add one, change a role, remove one), its projects, its name and description
 * to edit, and a delete that names the projects left without a team. A change to the members is a `PATCH` of the
 * whole list sent with `If-Match`: when someone else changed the team in between (412), the view shows the team as it
 * is now and says so. Live: the team's and its projects' changes show as they happen.
 */
import { Confirm } from '../parts/confirm.tsx';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError, pages } from '../api.ts';
import { useLive } from '../live.ts';
import { ErrorText, describe } from '../parts/error.tsx';
import { PROJECT_STATUS_LABEL } from '../parts/labels.ts';
import { useMembers } from '../parts/members.ts';
import { useTitle } from '../parts/title.ts';
import { navigate } from '../router.ts';
import { refusal } from '../session.ts';
import type { Project, Team } from '../types.ts';
import { deletedHere, NotFound } from './not-found.tsx';
import { TeamForm } from './teams.tsx';

type Member = Team['members'][number];
const ROLES = ['lead', 'engineer', 'designer'];

export function TeamView({ teamId }: { teamId: string }) {
  const [team, setTeam] = useState<{ record: Team; etag: string | null } | null | 'missing'>(null);
  const [projects, setProjects] = useState<Project[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  useTitle(team === 'missing' ? null : team ? team.record.name : 'Team');

  const loadTeam = useCallback(async () => {
    try {
      const answer = await api<{ data: Team }>('GET', `/api/teams/${encodeURIComponent(teamId)}`);
      setTeam({ record: answer.data.data, etag: answer.etag });
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) setTeam('missing');
      else setError(describe(err));
    }
  }, [teamId]);
  // The projects list has no team filter: every project is read, and the team's kept.
  const loadProjects = useCallback(async () => {
    try {
      const mine: Project[] = [];
      for await (const page of pages<Project>('/api/projects', {}))
        mine.push(...page.records.filter((p) => p.teamId === teamId));
      setProjects(mine);
    } catch (err) {
      setError(describe(err));
    }
  }, [teamId]);
  useEffect(() => {
    void loadTeam();
    void loadProjects();
  }, [loadTeam, loadProjects]);

  useLive(undefined, {
    onReset: () => {
      void loadTeam();
      void loadProjects();
    },
    onEvent: ({ type, data }) => {
      if (type.startsWith('team.') && data.id === teamId) {
        if (type === 'team.deleted') {
          deletedHere();
          setTeam('missing');
        } else void loadTeam();
      } else if (type.startsWith('project.')) {
        const project = data as unknown as Project;
        setProjects((list) => {
          if (!list) return list;
          const rest = list.filter((p) => p.id !== project.id);
          return type !== 'project.deleted' && project.teamId === teamId
            ? list.some((p) => p.id === project.id)
              ? list.map((p) => (p.id === project.id ? project : p))
              : [...rest, project]
            : rest;
        });
      }
    },
  });

  if (team === 'missing') return <NotFound what="team" />;
  if (!team)
    return <section class="view">{error ? <ErrorText error={error} /> : <p aria-busy="true">Loading…</p>}</section>;
  const record = team.record;
  const cannotWrite = refusal('write');

  return (
    <section class="view team-view">
      <div class="view-head">
        <div>
          <p class="crumbs">
            <a href="/teams">Teams</a>
          </p>
          <h1>{record.name}</h1>
          {record.description && <p class="muted team-description">{record.description}</p>}
        </div>
        <div class="row-actions">
          <button
            type="button"
            class="quiet"
            disabled={!!cannotWrite}
            title={cannotWrite ?? undefined}
            onClick={() => setEditing(true)}
          >
            Edit team
          </button>
          <button
            type="button"
            class="quiet danger"
            disabled={!!cannotWrite}
            title={cannotWrite ?? undefined}
            onClick={() => setDeleting(true)}
          >
            Delete team
          </button>
        </div>
      </div>
      <ErrorText error={error} />
      {cannotWrite && <p class="muted">{cannotWrite}: you can look, not change.</p>}
      <div class="team-grid">
        <Members
          team={record}
          etag={team.etag}
          readOnly={!!cannotWrite}
          onSaved={(saved, etag) => setTeam({ record: saved, etag })}
          onStale={() => void loadTeam()}
        />
        <section class="panel" aria-labelledby="team-projects">
          <h2 id="team-projects">Projects {projects && <span class="count">{projects.length}</span>}</h2>
          {projects === null && <p aria-busy="true">Loading the projects…</p>}
          {projects?.length === 0 && <p class="muted">No project has this team.</p>}
          {projects && projects.length > 0 && (
            <ul class="plain-list">
              {projects.map((p) => (
                <li key={p.id}>
                  <a href={`/projects/${encodeURIComponent(p.id)}`}>{p.name}</a>{' '}
                  <span class={`badge status-${p.status}`}>{PROJECT_STATUS_LABEL[p.status]}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
      {editing && (
        <TeamForm
          team={record}
          onClose={() => setEditing(false)}
          onSaved={(saved) => {
            setEditing(false);
            setTeam({ record: saved, etag: null });
            void loadTeam();
          }}
        />
      )}
      {deleting && (
        <DeleteTeam
          team={record}
          projects={projects}
          onClose={() => setDeleting(false)}
          onDeleted={() => navigate('/teams')}
        />
      )}
    </section>
  );
}

/** The members as a table: each role editable, each member removable; a form to add one. */
function Members(props: {
  team: Team;
  etag: string | null;
  readOnly: boolean;
  onSaved: (team: Team, etag: string | null) => void;
  onStale: () => void;
}) {
  const { team } = props;
  const [roles, setRoles] = useState<Record<string, string>>({});
  const [username, setUsername] = useState('');
  const [role, setRole] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState('');
  const [busy, setBusy] = useState(false);
  const known = useMembers();
  const roleChoices = [...new Set([...ROLES, ...team.members.map((m) => m.role)])];

  /** Sends the whole list; `done` says what changed, once the service has it. */
  const save = async (members: Member[], done: string): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      const answer = await api<{ data: Team }>('PATCH', `/api/teams/${encodeURIComponent(team.id)}`, {
        body: { members },
        ifMatch: props.etag,
      });
      props.onSaved(answer.data.data, answer.etag);
      setRoles({});
      setSaid(done);
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.status === 412) {
        setError('Someone else changed this team meanwhile: it is shown as it is now. Make your change again.');
        props.onStale();
      } else setError(describe(err));
      setSaid('');
      return false;
    } finally {
      setBusy(false);
    }
  };

  const add = async (event: Event) => {
    event.preventDefault();
    const name = username.trim();
    if (name === '' || role.trim() === '') {
      setError('Type a username and a role');
      return;
    }
    if (team.members.some((m) => m.username === name)) {
      setError(`${name} is already a member`);
      return;
    }
    if (await save([...team.members, { username: name, role: role.trim() }], `${name} added as ${role.trim()}`)) {
      setUsername('');
      setRole('');
    }
  };

  const roleOf = (m: Member) => roles[m.username] ?? m.role;

  return (
    <section class="panel" aria-labelledby="team-members">
      <h2 id="team-members">
        Members <span class="count">{team.members.length}</span>
      </h2>
      {team.members.length === 0 ? (
        <p class="muted">No members yet.</p>
      ) : (
        <table class="members">
          <thead>
            <tr>
              <th scope="col">Username</th>
              <th scope="col">Role</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {team.members.map((m) => {
              const draft = roleOf(m);
              const changed = draft.trim() !== m.role && draft.trim() !== '';
              return (
                <tr key={m.username}>
                  <th scope="row">{m.username}</th>
                  <td>
                    <input
                      aria-label={`Role of ${m.username}`}
                      list="team-roles"
                      maxLength={100}
                      value={draft}
                      readOnly={props.readOnly}
                      onInput={(e) => setRoles({ ...roles, [m.username]: e.currentTarget.value })}
                      onKeyDown={(e) => {
                        if (e.key === 'Enter' && changed) {
                          e.preventDefault();
                          void save(
                            team.members.map((x) => (x.username === m.username ? { ...x, role: draft.trim() } : x)),
                            `${m.username} is now ${draft.trim()}`,
                          );
                        }
                      }}
                    />
                  </td>
                  <td class="member-actions">
                    {!props.readOnly && (
                      <>
                        <button
                          type="button"
                          class="quiet small"
                          disabled={!changed || busy}
                          aria-label={`Change the role of ${m.username}`}
                          onClick={() =>
                            void save(
                              team.members.map((x) => (x.username === m.username ? { ...x, role: draft.trim() } : x)),
                              `${m.username} is now ${draft.trim()}`,
                            )
                          }
                        >
                          Change role
                        </button>
                        <button
                          type="button"
                          class="quiet small danger"
                          disabled={busy}
                          aria-label={`Remove ${m.username}`}
                          onClick={() =>
                            void save(
                              team.members.filter((x) => x.username !== m.username),
                              `${m.username} removed from the team`,
                            )
                          }
                        >
                          Remove
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <datalist id="team-roles">
        {roleChoices.map((r) => (
          <option key={r} value={r} />
        ))}
      </datalist>
      {!props.readOnly && (
        <form class="add-member" aria-label="Add a member" onSubmit={(e) => void add(e)} noValidate>
          <div class="stack">
            <label for="member-username">Username</label>
            <input
              id="member-username"
              list="member-names"
              maxLength={100}
              autoComplete="off"
              value={username}
              onInput={(e) => setUsername(e.currentTarget.value)}
            />
            <datalist id="member-names">
              {known
                .filter((k) => !team.members.some((m) => m.username === k))
                .map((k) => (
                  <option key={k} value={k} />
                ))}
            </datalist>
          </div>
          <div class="stack">
            <label for="member-role">Role</label>
            <input
              id="member-role"
              list="team-roles"
              maxLength={100}
              value={role}
              onInput={(e) => setRole(e.currentTarget.value)}
            />
          </div>
          <button type="submit" disabled={busy}>
            Add member
          </button>
        </form>
      )}
      <ErrorText error={error} />
      <p role="status" class="muted small">
        {said}
      </p>
    </section>
  );
}

/** The confirmation names the projects that lose their team (they stay, with no team). */
function DeleteTeam(props: { team: Team; projects: Project[] | null; onClose: () => void; onDeleted: () => void }) {
  const { team, projects } = props;
  return (
    <Confirm
      title={`Delete ${team.name}?`}
      action="Delete team"
      ready={projects !== null}
      onClose={props.onClose}
      onConfirm={async () => {
        await api('DELETE', `/api/teams/${encodeURIComponent(team.id)}`);
        props.onDeleted();
      }}
    >
      {projects === null ? (
        <p>Finding the team's projects…</p>
      ) : projects.length === 0 ? (
        <p>No project has this team. The team and its member list are deleted; this cannot be undone.</p>
      ) : (
        <>
          <p>
            {projects.length === 1
              ? 'This project loses its team'
              : `These ${projects.length} projects lose their team`}{' '}
            (they stay, with no team):
          </p>
          <ul>
            {projects.map((p) => (
              <li key={p.id}>
                <strong>{p.name}</strong>
              </li>
            ))}
          </ul>
          <p>The team and its member list are deleted; this cannot be undone.</p>
        </>
      )}
    </Confirm>
  );
}
