import type { ListSpec } from './list.ts';
import { Type, type Static } from 'typebox';
import { Id, Nullable, StringEnum, Timestamp } from './schema.ts';

export const NOTIFICATION_TYPES = ['task_assigned', 'comment_added', 'milestone_reached', 'project_updated'] as const;
export const NOTIFICATION_RESOURCES = ['task', 'project', 'milestone', 'comment'] as const;

export const Notification = Type.Object({
  id: Id('notif'),
  username: Type.String(),
  type: StringEnum(NOTIFICATION_TYPES),
  message: Type.String(),
  resourceType: Nullable(StringEnum(NOTIFICATION_RESOURCES)),
  resourceId: Nullable(Type.String()),
  read: Type.Boolean(),
  createdAt: Timestamp,
});
export type Notification = Static<typeof Notification>;

/** What a list of these records offers beyond its exact filters: `sort`, the range operators, `q`. */
export const NotificationList: ListSpec = {
  sort: { type: null, username: null, createdAt: null },
  ranges: { createdAt: 'instant' },
  search: ['message'],
};
