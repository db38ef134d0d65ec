import type { ListSpec } from '../../model/list.ts';
import type { ActivityEntry } from '../../model/activity.ts';
import { type Comment, CommentList } from '../../model/comment.ts';
import { type Milestone, MilestoneList } from '../../model/milestone.ts';
import { type Notification, NotificationList } from '../../model/notification.ts';
import { type Project, ProjectList } from '../../model/project.ts';
import { type Task, TaskList } from '../../model/task.ts';
import { type Team, TeamList } from '../../model/team.ts';
import { type TimeEntry, TimeEntryList } from '../../model/time-entry.ts';
import { TokenList, type TokenRecord } from '../../model/token.ts';
import { type WebhookRecord, WebhookList } from '../../model/webhook.ts';
import { TransactionScope } from '../scope.ts';
import {
  StoreNotEmptyError,
  type Collections,
  type LoadOptions,
  type Snapshot,
  type SnapshotRecords,
  type Store,
} from '../store.ts';
import type { StreamLog } from '../types.ts';
import { MemoryActivityLog } from './activity-log.ts';
import { MemoryCollection } from './collection.ts';
import { MemoryDeliveryLog } from './deliveries.ts';
import { UndoLog } from './undo.ts';

export interface MemoryStoreOptions {
  /** At most this many activity entries are kept, the oldest dropped (`ACTIVITY_LOG_MAX`); default 1,000,000. */
  activityLogMax?: number;
  /** Webhook delivery attempts kept per webhook (`WEBHOOK_HISTORY`); default 100. */
  webhookHistory?: number;
  /** Refuse a transaction opened inside another (`TransactionScope`); default true. */
  checkNesting?: boolean;
}

/**
 * The in-memory store: the default, emptied at every start. Each collection indexes the fields its list
 * filters and its cascades look up. Writers are serialized by a promise chain; readers never wait, so a read
 * outside a transaction may see the writes of one still running.
 *
 * A transaction works on views of the collections that note how to undo each write; when its work throws, the
 * writes are undone newest first, which leaves every record, and the insertion order, as it was.
 *
 * Each collection keeps, per record, the text its list's `q` searches (the resource's `ListSpec.search`).
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  readonly projects = new MemoryCollection<Project>(['status', 'teamId'], searched(ProjectList));
  readonly tasks = new MemoryCollection<Task>(['projectId', 'assignee', 'status'], searched(TaskList));
  readonly teams = new MemoryCollection<Team>([], searched(TeamList));
  readonly comments = new MemoryCollection<Comment>(['targetId', 'targetType', 'author'], searched(CommentList));
  readonly milestones = new MemoryCollection<Milestone>(['projectId', 'status'], searched(MilestoneList));
  readonly timeEntries = new MemoryCollection<TimeEntry>(['taskId', 'username', 'date'], searched(TimeEntryList));
  readonly webhooks = new MemoryCollection<WebhookRecord>(['active', 'events'], searched(WebhookList));
  readonly notifications = new MemoryCollection<Notification>(['username', 'type', 'read'], searched(NotificationList));
  readonly activity: MemoryActivityLog<ActivityEntry>;
  readonly tokens = new MemoryCollection<TokenRecord>(['hash', 'username'], searched(TokenList));
  /** Nothing to keep: the event stream fills its own ring once each change has committed. */
  readonly streamLog: StreamLog = { append: async () => {} };
  readonly deliveries: MemoryDeliveryLog;

  private tail: Promise<unknown> = Promise.resolve();
  private readonly scope: TransactionScope;

  constructor(options: MemoryStoreOptions = {}) {
    this.activity = new MemoryActivityLog<ActivityEntry>({ max: options.activityLogMax });
    this.deliveries = new MemoryDeliveryLog(options.webhookHistory ?? 100);
    this.scope = new TransactionScope(options.checkNesting);
  }

  transaction<R>(work: (tx: Collections) => Promise<R>): Promise<R> {
    return this.inTurn(() => this.atomically(work));
  }

  /**
   * Takes the records as the last committed change left them, in its turn among the writers (so no change is seen
   * half done), then lets the writers go on while `work` reads them: records are immutable values, so the arrays
   * taken are the snapshot.
   */
  async snapshot<R>(work: (snapshot: Snapshot) => Promise<R>): Promise<R> {
    const taken = await this.inTurn(async () => ({
      teams: this.teams.records(),
      projects: this.projects.records(),
      milestones: this.milestones.records(),
      tasks: this.tasks.records(),
      comments: this.comments.records(),
      timeEntries: this.timeEntries.records(),
      webhooks: this.webhooks.records(),
      notifications: this.notifications.records(),
      activity: this.activity.entries(),
      tokens: this.tokens.records(),
    }));
    return work({
      read: <K extends keyof SnapshotRecords>(kind: K) => inParts(taken[kind] as SnapshotRecords[K][]),
    });
  }

  load<R>(work: (tx: Collections) => Promise<R>, options: LoadOptions = {}): Promise<R> {
    return this.inTurn(() =>
      this.atomically(async (tx, undo) => {
        const counts = await Promise.all(this.holders().map((h) => h.count()));
        if (counts.some((n) => n > 0)) {
          if (!options.replace) throw new StoreNotEmptyError();
          for (const kind of RECORD_KINDS) await tx[kind].deleteWhere({});
          const gone = this.activity.clear();
          undo.step(() => gone.forEach((entry) => this.activity.add(entry)));
        }
        return work(tx);
      }),
    );
  }

  /** Runs `run` after every change before it, as the only one running (a transaction's turn). */
  private inTurn<R>(run: () => Promise<R>): Promise<R> {
    try {
      this.scope.assertOutside();
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const turn = this.tail.then(() => this.scope.run(run));
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}

  private async atomically<R>(work: (tx: Collections, undo: UndoLog) => Promise<R>): Promise<R> {
    const undo = new UndoLog();
    const holders = this.holders();
    for (const h of holders) h.hold(true);
    try {
      return await work(
        {
          projects: undo.collection(this.projects),
          tasks: undo.collection(this.tasks),
          teams: undo.collection(this.teams),
          comments: undo.collection(this.comments),
          milestones: undo.collection(this.milestones),
          timeEntries: undo.collection(this.timeEntries),
          webhooks: undo.collection(this.webhooks),
          notifications: undo.collection(this.notifications),
          activity: undo.activityLog(this.activity),
          tokens: undo.collection(this.tokens),
          streamLog: this.streamLog,
          deliveries: undo.deliveryLog(this.deliveries),
        },
        undo,
      );
    } catch (error) {
      undo.rollBack();
      throw error;
    } finally {
      for (const h of holders) h.hold(false);
    }
  }

  /** What a transaction holds while it runs: every collection and the log. */
  private holders(): { hold(on: boolean): void; count(): Promise<number> }[] {
    return [
      this.projects,
      this.tasks,
      this.teams,
      this.comments,
      this.milestones,
      this.timeEntries,
      this.webhooks,
      this.notifications,
      this.tokens,
      this.activity,
    ];
  }
}

/** The collections of records (the activity log aside), children before parents: the order to empty them in. */
const RECORD_KINDS = [
  'notifications',
  'timeEntries',
  'comments',
  'tasks',
  'milestones',
  'projects',
  'teams',
  'webhooks',
  'tokens',
] as const;

/** How many records a snapshot's part holds. */
const PART = 5_000;

async function* inParts<T>(records: readonly T[]): AsyncIterable<readonly T[]> {
  for (let i = 0; i < records.length; i += PART) yield records.slice(i, i + PART);
}

/** The fields a resource's `q` searches, as the collection of its records keeps them. */
function searched<T>(list: ListSpec): (keyof T & string)[] {
  return [...list.search] as (keyof T & string)[];
}
