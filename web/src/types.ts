/**
 * The API's records, as the service declares them: the web app's types are the TypeBox schemas' own, so a field
 * renamed in the API fails `npm run typecheck` here too.
 */
export type { Comment } from '../../src/resources/comments/schema.ts';
export type { Milestone } from '../../src/resources/milestones/schema.ts';
export type { Project } from '../../src/resources/projects/schema.ts';
export type { Task, TaskCreate, TaskPatch } from '../../src/resources/tasks/schema.ts';
export type { Team, TeamSummary } from '../../src/resources/teams/schema.ts';
export type { TimeEntry } from '../../src/resources/time-entries/schema.ts';
export type { DeliveryRecord, Webhook, WebhookRecord } from '../../src/resources/webhooks/schema.ts';
export type { Token, TokenWithValue } from '../../src/resources/tokens/schema.ts';
export type { ActivityEntry } from '../../src/resources/activity-log/schema.ts';
export type { Notification } from '../../src/resources/notifications/schema.ts';
export type { Session } from '../../src/resources/session/schema.ts';
export type { ErrorResponse as ErrorBody } from '../../src/errors.ts';
