import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import type { Team, TeamSummary } from '../types.ts';

/**
 * The usernames of the members of the teams (of one team, when `teamId` is given), sorted: what the app suggests
 * for a name or an assignee. Empty while they load, or when they cannot be read (the box still takes any name).
 */
export function useMembers(teamId?: string | null): string[] {
  const [members, setMembers] = useState<string[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    const load = async () => {
      const ids =
        teamId === undefined
          ? (await api<{ data: TeamSummary[] }>('GET', '/api/teams', { signal: controller.signal })).data.data.map(
              (t) => t.id,
            )
          : teamId === null
            ? []
            : [teamId];
      const teams = await Promise.all(
        ids.map((id) =>
          api<{ data: Team }>('GET', `/api/teams/${encodeURIComponent(id)}`, { signal: controller.signal }),
        ),
      );
      const names = new Set(teams.flatMap((t) => t.data.data.members.map((m) => m.username)));
      setMembers([...names].sort((a, b) => a.localeCompare(b)));
    };
    load().catch(() => setMembers([]));
    return () => controller.abort();
  }, [teamId]);
  return members;
}
