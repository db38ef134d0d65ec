import { activityLog } from './activity-log/resource.ts';
import { comments } from './comments/resource.ts';
import { eventTypes } from './event-types/resource.ts';
import { health } from './health/resource.ts';
import { milestones } from './milestones/resource.ts';
import { notifications } from './notifications/resource.ts';
import { projects } from './projects/resource.ts';
import type { Resource } from './resource.ts';
import { session } from './session/resource.ts';
import { tasks } from './tasks/resource.ts';
import { teams } from './teams/resource.ts';
import { timeEntries } from './time-entries/resource.ts';
import { tokens } from './tokens/resource.ts';
import { webhooks } from './webhooks/resource.ts';

/** Every resource the service serves, in the order the document lists their tags. */
export const resources: readonly Resource[] = [
  projects,
  tasks,
  teams,
  comments,
  milestones,
  timeEntries,
  webhooks,
  eventTypes,
  activityLog,
  notifications,
  tokens,
  session,
  health,
];
