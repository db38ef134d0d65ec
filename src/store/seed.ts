import { randomAlphanumeric } from '../model/ids.ts';
import * as data from './seed-data.ts';
import type { Collections, Store } from './store.ts';

/**
 * What fills an empty store: the sample records (`seedInto`) unless the entry hands in another loader (a data file
 * of the user's, `SEED_FILE`). Called inside the transaction that loads them.
 */
export type Seeder = (tx: Collections) => Promise<unknown>;

/**
 * Loads the sample records into an empty store, written straight to the store (they are history, not
 * changes made through the interface, so they publish no events). Webhook secrets are made fresh.
 */
export async function seed(store: Store, seeder: Seeder = seedInto): Promise<void> {
  await store.transaction((tx) => seeder(tx));
}

/** Loads the sample records through an open transaction's collections. */
export async function seedInto(tx: Collections): Promise<void> {
  for (const r of data.teams) await tx.teams.insert(structuredClone(r));
  for (const r of data.projects) await tx.projects.insert({ ...r });
  for (const r of data.milestones) await tx.milestones.insert({ ...r });
  for (const r of data.tasks) await tx.tasks.insert({ ...r });
  for (const r of data.comments) await tx.comments.insert({ ...r });
  for (const r of data.timeEntries) await tx.timeEntries.insert({ ...r });
  for (const r of data.webhooks) {
    await tx.webhooks.insert({ ...r, events: [...r.events], secret: `whsec_${randomAlphanumeric(12)}` });
  }
  for (const r of data.activity) await tx.activity.append(structuredClone(r));
}
