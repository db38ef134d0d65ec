import type { ServiceDeps } from '../core/resource-service.ts';
import type { Store } from '../store/store.ts';
import { ActivityLogService } from './activity-log/service.ts';
import { CommentService } from './comments/service.ts';
import { HealthService } from './health/service.ts';
import { MilestoneService } from './milestones/service.ts';
import { NotificationService } from './notifications/service.ts';
import { ProjectService } from './projects/service.ts';
import { TaskService } from './tasks/service.ts';
import { TeamService } from './teams/service.ts';
import { TimeEntryService } from './time-entries/service.ts';
import { TokenService } from './tokens/service.ts';
import { DeliveryService, type DeliveryQueue } from './webhooks/deliveries.ts';
import { WebhookService } from './webhooks/service.ts';

export interface Services {
  readonly projects: ProjectService;
  readonly tasks: TaskService;
  readonly teams: TeamService;
  readonly comments: CommentService;
  readonly milestones: MilestoneService;
  readonly timeEntries: TimeEntryService;
  readonly webhooks: WebhookService;
  readonly deliveries: DeliveryService;
  readonly activity: ActivityLogService;
  readonly notifications: NotificationService;
  readonly tokens: TokenService;
  readonly health: HealthService;
}

/** The services, each on the same store, clock, ids and event bus; deliveries go to `queue`. */
export function createServices(deps: ServiceDeps & { readonly store: Store }, queue: DeliveryQueue): Services {
  const webhooks = new WebhookService(deps);
  return {
    projects: new ProjectService(deps),
    tasks: new TaskService(deps),
    teams: new TeamService(deps),
    comments: new CommentService(deps),
    milestones: new MilestoneService(deps),
    timeEntries: new TimeEntryService(deps),
    webhooks,
    deliveries: new DeliveryService(webhooks, queue, deps),
    activity: new ActivityLogService(deps),
    notifications: new NotificationService(deps),
    tokens: new TokenService(deps),
    health: new HealthService(deps),
  };
}
