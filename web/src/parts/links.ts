/**
 * Where a record is shown in the app, from its kind and id: at once for the kinds with a page of their own, after a
 * read for those shown on another record's page (a milestone on its project's, a comment on its target's, a time
 * entry on its task's). Null for kinds the app does not show (a notification, a token).
 */
import { api } from '../api.ts';
import type { Comment, Milestone } from '../types.ts';

const enc = encodeURIComponent;

export function pageOf(kind: string, id: string): string | null {
  switch (kind) {
    case 'task':
      return `/tasks/${enc(id)}`;
    case 'project':
      return `/projects/${enc(id)}`;
    case 'team':
      return `/teams/${enc(id)}`;
    case 'webhook':
      return `/webhooks/${enc(id)}`;
    default:
      return null;
  }
}

/** Whether `resolvePage` can find a page for this kind of record. */
export const hasPage = (kind: string) =>
  ['task', 'project', 'team', 'webhook', 'milestone', 'comment', 'time_entry'].includes(kind);

export async function resolvePage(kind: string, id: string): Promise<string | null> {
  const direct = pageOf(kind, id);
  if (direct) return direct;
  if (kind === 'milestone') {
    const m = await api<{ data: Milestone }>('GET', `/api/milestones/${enc(id)}`);
    return `/projects/${enc(m.data.data.projectId)}/milestones`;
  }
  if (kind === 'comment') {
    const c = await api<{ data: Comment }>('GET', `/api/comments/${enc(id)}`);
    return pageOf(c.data.data.targetType, c.data.data.targetId);
  }
  if (kind === 'time_entry') {
    const t = await api<{ data: { taskId: string } }>('GET', `/api/time-entries/${enc(id)}`);
    return pageOf('task', t.data.data.taskId);
  }
  return null;
}
