import type { RequestContext } from '../../core/context.ts';
import { ResourceService, type ServiceDeps } from '../../core/resource-service.ts';
import { AppError } from '../../errors.ts';
import { notificationRules } from './rules.ts';
import type { NotificationCreate } from './schema.ts';
import type { Notification } from '../../model/notification.ts';

export class NotificationService extends ResourceService<
  Notification,
  NotificationCreate,
  never,
  Notification,
  'notifications'
> {
  constructor(deps: ServiceDeps<'notifications'>) {
    super(notificationRules, deps);
  }

  /** Marks one notification read (again, if it already was). */
  markRead(id: string, ctx: RequestContext = {}): Promise<Notification> {
    return this.change(id, ctx, (n) => (n.read ? n : { ...n, read: true }));
  }

  /**
   * Marks every unread notification (of `username`, when given) read; returns how many went from unread to
   * read. Whether each one changes is decided inside its write, so a concurrent mark or delete is not counted.
   */
  async markAllRead(username: string | undefined, ctx: RequestContext = {}): Promise<number> {
    let marked = 0;
    for (const { id } of await this.list({ username, read: false })) {
      try {
        // The store may run a change again after a conflict: what counts is its last run, the one committed.
        let changed = false;
        await this.change(id, { actor: ctx.actor }, (n) => {
          changed = !n.read;
          return changed ? { ...n, read: true } : n;
        });
        if (changed) marked++;
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'NOT_FOUND')) throw err; // deleted meanwhile
      }
    }
    return marked;
  }
}
