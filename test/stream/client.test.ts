import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { parseFilter } from '../../src/stream/catalog.ts';
import { StreamClient } from '../../src/stream/client.ts';
import { deliveryOf, type Position } from '../../src/stream/source.ts';

/** A response whose client takes nothing: everything written stays in its buffer. */
class StalledResponse extends EventEmitter {
  writableLength = 0;
  written: string[] = [];
  destroyed = false;
  write(text: string | Buffer): boolean {
    this.written.push(text.toString('latin1'));
    this.writableLength += text.length;
    return false;
  }
  destroy(): void {
    this.destroyed = true;
  }
  flushHeaders(): void {}
  end(): void {}
}

const at = (n: number): Position => ({ hi: BigInt(n), lo: 0n });
const event = (n: number, type = 'task.created', projectId: string | null = 'proj_001') =>
  deliveryOf({ type, projectId, body: JSON.stringify({ type, n }) }, at(n), String(n));

test('a client that takes nothing is cut once its unsent data passes the bound', () => {
  const res = new StalledResponse();
  const client = new StreamClient(res as unknown as ServerResponse, {}, 1_000, at(0));
  client.goLive(at(0));
  let n = 0;
  while (!res.destroyed && n < 1_000) {
    client.offer([event(++n)]);
    client.flush();
  }
  assert.ok(res.destroyed);
  assert.ok(res.writableLength < 1_100, `${res.writableLength} bytes held`);
  assert.equal(client.endReason, 'slow');
  const before = res.written.length;
  client.offer([event(n + 1)]);
  client.flush();
  assert.equal(res.written.length, before, 'nothing more is written');
});

test('on a gzip stream the bound counts the bytes written, compressed: more events fit before the cut', () => {
  const cutAfter = (encoding: 'identity' | 'gzip') => {
    const res = new StalledResponse();
    const client = new StreamClient(res as unknown as ServerResponse, {}, 1_000, at(0), encoding);
    client.goLive(at(0));
    let n = 0;
    // Ten events a write, as a flush gathers them: what compresses.
    while (!res.destroyed && n < 1_000) {
      client.offer(Array.from({ length: 10 }, () => event(++n)));
      client.flush();
    }
    assert.ok(res.destroyed, encoding);
    // Cut by the write that passed the bound (ten events, under 1,000 bytes as they are).
    assert.ok(res.writableLength < 2_000, `${encoding}: ${res.writableLength} bytes held`);
    return client.sent;
  };
  const plain = cutAfter('identity');
  const gzip = cutAfter('gzip');
  assert.ok(gzip > 2 * plain, `${gzip} events sent compressed before the cut, ${plain} as they are`);
});

test('while replaying, live events wait (bounded too), then follow without repeats', () => {
  const res = new StalledResponse();
  const client = new StreamClient(res as unknown as ServerResponse, parseFilter({ types: 'task.*' }), 10_000, at(5));
  client.resumeAfter(at(2));
  client.offer([event(6), event(7, 'project.created')]);
  void client.replay([event(3), event(4), event(5)]);
  client.goLive(at(5));
  client.offer([event(6), event(8)]);
  client.flush();
  const ids = [...res.written.join('').matchAll(/^id: (\d+)/gm)].map((m) => m[1]);
  assert.deepEqual(ids, ['3', '4', '5', '6', '8']);

  const slow = new StreamClient(res as unknown as ServerResponse, {}, 100, at(0));
  slow.resumeAfter(at(0));
  for (let i = 1; i < 10; i++) slow.offer([event(i)]);
  assert.equal(slow.endReason, 'slow');
});
