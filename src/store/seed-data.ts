import type { ActivityEntry } from '../model/activity.ts';
import type { Comment } from '../model/comment.ts';
import type { Milestone } from '../model/milestone.ts';
import type { Project } from '../model/project.ts';
import type { Task } from '../model/task.ts';
import type { Team } from '../model/team.ts';
import type { TimeEntry } from '../model/time-entry.ts';
import type { WebhookRecord } from '../model/webhook.ts';

/**
 * The sample records present at every start: one small, consistent history. Tasks belong to real projects
 * and are assigned to members of the project's team; comments and time entries are by those members; the
 * activity log tells how it came about. Ids are stable so the docs, examples and tests can name them.
 */

const at = (day: string, time = '09:00:00') => `2026-${day}T${time}.000Z`;

export const teams: Team[] = [
  {
    id: 'team_001',
    name: 'Platform',
    description: 'APIs, infrastructure and data',
    members: [
      { username: 'alice', role: 'lead' },
      { username: 'bob', role: 'engineer' },
      { username: 'carol', role: 'engineer' },
    ],
    createdAt: at('09-01'),
    updatedAt: at('09-01'),
  },
  {
    id: 'team_002',
    name: 'Product Design',
    description: 'Research, UX and visual design',
    members: [
      { username: 'dana', role: 'lead' },
      { username: 'erin', role: 'designer' },
    ],
    createdAt: at('09-01', '09:30:00'),
    updatedAt: at('09-01', '09:30:00'),
  },
  {
    id: 'team_003',
    name: 'Mobile',
    description: 'iOS and Android apps',
    members: [
      { username: 'frank', role: 'lead' },
      { username: 'grace', role: 'engineer' },
      { username: 'heidi', role: 'designer' },
    ],
    createdAt: at('09-02'),
    updatedAt: at('09-02'),
  },
];

export const projects: Project[] = [
  {
    id: 'proj_001',
    name: 'Website Redesign',
    description: 'New marketing site with a refreshed brand',
    status: 'active',
    teamId: 'team_002',
    createdAt: at('09-05'),
    updatedAt: at('10-01'),
  },
  {
    id: 'proj_002',
    name: 'API v2 Migration',
    description: 'Move every client to the v2 API and retire v1',
    status: 'active',
    teamId: 'team_001',
    createdAt: at('09-08'),
    updatedAt: at('10-03'),
  },
  {
    id: 'proj_003',
    name: 'Mobile App Launch',
    description: 'First public release of the iOS and Android apps',
    status: 'planned',
    teamId: 'team_003',
    createdAt: at('09-20'),
    updatedAt: at('09-20'),
  },
  {
    id: 'proj_004',
    name: 'Data Warehouse',
    description: 'Nightly reporting warehouse',
    status: 'completed',
    teamId: 'team_001',
    createdAt: at('09-02'),
    updatedAt: at('10-20'),
  },
  {
    id: 'proj_005',
    name: 'Internal Wiki',
    description: 'One place for team documentation',
    status: 'planned',
    teamId: null,
    createdAt: at('10-10'),
    updatedAt: at('10-10'),
  },
];

const task = (
  id: string,
  projectId: string,
  title: string,
  status: Task['status'],
  priority: Task['priority'],
  assignee: string | null,
  created: string,
  updated = created,
  description = '',
): Task => ({
  id,
  projectId,
  title,
  description,
  status,
  priority,
  assignee,
  createdAt: at(created),
  updatedAt: at(updated),
});

export const tasks: Task[] = [
  task(
    'task_001',
    'proj_001',
    'Design the new homepage',
    'done',
    'high',
    'dana',
    '09-06',
    '09-30',
    'Hero, navigation and footer for desktop and mobile',
  ),
  task('task_002', 'proj_001', 'Build the responsive navigation', 'in_progress', 'medium', 'erin', '09-10', '10-12'),
  task('task_003', 'proj_001', 'Accessibility audit', 'todo', 'medium', null, '09-12'),
  task('task_004', 'proj_002', 'Define the v2 endpoint contracts', 'done', 'high', 'alice', '09-09', '09-25'),
  task('task_005', 'proj_002', 'Write the migration guide', 'in_progress', 'medium', 'bob', '09-15', '10-14'),
  task('task_006', 'proj_002', 'Deprecate the v1 auth endpoints', 'todo', 'high', 'carol', '09-16'),
  task('task_007', 'proj_003', 'Set up push notifications', 'todo', 'medium', 'grace', '09-21'),
  task('task_008', 'proj_003', 'App store listing assets', 'todo', 'low', 'heidi', '09-22'),
  task('task_009', 'proj_004', 'Nightly ETL job', 'done', 'medium', 'bob', '09-03', '10-18'),
  task('task_010', 'proj_005', 'Choose a wiki platform', 'todo', 'low', null, '10-10'),
];

const comment = (
  id: string,
  targetType: Comment['targetType'],
  targetId: string,
  author: string,
  body: string,
  day: string,
): Comment => ({
  id,
  targetType,
  targetId,
  author,
  body,
  createdAt: at(day, '14:00:00'),
  updatedAt: at(day, '14:00:00'),
});

export const comments: Comment[] = [
  comment('cmt_001', 'task', 'task_001', 'erin', 'Looks great. Can we try a darker hero image?', '09-28'),
  comment('cmt_002', 'task', 'task_002', 'dana', 'The menu should collapse below 768px.', '10-11'),
  comment('cmt_003', 'task', 'task_005', 'alice', 'Please add a section on pagination changes.', '10-13'),
  comment('cmt_004', 'project', 'proj_002', 'carol', 'v1 traffic is down to 12%; we are on track.', '10-15'),
  comment('cmt_005', 'task', 'task_007', 'frank', 'Use the shared notification service, not a new one.', '09-23'),
  comment('cmt_006', 'project', 'proj_001', 'dana', 'Launch moved to mid-December.', '10-01'),
];

export const milestones: Milestone[] = [
  {
    id: 'ms_001',
    projectId: 'proj_001',
    title: 'Design sign-off',
    description: 'All page designs approved',
    status: 'reached',
    dueDate: '2026-09-30',
    reachedAt: at('09-30', '16:00:00'),
    createdAt: at('09-05'),
    updatedAt: at('09-30', '16:00:00'),
  },
  {
    id: 'ms_002',
    projectId: 'proj_001',
    title: 'Public launch',
    description: 'New site live for everyone',
    status: 'in_progress',
    dueDate: '2026-12-15',
    reachedAt: null,
    createdAt: at('09-05'),
    updatedAt: at('10-01'),
  },
  {
    id: 'ms_003',
    projectId: 'proj_002',
    title: 'v2 beta',
    description: 'v2 open to beta clients',
    status: 'in_progress',
    dueDate: '2026-11-30',
    reachedAt: null,
    createdAt: at('09-08'),
    updatedAt: at('10-03'),
  },
  {
    id: 'ms_004',
    projectId: 'proj_003',
    title: 'App store submission',
    description: '',
    status: 'pending',
    dueDate: '2027-01-31',
    reachedAt: null,
    createdAt: at('09-20'),
    updatedAt: at('09-20'),
  },
  {
    id: 'ms_005',
    projectId: 'proj_004',
    title: 'Warehouse go-live',
    description: 'Reports served from the warehouse',
    status: 'reached',
    dueDate: null,
    reachedAt: at('10-20', '11:00:00'),
    createdAt: at('09-02'),
    updatedAt: at('10-20', '11:00:00'),
  },
];

const entry = (
  id: string,
  taskId: string,
  username: string,
  hours: number,
  description: string,
  date: string,
): TimeEntry => ({
  id,
  taskId,
  username,
  hours,
  description,
  date: `2026-${date}`,
  createdAt: at(date, '18:00:00'),
  updatedAt: at(date, '18:00:00'),
});

export const timeEntries: TimeEntry[] = [
  entry('te_001', 'task_001', 'dana', 3.5, 'Homepage wireframes', '09-07'),
  entry('te_002', 'task_002', 'erin', 2, 'Navigation prototype', '10-11'),
  entry('te_003', 'task_002', 'erin', 4.25, 'Breakpoints and keyboard support', '10-12'),
  entry('te_004', 'task_004', 'alice', 6, 'Contract review with client teams', '09-24'),
  entry('te_005', 'task_005', 'bob', 1.5, 'Outline of the guide', '10-14'),
  entry('te_006', 'task_009', 'bob', 7.75, 'Incremental loads', '10-17'),
  entry('te_007', 'task_007', 'grace', 2, 'Push provider comparison', '09-22'),
];

/** Webhooks point at reserved hosts (RFC 2606 `.example` and `.invalid`): nothing real is ever called. */
export const webhooks: Omit<WebhookRecord, 'secret'>[] = [
  {
    id: 'wh_001',
    url: 'https://hooks.example.com/pm/tasks',
    events: ['task.created', 'task.updated', 'task.deleted'],
    active: true,
    description: 'Task board sync',
    createdAt: at('09-10'),
    updatedAt: at('09-10'),
  },
  {
    id: 'wh_002',
    url: 'https://ci.example.org/hooks/projects',
    events: ['project.created', 'project.updated', 'project.deleted', 'milestone.reached'],
    active: true,
    description: 'Release dashboard',
    createdAt: at('09-11'),
    updatedAt: at('09-11'),
  },
  {
    id: 'wh_003',
    url: 'https://chat.example.net/pm',
    events: ['*'],
    active: true,
    description: 'Team chat feed',
    createdAt: at('09-12'),
    updatedAt: at('09-12'),
  },
  {
    id: 'wh_004',
    url: 'https://legacy.invalid/hooks/comments',
    events: ['comment.created'],
    active: false,
    description: 'Old comment mirror (retired)',
    createdAt: at('09-03'),
    updatedAt: at('10-02'),
  },
];

const act = (
  id: string,
  timestamp: string,
  action: string,
  actor: string,
  resourceType: string,
  resourceId: string,
  summary: string,
  metadata: Record<string, unknown> = {},
): ActivityEntry => ({
  id,
  action,
  actor,
  resourceType,
  resourceId,
  summary,
  metadata,
  timestamp,
});

/** Oldest first, as they happened. */
export const activity: ActivityEntry[] = [
  act('act_001', at('09-05'), 'project.created', 'dana', 'project', 'proj_001', 'Created project Website Redesign'),
  act('act_002', at('09-08'), 'project.created', 'alice', 'project', 'proj_002', 'Created project API v2 Migration'),
  act('act_003', at('09-12'), 'webhook.created', 'system', 'webhook', 'wh_003', 'Registered webhook for team chat', {
    events: ['*'],
  }),
  act('act_004', at('09-15'), 'sprint.started', 'alice', 'project', 'proj_002', 'Sprint 1 started', { sprint: 1 }),
  act(
    'act_005',
    at('09-25'),
    'task.status_changed',
    'alice',
    'task',
    'task_004',
    'Define the v2 endpoint contracts: in_progress → done',
    { from: 'in_progress', to: 'done' },
  ),
  act('act_006', at('09-29'), 'sprint.completed', 'alice', 'project', 'proj_002', 'Sprint 1 completed', { sprint: 1 }),
  act(
    'act_007',
    at('09-30', '16:00:00'),
    'milestone.reached',
    'dana',
    'milestone',
    'ms_001',
    'Design sign-off reached',
    { projectId: 'proj_001' },
  ),
  act('act_008', at('10-01'), 'project.updated', 'dana', 'project', 'proj_001', 'Launch moved to December', {
    fields: ['description'],
  }),
  act(
    'act_009',
    at('10-14'),
    'task.assigned',
    'alice',
    'task',
    'task_005',
    'Write the migration guide assigned to bob',
    { from: null, to: 'bob' },
  ),
  act(
    'act_010',
    at('10-20', '11:00:00'),
    'milestone.reached',
    'alice',
    'milestone',
    'ms_005',
    'Warehouse go-live reached',
    { projectId: 'proj_004' },
  ),
];
