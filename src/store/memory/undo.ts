import type { ActivityLog, ActivityQuery, ActivityRecord, Collection, Entity, Filter } from '../types.ts';
import type { MemoryActivityLog } from './activity-log.ts';
import type { MemoryCollection } from './collection.ts';

/**
 * What a memory transaction has written, as the steps that undo it. The views it hands out read through to the
 * collections and note, for every write, how to take it back; `rollBack` runs those steps newest first.
 */
export class UndoLog {
  private readonly steps: (() => void)[] = [];

  collection<T extends Entity>(base: MemoryCollection<T>): Collection<T> {
    const steps = this.steps;
    return {
      get: (id: string) => base.get(id),
      list: (filter?: Filter<T>) => base.list(filter),
      count: () => base.count(),
      async insert(record: T) {
        await base.insert(record);
        steps.push(() => void base.delete(record.id));
      },
      async replace(record: T) {
        const previous = await base.get(record.id);
        await base.replace(record);
        steps.push(() => void base.replace(previous!));
      },
      async delete(id: string) {
        const previous = await base.get(id);
        const rank = base.rankOf(id);
        if (!(await base.delete(id))) return false;
        steps.push(() => base.restore(previous!, rank!));
        return true;
      },
    };
  }

  activityLog<T extends ActivityRecord>(base: MemoryActivityLog<T>): ActivityLog<T> {
    const steps = this.steps;
    return {
      get: (id: string) => base.get(id),
      query: (q: ActivityQuery) => base.query(q),
      count: () => base.count(),
      async append(entry: T) {
        const dropped = base.add(entry);
        steps.push(() => base.remove(entry, dropped));
      },
    };
  }

  /** Undoes every write, newest first. */
  rollBack(): void {
    while (this.steps.length > 0) this.steps.pop()!();
  }
}
