import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { BUSY, FlushPace, loopTime, WINDOW_MS, type LoopTime } from '../../src/stream/pace.ts';

/** A window of the event loop's time, this share of it running. */
const window = (utilization: number): LoopTime => ({
  active: WINDOW_MS * utilization,
  idle: WINDOW_MS * (1 - utilization),
});
/** The intervals a pace answers after flushes of a window each, at these utilizations. */
const after = (pace: FlushPace, utilizations: number[]) => utilizations.map((u) => pace.next(window(u)));
const times = (n: number, u: number) => Array<number>(n).fill(u);

describe('FlushPace: the flush interval', () => {
  test('starts at the minimum', () => {
    const pace = new FlushPace(20, 100);
    assert.equal(pace.ms, 20);
    assert.equal(pace.adaptive, true);
  });

  test('busy: grows 1.5 times a window, up to the maximum and no further', () => {
    const pace = new FlushPace(20, 100);
    assert.deepEqual(after(pace, times(6, 1)), [30, 45, 68, 100, 100, 100]);
    assert.equal(pace.ms, 100);
  });

  test('not busy: shrinks 1.5 times a window, back to the minimum and no further', () => {
    const pace = new FlushPace(20, 100);
    after(pace, times(4, 1));
    assert.deepEqual(after(pace, times(6, 0.2)), [66, 44, 29, 20, 20, 20]);
  });

  test(`busy is running ${BUSY * 100} % of the time or more`, () => {
    const pace = new FlushPace(20, 100);
    assert.equal(pace.next({ active: 89, idle: 11 }), 20);
    assert.equal(pace.next({ active: 90, idle: 10 }), 30);
    assert.equal(pace.next({ active: 89, idle: 11 }), 20);
  });

  test(`judged once the flushes make up ${WINDOW_MS} ms, on all of their time: one slow turn is not saturation`, () => {
    const pace = new FlushPace(20, 100);
    const flush = (active: number, idle: number) => pace.next({ active, idle });
    // Five flushes of 20 ms, all running: one step, at the fifth.
    assert.deepEqual([flush(20, 0), flush(20, 0), flush(20, 0), flush(20, 0), flush(20, 0)], [20, 20, 20, 20, 30]);
    // One turn of 20 ms running among flushes half idle: 60 % of the window, not busy.
    assert.deepEqual([flush(20, 0), flush(10, 10), flush(10, 10), flush(10, 10), flush(10, 10)], [30, 30, 30, 30, 20]);
    // One flush longer than the window counts alone.
    assert.equal(flush(150, 0), 30);
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

describe('loopTime', () => {
  // The event loop books a wait as idle when the wait ends, and on a loaded machine other work of the process (the test
  // runner's, a collection) or a late booking can take a good part of a short window. One try measures a busy stretch
  // and a wait; the property must hold in one of three tries, which a function that swapped, summed or lost the two
  // times never does.
  const attempt = async () => {
    const time = loopTime();
    await sleep(1);
    time();
    const from = performance.now();
    const end = from + 50;
    while (performance.now() < end); // running, never idle
    const ran = time();
    await sleep(150);
    const waited = time();
    const elapsed = performance.now() - from;
    const covered = ran.active + ran.idle + waited.active + waited.idle;
    const holds = ran.active >= 40 && waited.idle >= 50 && Math.abs(covered - elapsed) < 5;
    return { holds, seen: `${JSON.stringify({ ran, waited })} over ${elapsed.toFixed(1)} ms` };
  };

  test('running is active time, waiting is idle time, and the answers cover the time between them', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { holds, seen: one } = await attempt();
      if (holds) return;
      seen.push(one);
    }
    assert.fail(seen.join('\n'));
  });
});
