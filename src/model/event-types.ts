/**
 * The event types a webhook can subscribe to, exactly the interface's twelve, each with what it means, and `*` for
 * all of them. The one list: the validation of `events`, the list filter, delivery and `GET /api/event-types` read it.
 */
export const EVENT_CATALOGUE = [
  { type: 'project.created', description: 'Project created' },
  { type: 'project.updated', description: 'Project modified (also when its team is deleted); carries `previous`' },
  { type: 'project.deleted', description: 'Project deleted' },
  { type: 'task.created', description: 'Task created' },
  { type: 'task.updated', description: 'Task modified; carries `previous`' },
  { type: 'task.deleted', description: 'Task deleted (also when its project is deleted)' },
  { type: 'comment.created', description: 'Comment posted' },
  { type: 'comment.updated', description: 'Comment modified; carries `previous`' },
  { type: 'comment.deleted', description: 'Comment deleted (also when the task or project it is on is deleted)' },
  { type: 'milestone.reached', description: 'Milestone achieved: its status became `reached`' },
  {
    type: 'sprint.started',
    description: 'Sprint initiated: an activity entry with action `sprint.started` was posted',
  },
  {
    type: 'sprint.completed',
    description: 'Sprint finished: an activity entry with action `sprint.completed` was posted',
  },
] as const;
export type EventType = (typeof EVENT_CATALOGUE)[number]['type'];
export const EVENT_TYPES: readonly EventType[] = EVENT_CATALOGUE.map((e) => e.type);
/** The test event `POST /api/webhooks/:id/ping` sends: in the delivery log beside the catalogue's types. */
export const PING_EVENT = 'webhook.ping';
/** What a delivery's `eventType` can be, and so the values its filter takes. */
export const DELIVERY_EVENT_TYPES: readonly string[] = [...EVENT_TYPES, PING_EVENT];
export const WILDCARD = '*';
export const SUBSCRIBABLE: readonly string[] = [...EVENT_TYPES, WILDCARD];
/** What `GET /api/event-types` lists: the catalogue, then the wildcard. */
export const SUBSCRIBABLE_TYPES: readonly { type: string; description: string }[] = [
  ...EVENT_CATALOGUE,
  { type: WILDCARD, description: 'Wildcard: all event types' },
];
