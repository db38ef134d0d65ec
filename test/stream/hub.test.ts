import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test, type TestContext } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseFilter, type StreamFilter } from '../../src/stream/catalog.ts';
import { StreamHub } from '../../src/stream/hub.ts';
import { WINDOW_MS } from '../../src/stream/pace.ts';
import { compare, deliveryOf, type Delivery, type Position, type StreamSource } from '../../src/stream/source.ts';

const at = (n: number): Position => ({ hi: BigInt(n), lo: 0n });

/** A source whose events the test emits by hand; it keeps them all for replays. */
class HandSource implements StreamSource {
  readonly log: Delivery[] = [];
  private emit: (batch: readonly Delivery[]) => void = () => {};
  async start(emit: (batch: readonly Delivery[]) => void): Promise<void> {
    this.emit = emit;
  }
  head(): Position {
    return this.log.at(-1)?.position ?? at(0);
  }
  format(position: Position): string {
    return position.hi.toString();
  }
  parse(text: string): Position | undefined {
    return /^\d+$/.test(text) ? at(Number(text)) : undefined;
  }
  /** Commits events of these types (and projects): the next positions. */
  commit(...events: [type: string, projectId?: string][]): void {
    const batch = events.map(([type, projectId], i) => {
      const n = this.log.length + 1 + i;
      return deliveryOf({ type, projectId: projectId ?? 'proj_001', body: JSON.stringify({ type, n }) }, at(n), `${n}`);
    });
    this.log.push(...batch);
    this.emit(batch);
  }
  async replay(after: Position, upTo: Position, page: (batch: readonly Delivery[]) => Promise<void>) {
    await page(this.log.filter((e) => compare(e.position, after) > 0 && compare(e.position, upTo) <= 0));
  }
  committed(): void {}
  async close(): Promise<void> {}
}

/** A connection that takes everything written to it. */
class Connection {
  readonly writable = true;
  readonly writes: Buffer[] = [];
  write(chunk: Buffer): boolean {
    this.writes.push(chunk);
    return true;
  }
}

/**
 * A response that takes everything written: each write kept apart. Without a connection (`socket`), as a response
 * still waiting for one: everything goes through `write`.
 */
class Response extends EventEmitter {
  readonly writes: string[] = [];
  /** What was written, as written (a gzip stream's bytes). */
  readonly chunks: (string | Buffer)[] = [];
  headers: Record<string, string> = {};
  writableLength = 0;
  writableFinished = false;
  socket: Connection | null = null;
  chunkedEncoding = false;
  writeHead(_status: number, headers: Record<string, string>): this {
    this.headers = headers;
    return this;
  }
  write(chunk: string | Buffer): boolean {
    this.writes.push(chunk.toString());
    this.chunks.push(chunk);
    return true;
  }
  end(chunk?: Buffer | (() => void)): void {
    if (chunk instanceof Buffer) this.chunks.push(chunk);
    this.writableFinished = true;
  }
  destroy(): void {}
  flushHeaders(): void {}
  /** Every byte written. */
  get bytes(): Buffer {
    return Buffer.concat(this.chunks.map((c) => Buffer.from(c)));
  }
  /** The ids of the events written, in order. */
  get ids(): number[] {
    return [...this.writes.join('').matchAll(/^id: (\d+)/gm)].map((m) => Number(m[1]));
  }
  /** The writes that carried events. */
  get eventWrites(): string[] {
    return this.writes.filter((w) => w.includes('\nevent: '));
  }
}

/**
 * A hub over a HandSource. Its flush interval is `flushMs` unless `pace` lets it grow to `flushMaxMs`; the event
 * loop is then taken to have run, between two flushes, `pace.utilization()` of a window (pace.ts).
 */
async function hubOf(
  t: TestContext,
  flushMs: number,
  compression = false,
  pace: { flushMaxMs: number; utilization: () => number } = { flushMaxMs: flushMs, utilization: () => 0 },
) {
  const source = new HandSource();
  const hub = new StreamHub(
    source,
    {
      maxClients: 100,
      heartbeatMs: 60_000,
      clientBufferBytes: 1_048_576,
      retryMs: 2_000,
      retryAfterS: 5,
      flushMs,
      flushMaxMs: pace.flushMaxMs,
      compression,
    },
    { now: () => new Date() },
    () => {},
    () => {
      const u = pace.utilization();
      return { active: WINDOW_MS * u, idle: WINDOW_MS * (1 - u) };
    },
  );
  await hub.start();
  t.after(() => hub.close());
  const connect = async (
    filter: StreamFilter = {},
    lastEventId?: string,
    headers: Record<string, string> = {},
    res = new Response(),
  ) => {
    const request = { id: 'req-1', log: { error() {} }, headers } as unknown as FastifyRequest;
    const reply = { raw: res, hijack() {}, getHeaders: () => ({}) } as unknown as FastifyReply;
    await hub.serve(request, reply, filter, lastEventId);
    return res;
  };
  return { source, hub, connect };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('stream hub: flushing', () => {
  test('events committed within the flush interval go to each client in one write, in order', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { source, connect } = await hubOf(t, 20);
    const a = await connect();
    const b = await connect();
    source.commit(['task.created']);
    t.mock.timers.tick(10);
    source.commit(['task.updated'], ['comment.created']);
    t.mock.timers.tick(9);
    assert.deepEqual(a.ids, [], 'nothing before the interval is over');
    t.mock.timers.tick(1);
    for (const res of [a, b]) {
      assert.deepEqual(res.ids, [1, 2, 3]);
      assert.equal(res.eventWrites.length, 1, 'one write for the three');
    }
    source.commit(['task.deleted']);
    t.mock.timers.tick(20);
    for (const res of [a, b]) {
      assert.deepEqual(res.ids, [1, 2, 3, 4]);
      assert.equal(res.eventWrites.length, 2);
    }
    // Nothing waits: nothing more is written, whatever the time.
    t.mock.timers.tick(1_000);
    assert.equal(a.eventWrites.length, 2);
  });

  test("a flush's text is framed once, and the same bytes go to each live client's connection", async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { source, connect } = await hubOf(t, 20);
    const connected = () => Object.assign(new Response(), { socket: new Connection(), chunkedEncoding: true });
    const a = await connect({}, undefined, {}, connected());
    const b = await connect({}, undefined, {}, connected());
    source.commit(['task.created'], ['task.updated']);
    t.mock.timers.tick(20);
    const [sentA, sentB] = [a.socket!.writes, b.socket!.writes];
    assert.equal(sentA.length, 2, '`retry:`, then the events, in one write');
    assert.equal(sentA[1], sentB[1], 'the same bytes, framed once');
    const framed = sentA[1]!.toString();
    const text = source.log.map((e) => e.frame).join('');
    assert.equal(framed, `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`);
    assert.deepEqual(a.eventWrites, [], 'nothing of the events through the response');
  });

  test('STREAM_FLUSH_MS 0: written at the end of the turn', async (t) => {
    const { source, connect } = await hubOf(t, 0);
    const a = await connect();
    source.commit(['task.created']);
    source.commit(['task.updated']);
    assert.deepEqual(a.ids, []);
    await settle();
    assert.deepEqual(a.ids, [1, 2]);
    assert.equal(a.eventWrites.length, 1);
  });

  test('many events over many intervals: every one once, in order', async (t) => {
    const { source, connect } = await hubOf(t, 2);
    const a = await connect();
    for (let i = 0; i < 200; i++) {
      source.commit(['task.created'], ['task.updated']);
      if (i % 7 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(
      a.ids,
      Array.from({ length: 400 }, (_, i) => i + 1),
    );
    assert.ok(a.eventWrites.length < 200, `${a.eventWrites.length} writes`);
  });

  test('clients of different filters batched together each get exactly their events', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { source, connect } = await hubOf(t, 20);
    const all = await connect();
    const tasks = await connect(parseFilter({ types: 'task.*' }));
    const tasksToo = await connect(parseFilter({ types: 'task.*,task.*' }));
    const created = await connect(parseFilter({ types: 'comment.created,task.created' }));
    const otherProject = await connect(parseFilter({ projectId: 'proj_002' }));
    const none = await connect(parseFilter({ types: 'team.*' }));
    source.commit(
      ['task.created'],
      ['comment.created', 'proj_002'],
      ['task.updated', 'proj_002'],
      ['project.updated'],
      ['task.deleted'],
    );
    t.mock.timers.tick(20);
    assert.deepEqual(all.ids, [1, 2, 3, 4, 5]);
    assert.deepEqual(tasks.ids, [1, 3, 5]);
    assert.deepEqual(tasksToo.ids, [1, 3, 5]);
    assert.deepEqual(created.ids, [1, 2]);
    assert.deepEqual(otherProject.ids, [2, 3]);
    assert.deepEqual(
      none.writes.filter((w) => w.includes('event:')),
      [],
      'no write when nothing matches',
    );
    source.commit(['team.created', 'proj_009'], ['task.created', 'proj_002']);
    t.mock.timers.tick(20);
    assert.deepEqual(none.ids, [6]);
    assert.deepEqual(otherProject.ids, [2, 3, 7]);
    assert.deepEqual(tasks.ids, [1, 3, 5, 7]);
  });

  test('a client that connects while events wait gets only those after its start, none twice', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { source, connect } = await hubOf(t, 20);
    const early = await connect();
    source.commit(['task.created'], ['task.updated']);
    const late = await connect(); // starts at 2: 1 and 2 wait, not for it
    source.commit(['task.deleted']);
    // Resumes after 1 while 1–3 wait: 2 and 3 from the replay, then live, each once.
    const resumed = await connect({}, '1');
    source.commit(['comment.created']);
    t.mock.timers.tick(20);
    assert.deepEqual(early.ids, [1, 2, 3, 4]);
    assert.deepEqual(late.ids, [3, 4]);
    assert.deepEqual(resumed.ids, [2, 3, 4]);
    source.commit(['comment.deleted']);
    t.mock.timers.tick(20);
    assert.deepEqual(late.ids, [3, 4, 5]);
    assert.deepEqual(resumed.ids, [2, 3, 4, 5]);
  });

  test('closing sends what waits, then ends each stream', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { source, hub, connect } = await hubOf(t, 1_000);
    const a = await connect();
    source.commit(['task.created']);
    await hub.close();
    assert.deepEqual(a.ids, [1]);
  });
});

describe('stream hub: a flush interval that grows while the event loop is saturated', () => {
  /** Commits one event and answers how many ms after it the client got it (at most `limit`). */
  async function delayOf(t: TestContext, source: HandSource, res: Response, limit = 1_000): Promise<number> {
    const before = res.eventWrites.length;
    source.commit(['task.created']);
    for (let ms = 1; ms <= limit; ms++) {
      t.mock.timers.tick(1);
      if (res.eventWrites.length > before) return ms;
    }
    return Infinity;
  }

  test('busy: each interval 1.5 times the last, up to STREAM_FLUSH_MAX_MS; not busy: back to STREAM_FLUSH_MS', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let utilization = 1;
    const { source, connect } = await hubOf(t, 20, false, { flushMaxMs: 100, utilization: () => utilization });
    const a = await connect();
    const busy = [];
    for (let i = 0; i < 6; i++) busy.push(await delayOf(t, source, a));
    assert.deepEqual(busy, [20, 30, 45, 68, 100, 100]);
    utilization = 0.5;
    const idle = [];
    for (let i = 0; i < 6; i++) idle.push(await delayOf(t, source, a));
    assert.deepEqual(idle, [100, 66, 44, 29, 20, 20]);
    assert.deepEqual(
      a.ids,
      Array.from({ length: 12 }, (_, i) => i + 1),
      'every event once, in order',
    );
  });

  test('STREAM_FLUSH_MAX_MS at or below STREAM_FLUSH_MS: the interval stays STREAM_FLUSH_MS, busy or not', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    for (const flushMaxMs of [20, 0]) {
      let measured = 0;
      const utilization = () => (measured++, 1);
      const { source, connect } = await hubOf(t, 20, false, { flushMaxMs, utilization });
      const a = await connect();
      const delays = [];
      for (let i = 0; i < 5; i++) delays.push(await delayOf(t, source, a));
      assert.deepEqual(delays, [20, 20, 20, 20, 20], `STREAM_FLUSH_MAX_MS ${flushMaxMs}`);
      assert.equal(measured, 0, 'the event loop is not measured');
    }
  });
});

describe('stream hub: gzip', () => {
  const GZIP = { 'accept-encoding': 'gzip, deflate' };

  test("each flush's text is compressed once per filter, the same bytes for every gzip client of it", async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
    const { source, hub, connect } = await hubOf(t, 20, true);
    const plain = await connect();
    const a = await connect({}, undefined, GZIP);
    const b = await connect({}, undefined, GZIP);
    const tasks = await connect(parseFilter({ types: 'task.*' }), undefined, GZIP);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, 'Accept-Encoding');
    assert.equal(a.headers['content-encoding'], 'gzip');
    assert.equal(a.headers.vary, 'Accept-Encoding');

    source.commit(['task.created'], ['comment.created']);
    t.mock.timers.tick(20);
    const last = (res: Response) => res.chunks.at(-1);
    assert.ok(last(a) instanceof Buffer);
    assert.equal(last(a), last(b), 'the same buffer: compressed once');
    assert.notEqual(last(a), last(tasks), 'another filter, other text');

    // Resuming (a replay, written for it alone) and starting within a batch (the seam) end up in the same stream.
    source.commit(['task.updated']);
    const resumed = await connect({}, '1', GZIP);
    const late = await connect({}, undefined, GZIP);
    source.commit(['task.deleted']);
    t.mock.timers.tick(20);
    t.mock.timers.tick(60_000); // a heartbeat
    await hub.close();

    const text = plain.bytes.toString();
    assert.match(text, /: keep-alive/);
    assert.deepEqual(plain.ids, [1, 2, 3, 4]);
    // gunzipSync checks each stream's trailer (CRC and length): the streams ended complete.
    assert.equal(gunzipSync(a.bytes).toString(), text);
    assert.equal(gunzipSync(b.bytes).toString(), text);
    const taskIds = (res: Response) =>
      [
        ...gunzipSync(res.bytes)
          .toString()
          .matchAll(/^id: (\d+)/gm),
      ].map((m) => m[1]);
    assert.deepEqual(taskIds(tasks), ['1', '3', '4']);
    assert.deepEqual(taskIds(resumed), ['2', '3', '4']);
    assert.deepEqual(taskIds(late), ['4']);
  });

  test('no gzip without compression, nor for a client that does not take it', async (t) => {
    const off = await hubOf(t, 20, false);
    const res = await off.connect({}, undefined, GZIP);
    assert.equal(res.headers['content-encoding'], undefined);
    assert.equal(res.headers.vary, undefined);
    assert.match(res.writes[0]!, /^retry: 2000/);
    const on = await hubOf(t, 20, true);
    for (const header of ['gzip;q=0', 'identity', 'br']) {
      const other = await on.connect({}, undefined, { 'accept-encoding': header });
      assert.equal(other.headers['content-encoding'], undefined, header);
      assert.match(other.writes[0]!, /^retry: 2000/);
    }
  });
});
