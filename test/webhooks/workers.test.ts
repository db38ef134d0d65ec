import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryDeliveryLog } from '../../src/store/memory/deliveries.ts';
import type { ClaimRequest, Outcome } from '../../src/store/outbox.ts';
import { delivery } from '../store/records.ts';
import { resolveOptions } from '../../src/webhooks/options.ts';
import { FakeClock } from '../helpers/app.ts';
import { until } from '../helpers/until.ts';
import { SECRET, captureLogger, dispatcher, event, gate, receiver, sequentialIds, target } from './helpers.ts';

/** The memory outbox, with each claim's and each write's ids noted, and the first write held until `release`. */
class WatchedLog extends MemoryDeliveryLog {
  readonly claims: string[][] = [];
  readonly writes: string[][] = [];
  holdFirstWrite = false;
  /** Run once, before the next `nextDue` reads the log. */
  beforeNextDue: (() => Promise<void>) | undefined;
  private held: (() => void) | undefined;

  constructor() {
    super(100);
  }

  override async claim(r: ClaimRequest) {
    const rows = await super.claim(r);
    this.claims.push(rows.map((row) => row.eventId));
    return rows;
  }

  override async settle(outcomes: readonly Outcome[], owner: string) {
    this.writes.push(outcomes.map((o) => o.done.eventId));
    if (this.holdFirstWrite && this.writes.length === 1) await new Promise<void>((resolve) => (this.held = resolve));
    return super.settle(outcomes, owner);
  }

  override async nextDue(after: string) {
    const before = this.beforeNextDue;
    this.beforeNextDue = undefined;
    await before?.();
    return super.nextDue(after);
  }

  releaseWrite(): void {
    this.held?.();
  }
}

test(
  'a slot is free again once the answer is in, before the outcome is written; outcomes waiting meanwhile are written together',
  // Were the slot held until the write, the second request would wait for the held write: fail, do not hang.
  { timeout: 10_000 },
  async (t) => {
    const rx = await receiver(t);
    const outbox = new WatchedLog();
    outbox.holdFirstWrite = true;
    t.after(() => outbox.releaseWrite()); // before the dispatcher closes, should the test fail with the write held
    const { d } = dispatcher(t, { concurrency: 1, perWebhookConcurrency: 1, outbox });
    const events = Array.from({ length: 4 }, () => event());
    const ids = events.map((e) => e.id);
    for (const e of events) d.enqueue(target(rx.url), e);
    // The fourth request is sent once the third is answered, and so once the third's outcome waits to be written.
    await rx.arrived(4);
    assert.equal(rx.maxConcurrent, 1, 'one request at a time');
    assert.deepEqual(outbox.writes, [[ids[0]]], 'the first write is still under way');
    outbox.releaseWrite();
    await d.idle();
    assert.deepEqual(outbox.writes.flat(), ids);
    assert.deepEqual(outbox.writes[1]!.slice(0, 2), [ids[1], ids[2]], 'written in one statement');
    assert.deepEqual(
      (await d.deliveries('wh_001')).map((r) => r.status),
      ['succeeded', 'succeeded', 'succeeded', 'succeeded'],
    );
  },
);

test('gatherMs must be a non-negative number of milliseconds', () => {
  const base = {
    clock: new FakeClock(new Date().toISOString()),
    ids: sequentialIds(),
    log: captureLogger(),
    allowPrivate: true,
  };
  for (const gatherMs of [-1, Number.NaN, Infinity])
    assert.throws(() => resolveOptions({ ...base, gatherMs }), /gatherMs must be a non-negative number/);
  assert.equal(resolveOptions({ ...base, gatherMs: 0 }).gatherMs, 0);
  assert.equal(resolveOptions(base).gatherMs, 10);
});

test(
  'on a durable store, claims and outcome writes asked for within gatherMs of the last one go together; alone, one goes at once',
  { timeout: 20_000 },
  async (t) => {
    const GAP = 1_000;
    // The third request is answered 100 ms after it comes, the fourth 200 ms after: one write each without the gap.
    const rx = await receiver(
      t,
      (_req, res, n) => void setTimeout(() => res.end('ok'), n === 3 ? 100 : n === 4 ? 200 : 0),
    );
    const outbox = new WatchedLog();
    (outbox as { durable: boolean }).durable = true;
    const { d } = dispatcher(t, { outbox, gatherMs: GAP, pollMs: 60_000 });
    await sleep(GAP + 100); // past the gap of the start's own pass
    const [a, b, c, e] = Array.from({ length: 4 }, () => event());
    const enqueued = performance.now();
    d.enqueue(target(rx.url), a!);
    await rx.arrived(1);
    assert.ok(rx.requests[0]!.at - enqueued < GAP, 'a lone delivery is claimed and sent at once');
    // Asked for within the gap after the first pass: they wait for its end and are claimed in one pass.
    for (const x of [b!, c!, e!]) d.enqueue(target(rx.url), x);
    await rx.arrived(4);
    await d.idle();
    assert.deepEqual(
      outbox.claims.filter((rows) => rows.length > 0),
      [[a!.id], [b!.id, c!.id, e!.id]],
    );
    // The second's outcome is written alone (the first write was a gap ago), the last two together, a gap later.
    assert.deepEqual(outbox.writes, [[a!.id], [b!.id], [c!.id, e!.id]]);
    assert.deepEqual(
      (await d.deliveries('wh_001')).map((r) => r.status),
      ['succeeded', 'succeeded', 'succeeded', 'succeeded'],
    );
  },
);

test(
  'a receiver that answers fast is claimed further ahead, twice what it answered since the last pass; one that hangs keeps twice its share',
  { timeout: 20_000 },
  async (t) => {
    const GAP = 500;
    const fast = await receiver(t);
    const hanging = gate();
    t.after(() => hanging.release());
    const slow = await receiver(t, hanging.handler);
    const outbox = new WatchedLog();
    (outbox as { durable: boolean }).durable = true;
    const { d } = dispatcher(t, { outbox, gatherMs: GAP, pollMs: 60_000, concurrency: 8, perWebhookConcurrency: 1 });
    await sleep(GAP + 100); // past the gap of the start's own pass
    const toFast = Array.from({ length: 30 }, () => event());
    const toSlow = Array.from({ length: 10 }, () => event());
    for (const e of toFast) d.enqueue(target(fast.url), e);
    for (const e of toSlow) d.enqueue(target(slow.url, 'wh_002'), e);
    await fast.arrived(30);
    const perClaim = (ids: Set<string>) =>
      outbox.claims.map((rows) => rows.filter((id) => ids.has(id)).length).filter((n) => n > 0);
    // One slot each. The first claim takes twice the share; each gap then, the fast receiver answers every row it
    // holds, and the next claim takes twice that: 2 answered, 4 ahead; 5, 10 ahead; the last 12 (of 16 in all,
    // less the two rows the hanging receiver holds).
    assert.deepEqual(perClaim(new Set(toFast.map((e) => e.id))), [2, 5, 11, 12]);
    // Twice one slot, claimed once: the claims after found its rows held and took none.
    assert.deepEqual(perClaim(new Set(toSlow.map((e) => e.id))), [2]);
    assert.equal(slow.requests.length, 1, 'the hanging receiver holds its one slot');
    hanging.release();
  },
);

test(
  'a timeout is no answer: a receiver whose attempts time out is claimed no further ahead',
  { timeout: 20_000 },
  async (t) => {
    const GAP = 300;
    const hanging = gate();
    t.after(() => hanging.release());
    const rx = await receiver(t, hanging.handler);
    const outbox = new WatchedLog();
    (outbox as { durable: boolean }).durable = true;
    const { d, timers } = dispatcher(t, {
      outbox,
      gatherMs: GAP,
      pollMs: 60_000,
      concurrency: 8,
      perWebhookConcurrency: 1,
    });
    await sleep(GAP + 100); // past the gap of the start's own pass
    for (let i = 0; i < 6; i++) d.enqueue(target(rx.url), event());
    await rx.arrived(1);
    timers.advance(300); // the first attempt times out (timeoutMs 300); the row claimed ahead is sent next
    await rx.arrived(2);
    const perClaim = () => outbox.claims.map((rows) => rows.length).filter((n) => n > 0);
    await until('a claim after the timeout', () => perClaim().length >= 2, 5_000);
    await sleep(GAP + 100);
    // Twice the share, then the one row that frees: counted as an answer, the timeout would have made it two.
    assert.deepEqual(perClaim(), [2, 1]);
  },
);

test('rows claimed ahead wait for a slot, and are given back at close with the attempts cut short', async (t) => {
  const hanging = gate();
  t.after(() => hanging.release());
  const rx = await receiver(t, hanging.handler);
  const outbox = new WatchedLog();
  const { d, timers } = dispatcher(t, { concurrency: 1, perWebhookConcurrency: 1, outbox });
  const events = Array.from({ length: 3 }, () => event());
  for (const e of events) d.enqueue(target(rx.url), e);
  await rx.arrived(1);
  await new Promise((resolve) => setImmediate(resolve));
  const leased = async () =>
    (await outbox.list('wh_001'))
      .filter((r) => r.leasedBy !== null)
      .map((r) => r.eventId)
      .sort();
  // One request in flight, one more claimed ahead (one slot, claimed twice over), the third left in the outbox.
  assert.deepEqual(await leased(), [events[0]!.id, events[1]!.id].sort());
  assert.equal(rx.requests.length, 1);
  await timers.drive(d.close(0));
  assert.deepEqual(await leased(), [], 'nothing left leased: the next start or another instance takes them at once');
  assert.equal(await outbox.pending(), 3);
});

test('a row claimed ahead whose lease no longer covers an attempt is given back and claimed again, not sent on it', async (t) => {
  const slow = gate();
  const rx = await receiver(t, slow.handler);
  const outbox = new WatchedLog();
  // timeoutMs 300 (the helper's): a lease of 5,300 ms from the claim.
  const { d, clock } = dispatcher(t, { concurrency: 1, perWebhookConcurrency: 1, outbox });
  const [first, second] = [event(), event()];
  d.enqueue(target(rx.url), first);
  d.enqueue(target(rx.url), second);
  await rx.arrived(1);
  assert.deepEqual(outbox.claims.flat(), [first.id, second.id], 'the second claimed ahead');
  // The first request takes 5 s: the second's lease has 300 ms left, less than an attempt may take.
  clock.advance(5_000);
  slow.release();
  await d.idle();
  assert.deepEqual(outbox.claims.flat(), [first.id, second.id, second.id]);
  assert.deepEqual(
    rx.requests.map((r) => r.headers['webhook-id']),
    [first.id, second.id],
  );
  assert.deepEqual(
    (await d.deliveries('wh_001')).map((r) => r.status),
    ['succeeded', 'succeeded'],
  );
});

test('a look-ahead that finds a row due by the time its answer comes claims it at once, without a wake-up timer', async (t) => {
  const rx = await receiver(t);
  const outbox = new WatchedLog();
  const the: { clock?: { now(): Date; advance(ms: number): void } } = {};
  // While the first pass asks when the next row falls due, another instance adds one due just after the pass's
  // instant, and the clock moves past it (a steady flow of changes, the answer slow to come).
  outbox.beforeNextDue = async () => {
    const due = new Date(the.clock!.now().getTime() + 1).toISOString();
    await outbox.add([delivery('dlv_other', 'wh_001', { createdAt: due, dueAt: due })]);
    the.clock!.advance(5);
  };
  const hook = { id: 'wh_001', url: rx.url, secret: SECRET, active: true };
  const made = dispatcher(t, { outbox, current: async () => hook });
  the.clock = made.clock;
  await rx.arrived(1);
  await made.d.idle();
  assert.deepEqual(made.timers.pending, [], 'no wake-up left behind');
  assert.deepEqual(
    (await made.d.deliveries('wh_001')).map((r) => [r.id, r.status]),
    [['dlv_other', 'succeeded']],
  );
});
