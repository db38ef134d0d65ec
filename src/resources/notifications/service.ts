import { ResourceService, type ResourceDef, type ServiceDeps } from '../../core/resource-service.ts';
import type { RequestContext } from '../../events/types.ts';
import { NotificationCreate, type Notification, type NotificationQuery } from './schema.ts';

export const notificationDef: ResourceDef<Notification, NotificationCreate, never> = {
  type: 'notification',
  label: 'Notification',
  idPrefix: 'notif',
  updatedAt: false,
  collection: (store) => store.notifications,
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

export class NotificationService extends ResourceService<Notification, NotificationCreate, never> {
  constructor(deps: ServiceDeps) {
    super(notificationDef, deps);
  }

  override list(query: NotificationQuery = {}): Promise<Notification[]> {
    return super.list({ username: query.username, type: query.type, read: query.read });
  }

  /** Marks one notification read (again, if it already was). */
  markRead(id: string, ctx: RequestContext = {}): Promise<Notification> {
    return this.change(id, ctx, (n) => (n.read ? n : { ...n, read: true }));
  }

  /** Marks every unread notification (of `username`, when given) read; returns how many changed. */
  async markAllRead(username: string | undefined, ctx: RequestContext = {}): Promise<number> {
    const unread = await this.list({ username, read: false });
    let marked = 0;
    for (const n of unread) {
      const before = await this.collection.get(n.id);
      if (!before || before.read) continue; // deleted or marked meanwhile
      await this.markRead(n.id, { actor: ctx.actor });
      marked++;
    }
    return marked;
  }
}
