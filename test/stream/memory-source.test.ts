import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemorySource } from '../../src/stream/memory-source.ts';
import type { Delivery } from '../../src/stream/source.ts';
import type { StreamEntry } from '../../src/store/types.ts';

/** An entry that counts how often its body is read. */
function counted(type: string, body: string): StreamEntry & { reads: number } {
  return {
    type,
    projectId: 'proj_001',
    reads: 0,
    get body() {
      this.reads++;
      return body;
    },
  };
}

test("the ring keeps an event's text unmade until a client needs it, then makes it once for every client", async () => {
  const source = new MemorySource(10, Date.now());
  const emitted: Delivery[] = [];
  await source.start((batch) => emitted.push(...batch));
  const entry = counted('task.created', '{"type":"task.created"}');
  source.committed([entry]);
  assert.equal(emitted.length, 1);
  assert.equal(entry.reads, 0, 'no client has read it: its body was never made');

  const [delivery] = emitted;
  const frame = `id: ${delivery!.id}\nevent: task.created\ndata: {"type":"task.created"}\n\n`;
  assert.equal(delivery!.frame, frame);
  assert.equal(delivery!.frame, frame);
  assert.equal(entry.reads, 1, 'the frame is made once and kept for the next client');

  // A client resuming later gets the same delivery, its frame already made.
  const replayed: Delivery[] = [];
  await source.replay({ hi: BigInt(delivery!.id) - 1n, lo: 0n }, source.head(), async (batch) => {
    replayed.push(...batch);
  });
  assert.equal(replayed[0]!.frame, frame);
  assert.equal(entry.reads, 1);
});
