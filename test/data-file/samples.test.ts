/**
 * The sample records are a data file (src/store/samples.json): it passes the check a SEED_FILE must pass, and
 * loading it as a seed file is gives exactly the store the samples give at every start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkDataFile } from '../../src/data-file/check.ts';
import { loadDataFile } from '../../src/data-file/load.ts';
import { MemoryStore } from '../../src/store/memory/store.ts';
import { SAMPLES_FILE } from '../../src/store/seed-data.ts';
import { seed } from '../../src/store/seed.ts';
import type { Store } from '../../src/store/store.ts';

const SAMPLES = fileURLToPath(SAMPLES_FILE);

test('the samples file passes the check', async () => {
  assert.deepEqual(await checkDataFile(SAMPLES), []);
});

/** Every record of a store, each collection in its order; webhooks without their secret (made fresh each time). */
async function everything(store: Store): Promise<Record<string, unknown>> {
  return {
    teams: await store.teams.list(),
    projects: await store.projects.list(),
    milestones: await store.milestones.list(),
    tasks: await store.tasks.list(),
    comments: await store.comments.list(),
    timeEntries: await store.timeEntries.list(),
    webhooks: (await store.webhooks.list()).map(({ secret: _secret, ...rest }) => rest),
    notifications: await store.notifications.list(),
    activity: (await store.activity.query({ filter: {} })).items,
    tokens: await store.tokens.list(),
  };
}

test('the samples loaded as a data file are the store every start begins with', async () => {
  const seeded = new MemoryStore();
  await seed(seeded);
  const loaded = new MemoryStore();
  const counts = await loaded.transaction((tx) => loadDataFile(tx, SAMPLES));
  const samples = JSON.parse(readFileSync(SAMPLES, 'utf8')) as Record<string, unknown[]>;
  assert.equal(counts.tasks, samples.tasks!.length);
  assert.equal(counts.activityLog, samples.activityLog!.length);
  const records = await everything(loaded);
  assert.equal((records.activity as unknown[]).length, samples.activityLog!.length);
  assert.deepEqual(records, await everything(seeded));
  assert.equal((await seeded.tasks.get('task_006'))?.title, 'Deprecate the v1 auth endpoints');
});
