/**
 * The app's views by path: the first pattern that matches the location's path draws the page. The service answers
 * the app's page at each of these paths to a browser (`VIEW_PATHS` in src/web/index.ts), so each is a deep link.
 */
import type { VNode } from 'preact';
import { Activity, ProjectActivity } from './views/activity.tsx';
import { Board } from './views/board.tsx';
import { Milestones } from './views/milestones.tsx';
import { Notifications } from './views/notifications.tsx';
import { Projects } from './views/projects.tsx';
import { TaskView } from './views/task.tsx';
import { Teams } from './views/teams.tsx';
import { TeamView } from './views/team.tsx';
import { TimeReport } from './views/time-report.tsx';
import { Tokens } from './views/tokens.tsx';
import { WebhookView } from './views/webhook.tsx';
import { Webhooks } from './views/webhooks.tsx';

export interface Route {
  readonly path: RegExp;
  /** The view, given the path's decoded groups (`/tasks/:id` → the id). */
  readonly view: (...params: string[]) => VNode;
}

export const ROUTES: readonly Route[] = [
  { path: /^\/(?:projects)?$/, view: () => <Projects /> },
  { path: /^\/projects\/([^/]+)$/, view: (id) => <Board key={id} projectId={id} /> },
  { path: /^\/projects\/([^/]+)\/milestones$/, view: (id) => <Milestones key={id} projectId={id} /> },
  { path: /^\/projects\/([^/]+)\/time$/, view: (id) => <TimeReport key={id} projectId={id} /> },
  { path: /^\/tasks\/([^/]+)$/, view: (id) => <TaskView key={id} taskId={id} /> },
  { path: /^\/notifications$/, view: () => <Notifications /> },
  { path: /^\/activity$/, view: () => <Activity /> },
  { path: /^\/projects\/([^/]+)\/activity$/, view: (id) => <ProjectActivity key={id} projectId={id} /> },
  { path: /^\/teams$/, view: () => <Teams /> },
  { path: /^\/teams\/([^/]+)$/, view: (id) => <TeamView key={id} teamId={id} /> },
  { path: /^\/webhooks$/, view: () => <Webhooks /> },
  { path: /^\/webhooks\/([^/]+)$/, view: (id) => <WebhookView key={id} webhookId={id} /> },
  { path: /^\/tokens$/, view: () => <Tokens /> },
];

/** The view of a path, or undefined when no route has it. */
export function viewOf(path: string): VNode | undefined {
  for (const route of ROUTES) {
    const match = route.path.exec(path);
    if (match) return route.view(...match.slice(1).map(decodeURIComponent));
  }
  return undefined;
}
