import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryCollection } from '../../src/store/memory/collection.ts';
import { type Collection } from '../../src/store/types.ts';
import { AnyOf } from '../../src/model/list.ts';

interface Rec {
  id: string;
  kind: string;
  owner: string | null;
  tags: string[];
  n: number;
}

/** The contract every Collection implementation keeps; run against each implementation. */
const implementations: [string, () => Collection<Rec>][] = [
  ['memory', () => new MemoryCollection<Rec>(['kind', 'owner', 'tags'])],
];

for (const [name, make] of implementations) {
  describe(`Collection contract: ${name}`, () => {
    const rec = (id: string, kind: string, owner: string | null, tags: string[] = [], n = 0): Rec => ({
      id,
      kind,
      owner,
      tags,
      n,
    });

    test('insert, get, count, list in insertion order', async () => {
      const c = make();
      await c.insert(rec('b', 'x', 'u1'));
      await c.insert(rec('a', 'y', 'u2'));
      assert.deepEqual(await c.get('a'), rec('a', 'y', 'u2'));
      assert.equal(await c.get('zzz'), undefined);
      assert.equal(await c.count(), 2);
      assert.deepEqual(
        (await c.list()).map((r) => r.id),
        ['b', 'a'],
      );
    });

    test('a duplicate id is refused', async () => {
      const c = make();
      await c.insert(rec('a', 'x', null));
      await assert.rejects(c.insert(rec('a', 'y', null)));
    });

    test('filters: exact match, combined, null values, unindexed fields, undefined ignored', async () => {
      const c = make();
      await c.insert(rec('1', 'x', 'u1', [], 1));
      await c.insert(rec('2', 'y', 'u1', [], 2));
      await c.insert(rec('3', 'x', null, [], 1));
      await c.insert(rec('4', 'x', 'u2', [], 2));
      const ids = async (f: object) => (await c.list(f)).map((r) => r.id);
      assert.deepEqual(await ids({ kind: 'x' }), ['1', '3', '4']);
      assert.deepEqual(await ids({ kind: 'x', owner: 'u1' }), ['1']);
      assert.deepEqual(await ids({ owner: null }), ['3']);
      assert.deepEqual(await ids({ n: 2 }), ['2', '4']);
      assert.deepEqual(await ids({ kind: 'x', n: 1 }), ['1', '3']);
      assert.deepEqual(await ids({ kind: undefined }), ['1', '2', '3', '4']);
      assert.deepEqual(await ids({ kind: 'nope' }), []);
    });

    test('array fields match by membership; AnyOf matches any value', async () => {
      const c = make();
      await c.insert(rec('1', 'x', null, ['a', 'b']));
      await c.insert(rec('2', 'x', null, ['*']));
      await c.insert(rec('3', 'x', null, ['c']));
      assert.deepEqual(
        (await c.list({ tags: 'b' })).map((r) => r.id),
        ['1'],
      );
      assert.deepEqual(
        (await c.list({ tags: new AnyOf('b', '*') })).map((r) => r.id),
        ['1', '2'],
      );
      assert.deepEqual(
        (await c.list({ kind: new AnyOf('x', 'y'), tags: 'c' })).map((r) => r.id),
        ['3'],
      );
    });

    test('replace moves a record between index buckets and keeps its place in the order', async () => {
      const c = make();
      await c.insert(rec('1', 'x', 'u1'));
      await c.insert(rec('2', 'x', 'u1'));
      await c.insert(rec('3', 'x', 'u1'));
      await c.replace(rec('1', 'y', 'u2'));
      await c.replace(rec('1', 'x', 'u1'));
      assert.deepEqual(
        (await c.list({ kind: 'x' })).map((r) => r.id),
        ['1', '2', '3'],
      );
      await c.replace(rec('2', 'z', 'u1'));
      assert.deepEqual(
        (await c.list({ kind: 'x' })).map((r) => r.id),
        ['1', '3'],
      );
      assert.deepEqual(
        (await c.list({ kind: 'z' })).map((r) => r.id),
        ['2'],
      );
      await assert.rejects(c.replace(rec('missing', 'x', null)));
    });

    test('delete removes the record from every index', async () => {
      const c = make();
      await c.insert(rec('1', 'x', 'u1', ['t']));
      assert.equal(await c.delete('1'), true);
      assert.equal(await c.delete('1'), false);
      assert.deepEqual(await c.list({ kind: 'x' }), []);
      assert.deepEqual(await c.list({ tags: 't' }), []);
      assert.equal(await c.count(), 0);
    });

    test('order, lookups and filters hold through many deletions, updates and re-inserts', async () => {
      const c = make();
      const alive = new Map<string, Rec>();
      for (let i = 0; i < 500; i++) {
        const r = rec(`r${i}`, i % 3 === 0 ? 'x' : 'y', `u${i % 7}`);
        await c.insert(r);
        alive.set(r.id, r);
      }
      // Delete four of five, move some survivors to another kind, and re-insert a deleted id (it goes last).
      for (let i = 0; i < 500; i++) {
        if (i % 5 !== 0) {
          assert.equal(await c.delete(`r${i}`), true);
          alive.delete(`r${i}`);
        } else if (i % 2 === 0) {
          const moved = rec(`r${i}`, 'z', `u${i % 7}`);
          await c.replace(moved);
          alive.set(moved.id, moved);
        }
      }
      const back = rec('r1', 'z', 'u1');
      await c.insert(back);
      alive.set(back.id, back);
      const expected = [...alive.values()];
      assert.equal(await c.count(), expected.length);
      assert.deepEqual(await c.list(), expected);
      assert.deepEqual(
        await c.list({ kind: 'z' }),
        expected.filter((r) => r.kind === 'z'),
      );
      assert.deepEqual(
        await c.list({ owner: 'u1' }),
        expected.filter((r) => r.owner === 'u1'),
      );
      for (const r of expected) assert.deepEqual(await c.get(r.id), r);
      assert.equal(await c.get('r2'), undefined);
      assert.equal(await c.delete('r2'), false);
    });
  });
}
