import type { ActivityLog, ActivityQuery, ActivityRecord, Collection, Entity, Updated } from '../types.ts';
import type { Filter, ListQuery, Page } from '../../model/list.ts';
import type { DeliveryLog, StoredDelivery } from '../outbox.ts';
import type { MemoryActivityLog } from './activity-log.ts';
import type { MemoryDeliveryLog } from './deliveries.ts';
import type { MemoryCollection } from './collection.ts';

type Step = () => void;

/**
 * What a memory transaction has written, as the steps that undo it. The views it hands out read through to the
 * collections and note, for every write, how to take it back; `rollBack` runs those steps newest first.
 */
export class UndoLog {
  private readonly steps: Step[] = [];

  collection<T extends Entity>(base: MemoryCollection<T>): Collection<T> {
    return new UndoableCollection(base, this.steps);
  }

  activityLog<T extends ActivityRecord>(base: MemoryActivityLog<T>): ActivityLog<T> {
    return new UndoableActivityLog(base, this.steps);
  }

  deliveryLog(base: MemoryDeliveryLog): DeliveryLog {
    const steps = this.steps;
    // Only `add` is a transaction's to make; the rest is the workers', outside any transaction.
    return Object.assign(Object.create(base) as MemoryDeliveryLog, {
      async add(rows: readonly StoredDelivery[]): Promise<void> {
        await base.add(rows);
        steps.push(() => base.remove(rows));
      },
    });
  }

  /** Notes how to undo a write made outside the views (emptying a log). */
  step(undo: Step): void {
    this.steps.push(undo);
  }

  /** Undoes every write, newest first. */
  rollBack(): void {
    while (this.steps.length > 0) this.steps.pop()!();
  }
}

// Classes rather than object literals of closures: a transaction makes one view per collection it uses, and
// instances sharing their prototype's methods cost a fraction of fresh closures.

class UndoableCollection<T extends Entity> implements Collection<T> {
  constructor(
    private readonly base: MemoryCollection<T>,
    private readonly steps: Step[],
  ) {}

  get(id: string): Promise<T | undefined> {
    return this.base.get(id);
  }

  list(filter?: Filter<T>): Promise<T[]> {
    return this.base.list(filter);
  }

  query(q: ListQuery<T>): Promise<Page<T>> {
    return this.base.query(q);
  }

  count(): Promise<number> {
    return this.base.count();
  }

  async insert(record: T): Promise<void> {
    const base = this.base;
    await base.insert(record);
    this.steps.push(() => void base.delete(record.id));
  }

  async replace(record: T): Promise<void> {
    const base = this.base;
    const previous = await base.get(record.id);
    await base.replace(record);
    this.steps.push(() => void base.replace(previous!));
  }

  async delete(id: string): Promise<boolean> {
    const base = this.base;
    const previous = await base.get(id);
    const rank = base.rankOf(id);
    if (!(await base.delete(id))) return false;
    this.steps.push(() => base.restore(previous!, rank!));
    return true;
  }

  async deleteWhere(filter: Filter<T>): Promise<T[]> {
    const gone = await this.base.list(filter);
    for (const record of gone) await this.delete(record.id);
    return gone;
  }

  async updateWhere(filter: Filter<T>, changes: Partial<Omit<T, 'id'>>, updatedAt?: string): Promise<Updated<T>[]> {
    const base = this.base;
    const updated = await base.updateWhere(filter, changes, updatedAt);
    for (const { previous } of updated) this.steps.push(() => void base.replace(previous));
    return updated;
  }
}

class UndoableActivityLog<T extends ActivityRecord> implements ActivityLog<T> {
  constructor(
    private readonly base: MemoryActivityLog<T>,
    private readonly steps: Step[],
  ) {}

  get(id: string): Promise<T | undefined> {
    return this.base.get(id);
  }

  query(q: ActivityQuery): Promise<Page<T>> {
    return this.base.query(q);
  }

  count(): Promise<number> {
    return this.base.count();
  }

  async append(entry: T): Promise<void> {
    const base = this.base;
    const dropped = base.add(entry);
    this.steps.push(() => base.remove(entry, dropped));
  }
}
