import type { ListSpec } from '../../http/list.ts';
import { Type, type Static } from 'typebox';
import {
  Body,
  Id,
  LIMITS,
  Nullable,
  Query,
  RequiredText,
  StringEnum,
  Timestamp,
  Username,
} from '../../schemas/common.ts';

export const NOTIFICATION_TYPES = ['task_assigned', 'comment_added', 'milestone_reached', 'project_updated'] as const;
export const NOTIFICATION_RESOURCES = ['task', 'project', 'milestone', 'comment'] as const;
const NotificationType = StringEnum(NOTIFICATION_TYPES);

export const Notification = Type.Object({
  id: Id('notif'),
  username: Type.String(),
  type: NotificationType,
  message: Type.String(),
  resourceType: Nullable(StringEnum(NOTIFICATION_RESOURCES)),
  resourceId: Nullable(Type.String()),
  read: Type.Boolean(),
  createdAt: Timestamp,
});
export type Notification = Static<typeof Notification>;

/** `read` is always false at creation: sent, it is ignored. */
export const NotificationCreate = Body({
  username: Username,
  type: NotificationType,
  message: RequiredText(LIMITS.text),
  resourceType: Type.Optional({ ...Nullable(StringEnum(NOTIFICATION_RESOURCES)), default: null }),
  resourceId: Type.Optional({ ...Nullable(Type.String({ maxLength: LIMITS.name })), default: null }),
});
export type NotificationCreate = Static<typeof NotificationCreate>;

export const NotificationQuery = Query({
  username: Type.Optional(Type.String()),
  type: Type.Optional(NotificationType),
  read: Type.Optional(Type.Boolean({ description: '`true` or `false`' })),
});
export type NotificationQuery = Static<typeof NotificationQuery>;

export const ReadAllQuery = Query({ username: Type.Optional(Type.String()) });
export type ReadAllQuery = Static<typeof ReadAllQuery>;

export const MarkedRead = Type.Object({ data: Type.Object({ markedRead: Type.Integer({ minimum: 0 }) }) });

/** What the list offers beyond its exact filters: `sort`, the range operators, `q`. */
export const NotificationList: ListSpec = {
  sort: { type: null, username: null, createdAt: null },
  ranges: { createdAt: 'instant' },
  search: ['message'],
};
