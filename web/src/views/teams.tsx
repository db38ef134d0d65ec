/** The teams: each with its description and number of members; create one (name, description). Live. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { useLive } from '../live.ts';
import { Dialog } from '../parts/dialog.tsx';
import { ErrorText, describe } from '../parts/error.tsx';
import { RecordList, RecordRow } from '../parts/record-list.tsx';
import { useTitle } from '../parts/title.ts';
import { navigate } from '../router.ts';
import { refusal } from '../session.ts';
import type { Team, TeamSummary } from '../types.ts';

export function Teams() {
  useTitle('Teams');
  const [teams, setTeams] = useState<TeamSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);

  const load = useCallback(async () => {
    try {
      const answer = await api<{ data: TeamSummary[] }>('GET', '/api/teams');
      setTeams(answer.data.data);
      setError(null);
    } catch (err) {
      setError(describe(err));
    }
  }, []);
  useEffect(() => void load(), [load]);

  useLive(undefined, {
    onReset: () => void load(),
    onEvent: ({ type, data }) => {
      if (!type.startsWith('team.')) return;
      if (type === 'team.deleted') {
        setTeams((list) => list && list.filter((t) => t.id !== data.id));
        return;
      }
      const { members, ...rest } = data as unknown as Team;
      const summary: TeamSummary = { ...rest, memberCount: members.length };
      setTeams(
        (list) =>
          list &&
          (list.some((t) => t.id === summary.id)
            ? list.map((t) => (t.id === summary.id ? summary : t))
            : [...list, summary]),
      );
    },
  });

  const cannotWrite = refusal('write');
  return (
    <section class="view">
      <div class="view-head">
        <h1>Teams</h1>
        <button
          type="button"
          onClick={() => setCreating(true)}
          disabled={!!cannotWrite}
          title={cannotWrite ?? undefined}
        >
          New team
        </button>
      </div>
      <ErrorText error={error} />
      <RecordList
        label="Teams"
        rows={teams}
        error={error}
        loading="Loading the teams…"
        empty="No teams yet. Create the first one."
        row={(t) => (
          <RecordRow
            key={t.id}
            class="team-row"
            href={`/teams/${encodeURIComponent(t.id)}`}
            name={t.name}
            description={t.description}
            facts={[{ label: 'Members', value: t.memberCount }]}
          />
        )}
      />
      {cannotWrite && <p class="muted">{cannotWrite}: you can look, not change.</p>}
      {creating && (
        <TeamForm
          team={null}
          onClose={() => setCreating(false)}
          onSaved={(team) => {
            setCreating(false);
            navigate(`/teams/${encodeURIComponent(team.id)}`);
          }}
        />
      )}
    </section>
  );
}

/** A team's name and description: a new team (`POST`), or a change to one (`PATCH` of those two fields). */
export function TeamForm(props: { team: Team | null; onClose: () => void; onSaved: (team: Team) => void }) {
  const { team } = props;
  const [name, setName] = useState(team?.name ?? '');
  const [description, setDescription] = useState(team?.description ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const body = { name, description };
      const answer = team
        ? await api<{ data: Team }>('PATCH', `/api/teams/${encodeURIComponent(team.id)}`, { body })
        : await api<{ data: Team }>('POST', '/api/teams', { body });
      props.onSaved(answer.data.data);
    } catch (err) {
      setError(describe(err));
      setBusy(false);
    }
  };
  return (
    <Dialog title={team ? `Edit ${team.name}` : 'New team'} onClose={props.onClose}>
      <form class="stack" onSubmit={(e) => void submit(e)} noValidate>
        <label for="team-name">Name</label>
        <input id="team-name" value={name} maxLength={200} autoFocus onInput={(e) => setName(e.currentTarget.value)} />
        <label for="team-description">Description</label>
        <textarea
          id="team-description"
          rows={3}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
        <ErrorText error={error} />
        <div class="buttons">
          <button type="submit" disabled={busy}>
            {team ? 'Save' : 'Create team'}
          </button>
          <button type="button" class="quiet" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
