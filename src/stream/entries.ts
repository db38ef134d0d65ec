import type { IdGenerator } from '../model/ids.ts';
import { recordOf } from '../events/derived.ts';
import type { DomainEvent } from '../events/types.ts';
import { changeEvents } from '../events/webhooks.ts';
import type { Collections } from '../store/store.ts';
import type { StreamEntry } from '../store/types.ts';
import { eventJson, type OutboundEvent } from '../model/outbound.ts';

/** The stream's events are known by their position, not by an event id: none is drawn for them. */
const NO_IDS: IdGenerator = (prefix) => `${prefix}_`;

/** How many tasks' projects are remembered (a task never moves to another project, so an entry never goes stale). */
const TASKS_REMEMBERED = 100_000;

/**
 * The stream's entries for each change: its events (events/webhooks.ts), each with the body a webhook receives
 * and the project it concerns, worked out once, when the change is made, so that filtering by project costs no
 * query per event and client. A project's own events, its tasks' and milestones' carry it in their record;
 * comments on a task and time entries name the task, whose project is remembered from the task's events or read
 * once in the change's transaction. A task's delete publishes its comments' and time entries' deletes while the task
 * is still there to read; a project's deletes its tasks first, so their comments and time entries are of the project
 * whose delete took them (`cascadeOf`).
 */
export class StreamEntries {
  private readonly taskProjects = new Map<string, string>();

  async of(event: DomainEvent, tx: Pick<Collections, 'tasks'>): Promise<StreamEntry[]> {
    const projectId = await this.projectOf(event, tx);
    return changeEvents(event, NO_IDS).map((outbound) => new Entry(outbound, projectId));
  }

  private async projectOf(event: DomainEvent, tx: Pick<Collections, 'tasks'>): Promise<string | null> {
    const record = recordOf(event);
    switch (event.resourceType) {
      case 'project':
        return String(record.id);
      case 'task':
        this.remember(String(record.id), String(record.projectId));
        return String(record.projectId);
      case 'milestone':
        return String(record.projectId);
      case 'comment':
        return record.targetType === 'project'
          ? String(record.targetId)
          : this.projectOfTask(String(record.targetId), tx, event);
      case 'time_entry':
        return this.projectOfTask(String(record.taskId), tx, event);
      case 'activity':
        // A posted entry about a project or a task (a sprint's start, say) concerns that project.
        if (record.resourceType === 'project') return String(record.resourceId);
        return record.resourceType === 'task' ? this.projectOfTask(String(record.resourceId), tx, event) : null;
      default:
        return null;
    }
  }

  private async projectOfTask(
    taskId: string,
    tx: Pick<Collections, 'tasks'>,
    event: DomainEvent,
  ): Promise<string | null> {
    const known = this.taskProjects.get(taskId);
    if (known !== undefined) return known;
    const task = await tx.tasks.get(taskId);
    if (!task) return event.cascadeOfType === 'project' ? event.cascadeOf! : null;
    this.remember(taskId, task.projectId);
    return task.projectId;
  }

  private remember(taskId: string, projectId: string): void {
    if (this.taskProjects.size >= TASKS_REMEMBERED && !this.taskProjects.has(taskId)) {
      this.taskProjects.delete(this.taskProjects.keys().next().value!);
    }
    this.taskProjects.set(taskId, projectId);
  }
}

/**
 * An entry whose body, the event as JSON, is made when first read: by the durable stores as they write it in the
 * change's transaction, by the memory store only once a client needs the event. A record is never changed once
 * stored (a change stores a new one), so the body made later is the one made now would be.
 */
class Entry implements StreamEntry {
  readonly type: string;
  private event: OutboundEvent | undefined;
  private made: string | undefined;

  constructor(
    event: OutboundEvent,
    readonly projectId: string | null,
  ) {
    this.type = event.type;
    this.event = event;
  }

  get body(): string {
    if (this.made === undefined) {
      this.made = eventJson(this.event!);
      this.event = undefined; // the record is no longer needed here once its text is made
    }
    return this.made;
  }
}
