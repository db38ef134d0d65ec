import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { crc32 } from 'node:zlib';
import { crc32Combine, crc32Shift } from '../../src/stream/crc32-combine.ts';

test("crc32Combine of the parts' CRCs is zlib's CRC of the concatenation", () => {
  const lengths = [0, 1, 2, 3, 7, 8, 100, 255, 256, 1_000, 4_096, 65_537, 300_000];
  for (const a of lengths) {
    for (const b of lengths) {
      const first = randomBytes(a);
      const second = randomBytes(b);
      const combined = crc32Combine(crc32(first), crc32(second), crc32Shift(b));
      assert.equal(combined, crc32(Buffer.concat([first, second])), `${a} + ${b} bytes`);
    }
  }
});

test('one shift per part serves any running CRC: a stream of many parts, each combined in turn', () => {
  const parts = Array.from({ length: 50 }, (_, i) => randomBytes((i * 37) % 500));
  const shifts = parts.map((p) => crc32Shift(p.length));
  for (const start of [0, 10, 25]) {
    let crc = 0;
    for (let i = start; i < parts.length; i++) crc = crc32Combine(crc, crc32(parts[i]!), shifts[i]!);
    assert.equal(crc, crc32(Buffer.concat(parts.slice(start))), `from part ${start}`);
  }
  // Zero bytes shift nothing; the CRC of nothing is 0.
  assert.equal(crc32Combine(0xdeadbeef, 0, crc32Shift(0)), 0xdeadbeef);
  assert.throws(() => crc32Shift(-1), RangeError);
});

test("the CRC of an event stream's text, combined frame by frame, is zlib's CRC of the joined text", () => {
  const frames = [
    'event: task.created\ndata: {"title":"Plan"}\n\n',
    ': heartbeat\n\n',
    'event: comment.created\ndata: {"body":"Grüße — ✓ 🚀"}\n\n',
    '',
    `data: ${'x'.repeat(70_000)}\n\n`,
  ];
  let crc = 0;
  for (const frame of frames) {
    const bytes = Buffer.from(frame, 'utf8');
    crc = crc32Combine(crc, crc32(bytes), crc32Shift(bytes.length));
  }
  assert.equal(crc, crc32(frames.join('')));
});
