import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from '../../src/store/memory/store.ts';
import { SqlStore } from '../../src/store/sql/store.ts';
import { testApp } from './app.ts';
import { RerunningStore, storeKind, testStore } from './store.ts';

// scripts/test.ts runs this file on every store, as it does the API suites: each run checks it got the store
// it asked for, seeded, and that a store's records go with it.

test('testApp serves the store TEST_STORE names, seeded', async (t) => {
  const kind = storeKind();
  const { store, api } = await testApp(t);
  if (kind === 'memory') assert.ok(store instanceof MemoryStore);
  else if (kind === 'rerun') assert.ok(store instanceof RerunningStore);
  else assert.equal(store instanceof SqlStore && store.driver.kind, kind);
  assert.equal((await api.get('/api/projects')).body.count, 5);
});

test('a test store starts empty, even after another one held records and closed', async () => {
  const first = await testStore();
  const at = '2026-11-22T10:00:00.000Z';
  const team = { id: 'team_x', name: 'X', description: '', members: [], createdAt: at, updatedAt: at };
  await first.transaction((tx) => tx.teams.insert(team));
  assert.deepEqual(await first.teams.list({}), [team]);
  await first.close();
  const second = await testStore();
  assert.deepEqual(await second.teams.list({}), []);
  assert.equal(await second.activity.count(), 0);
  await second.close();
});
