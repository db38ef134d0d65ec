import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { BUSY, FlushPace, loopUtilization } from '../../src/stream/pace.ts';

/** The intervals a pace answers after flushes with these utilizations. */
const after = (pace: FlushPace, utilizations: number[]) => utilizations.map((u) => pace.next(u));
const times = (n: number, u: number) => Array<number>(n).fill(u);

describe('FlushPace: the flush interval', () => {
  test('starts at the minimum', () => {
    const pace = new FlushPace(20, 100);
    assert.equal(pace.ms, 20);
    assert.equal(pace.adaptive, true);
  });

  test('busy: grows 1.5 times a flush, up to the maximum and no further', () => {
    const pace = new FlushPace(20, 100);
    assert.deepEqual(after(pace, times(6, 1)), [30, 45, 68, 100, 100, 100]);
    assert.equal(pace.ms, 100);
  });

  test('not busy: shrinks 1.5 times a flush, back to the minimum and no further', () => {
    const pace = new FlushPace(20, 100);
    after(pace, times(4, 1));
    assert.deepEqual(after(pace, times(6, 0.2)), [66, 44, 29, 20, 20, 20]);
  });

  test(`busy is a utilization of ${BUSY} or more`, () => {
    const pace = new FlushPace(20, 100);
    assert.equal(pace.next(BUSY - 0.01), 20);
    assert.equal(pace.next(BUSY), 30);
    assert.equal(pace.next(BUSY - 0.01), 20);
  });

  test('alternating load moves it one step at a time', () => {
    const pace = new FlushPace(20, 100);
    assert.deepEqual(after(pace, [1, 1, 0, 1, 0, 0]), [30, 45, 30, 45, 30, 20]);
  });

  test('a maximum at or below the minimum (0 included): fixed at the minimum', () => {
    for (const [min, max] of [
      [20, 20],
      [20, 0],
      [50, 30],
      [0, 0],
    ] as const) {
      const pace = new FlushPace(min, max);
      assert.equal(pace.adaptive, false);
      assert.deepEqual(after(pace, [1, 1, 1, 0, 1]), times(5, min), `${min}, ${max}`);
    }
  });

  test('a minimum of 0 (every turn) grows too, by at least 1 ms a step, and comes back to 0', () => {
    const pace = new FlushPace(0, 10);
    assert.deepEqual(after(pace, times(7, 1)), [1, 2, 3, 5, 8, 10, 10]);
    assert.deepEqual(after(pace, times(5, 0)), [6, 4, 2, 1, 0]);
  });
});

describe('loopUtilization', () => {
  test('near 1 after the loop ran without a pause, near 0 after it waited', async () => {
    const utilization = loopUtilization();
    await sleep(1);
    utilization();
    const end = Date.now() + 30;
    while (Date.now() < end); // running, never idle
    assert.ok(utilization() >= BUSY);
    await sleep(100);
    assert.ok(utilization() < 0.5);
  });
});
