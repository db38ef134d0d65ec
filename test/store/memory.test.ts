import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryActivityLog } from '../../src/store/memory/activity-log.ts';
import { MemoryCollection } from '../../src/store/memory/collection.ts';
import { searchTest } from '../../src/store/memory/order.ts';
import { openStore } from '../../src/store/index.ts';
import { MemoryStore } from '../../src/store/memory/store.ts';
import * as data from '../../src/store/seed-data.ts';
import { storeContract } from './contract.ts';
import { T, activity } from './records.ts';

storeContract('memory', { empty: async () => new MemoryStore() });

describe('memory store: the activity log keeps at most activityLogMax entries', () => {
  const idsOf = async (log: { query: MemoryActivityLog<ReturnType<typeof activity>>['query'] }, filter = {}) => {
    const { items, total } = await log.query({ filter });
    return [items.map((e) => e.id), total];
  };

  test('the oldest entries are dropped: gone from get, count, queries and totals', async () => {
    const store = new MemoryStore({ activityLogMax: 3 });
    for (let i = 0; i < 5; i++) {
      await store.activity.append(activity(`e${i}`, T(i), { actor: i % 2 === 0 ? 'alice' : 'bob' }));
    }
    assert.equal(await store.activity.count(), 3);
    assert.equal(await store.activity.get('e1'), undefined);
    assert.deepEqual((await store.activity.get('e2'))?.id, 'e2');
    assert.deepEqual(await idsOf(store.activity), [['e4', 'e3', 'e2'], 3]);
    assert.deepEqual(await idsOf(store.activity, { actor: 'alice' }), [['e4', 'e2'], 2]);
    assert.deepEqual(await idsOf(store.activity, { actor: 'bob' }), [['e3'], 1]);
    const window = await store.activity.query({ filter: {}, since: Date.parse(T(0)), until: Date.parse(T(3)) });
    assert.deepEqual([window.items.map((e) => e.id), window.total], [['e3', 'e2'], 2]);
  });

  test('an entry older than every entry kept is dropped at once', async () => {
    const log = new MemoryActivityLog<ReturnType<typeof activity>>({ max: 2 });
    await log.append(activity('b', T(2)));
    await log.append(activity('c', T(3)));
    await log.append(activity('a', T(1)));
    assert.deepEqual(await idsOf(log), [['c', 'b'], 2]);
    await log.append(activity('b2', T(2)));
    assert.deepEqual(await idsOf(log), [['c', 'b2'], 2]);
  });

  test('through many drops (past the batch that leaves the arrays), queries stay right', async () => {
    const log = new MemoryActivityLog<ReturnType<typeof activity>>({ max: 50 });
    const actors = ['alice', 'bob', 'carol'];
    for (let i = 0; i < 5000; i++) {
      await log.append(activity(`e${i}`, instant(i), { actor: actors[i % 3]! }));
    }
    assert.equal(await log.count(), 50);
    const kept = Array.from({ length: 50 }, (_, k) => 4999 - k);
    assert.deepEqual(await idsOf(log), [kept.map((i) => `e${i}`), 50]);
    for (const [a, actor] of actors.entries()) {
      const expected = kept.filter((i) => i % 3 === a).map((i) => `e${i}`);
      assert.deepEqual(await idsOf(log, { actor }), [expected, expected.length]);
    }
    assert.equal(await log.get('e4949'), undefined);
  });

  test('a rolled-back append gives back the entry it dropped', async () => {
    const store = new MemoryStore({ activityLogMax: 2 });
    await store.activity.append(activity('a', T(1)));
    await store.activity.append(activity('b', T(2)));
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.activity.append(activity('c', T(3)));
        await tx.activity.append(activity('d', T(4)));
        throw new Error('undo');
      }),
    );
    assert.deepEqual(await idsOf(store.activity), [['b', 'a'], 2]);
    assert.equal((await store.activity.get('a'))?.id, 'a');
    await store.activity.append(activity('c', T(3)));
    assert.deepEqual(await idsOf(store.activity), [['c', 'b'], 2]);
  });

  test('a rollback after an append outside the transaction dropped more: the failure still passes on', async () => {
    const store = new MemoryStore({ activityLogMax: 2 });
    await store.activity.append(activity('a', T(1)));
    await store.activity.append(activity('b', T(2)));
    const failure = new Error('undo');
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.activity.append(activity('c', T(3)));
        await store.activity.append(activity('d', T(4))); // not through the transaction
        throw failure;
      }),
      (error) => error === failure,
    );
    assert.deepEqual(await idsOf(store.activity), [['d'], 1]);
  });

  test('openStore with neither folder nor server: a memory store with the sample records, bounded as asked', async () => {
    const store = await openStore({ activityLogMax: 4 });
    assert.ok(store instanceof MemoryStore);
    assert.deepEqual(await store.tasks.list(), data.tasks);
    assert.deepEqual(
      (await store.activity.query({ filter: {} })).items.map((e) => e.id),
      ['act_010', 'act_009', 'act_008', 'act_007'],
    );
    assert.equal(((await openStore()) as MemoryStore).activity.max, 1_000_000);
  });

  test('the default bound is 1,000,000', () => {
    assert.equal(new MemoryStore().activity.max, 1_000_000);
    assert.throws(() => new MemoryStore({ activityLogMax: 0 }));
  });
});

/** An instant `i` milliseconds after 10:00, in `toISOString()` form. */
function instant(i: number): string {
  return new Date(Date.UTC(2026, 10, 22, 10) + i).toISOString();
}

describe('memory store: search by the texts kept per record', () => {
  interface Doc {
    id: string;
    title: string;
    description: string | null;
  }
  const texts = [
    'Straße',
    'STRASSE',
    'ΟΔΟΣ',
    'οδος σς',
    'İstanbul',
    'ıi',
    'Kelvin \u212a',
    'ſun',
    'ǅ ǆ Ǆ',
    'µ Μ μ',
    'ÿ Ÿ é É',
    'ﬀ FF',
    'x\ud83d\ude00y',
    'lone \ud800 surrogate',
    'tab\there',
    'bell\u0007',
  ];
  const terms = [
    ...new Set([...texts.flatMap((t) => t.split(/\s+/)), 'ss', 'SS', 'σ', 'ς', 'Σ', 'i', 'I', 'k', 'K', 's', 'S']),
  ].flatMap((t) => [t, t.toLowerCase(), t.toUpperCase()]);

  test("each term finds what the field-by-field test finds (both fold as PostgreSQL's lower() does)", async () => {
    const docs = new MemoryCollection<Doc>([], ['title', 'description']);
    const records: Doc[] = texts.map((title, i) => ({
      id: `d${i}`,
      title,
      description: i % 3 === 0 ? null : texts[(i + 5) % texts.length]!,
    }));
    for (const r of records) await docs.insert(r);
    for (const term of terms) {
      const search = { terms: [term], fields: ['description', 'title'] as const };
      const expected = records.filter(searchTest({ ...search, fields: [...search.fields] })!).map((r) => r.id);
      const { items, total } = await docs.query({ search: { ...search, fields: [...search.fields] } });
      assert.deepEqual([items.map((r) => r.id), total], [expected, expected.length], JSON.stringify(term));
    }
  });

  test('a search over other fields than those kept, or with a term holding the separator, tests field by field', async () => {
    const docs = new MemoryCollection<Doc>([], ['title', 'description']);
    await docs.insert({ id: 'a', title: 'one\ntwo', description: 'three' });
    await docs.insert({ id: 'b', title: 'one', description: 'two' });
    const found = async (terms: string[], fields: (keyof Doc & string)[]) =>
      (await docs.query({ search: { terms, fields } })).items.map((r) => r.id);
    assert.deepEqual(await found(['ONE\nTWO'], ['title', 'description']), ['a']);
    assert.deepEqual(await found(['two'], ['title']), ['a']);
    assert.deepEqual(await found(['three'], ['title']), []);
    assert.deepEqual(await found(['two', 'three'], ['title', 'description']), ['a']);
  });
});
