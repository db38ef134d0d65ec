import { Type, type Static } from 'typebox';
import { Body, LIMITS, Nullable, Query, RequiredText, StringEnum, Username } from '../../schemas/common.ts';
import { NOTIFICATION_RESOURCES, NOTIFICATION_TYPES } from '../../model/notification.ts';

const NotificationType = StringEnum(NOTIFICATION_TYPES);

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
