import { kindNames } from '../../core/names.ts';
import type { ResourceDef } from '../../core/rules.ts';
import { NotificationCreate } from './schema.ts';
import { Notification } from '../../model/notification.ts';

const names = kindNames('notification');

export const notificationRules: ResourceDef<Notification, NotificationCreate, never> = {
  names,
  idPrefix: 'notif',
  updatedAt: false,
  createSchema: NotificationCreate,
  build: (input) => ({
    username: input.username,
    type: input.type,
    message: input.message,
    resourceType: input.resourceType!,
    resourceId: input.resourceId!,
    read: false, // always unread at creation
  }),
};
