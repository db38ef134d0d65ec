import { crudResource } from '../resource.ts';
import { markRoutes } from './routes.ts';
import { MarkedRead, NotificationQuery } from './schema.ts';
import { NotificationList, Notification } from '../../model/notification.ts';
import { notificationRules } from './rules.ts';

/** A notification as the service creates one (none is seeded): dana is told of her assignment to task_001. */
const SAMPLE: Notification = {
  id: 'notif_001',
  username: 'dana',
  type: 'task_assigned',
  message: 'You were assigned to task Design the new homepage',
  resourceType: 'task',
  resourceId: 'task_001',
  read: false,
  createdAt: '2026-11-22T10:00:00.000Z',
};

/** No update: a notification only changes by being marked read. */
export const notifications = crudResource(notificationRules, {
  description: 'Per-user notifications the service creates as things change.',
  samples: [SAMPLE],
  schemas: { record: Notification, query: NotificationQuery },
  list: NotificationList,
  shapes: { MarkedRead },
  more: (app, s) => markRoutes(app, s.notifications, notificationRules.names),
});
