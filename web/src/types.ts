/**
 * The API's records, as the service declares them: the web app's types are the TypeBox schemas' own, so a field
 * renamed in the API fails `npm run typecheck` here too. Records come from the model; request bodies, summaries and
 * the session from the resource that defines them.
 */
export type { ActivityEntry } from '../../src/model/activity.ts';
export type { Comment } from '../../src/model/comment.ts';
export type { DeliveryRecord } from '../../src/model/delivery.ts';
export type { Milestone } from '../../src/model/milestone.ts';
export type { Notification } from '../../src/model/notification.ts';
export type { Project } from '../../src/model/project.ts';
export type { Task } from '../../src/model/task.ts';
export type { Team } from '../../src/model/team.ts';
export type { TimeEntry } from '../../src/model/time-entry.ts';
export type { Token } from '../../src/model/token.ts';
export type { Webhook, WebhookRecord } from '../../src/model/webhook.ts';
export type { TaskCreate, TaskPatch } from '../../src/resources/tasks/schema.ts';
export type { TeamSummary } from '../../src/resources/teams/schema.ts';
export type { TokenWithValue } from '../../src/resources/tokens/schema.ts';
export type { Session } from '../../src/resources/session/schema.ts';
export type { ErrorResponse as ErrorBody } from '../../src/errors.ts';
