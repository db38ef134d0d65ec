import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { createGunzip, gunzipSync } from 'node:zlib';
import { chunk, deflate, GZIP_HEADER, GzipTrail, Payload } from '../../src/stream/gzip.ts';

const frame = (i: number) =>
  `id: ${1795356000000000 + i}\nevent: task.created\ndata: {"type":"task.created","data":{"id":"task_${i}","title":"T${i}"}}\n\n`;

test('pieces compressed each on its own make one gzip stream; header, pieces, end: gunzip gives the texts joined', () => {
  const texts = [frame(1), frame(2) + frame(3), ': keep-alive\n\n', randomBytes(5_000).toString('base64'), frame(4)];
  const trail = new GzipTrail();
  const bytes = [GZIP_HEADER, ...texts.map((t) => trail.add(deflate(Buffer.from(t)))), trail.end()];
  // gunzipSync checks the trailer's CRC and length: a wrong one throws.
  assert.equal(gunzipSync(Buffer.concat(bytes)).toString(), texts.join(''));

  // A wrong trailer is noticed (the test above can fail).
  const broken = Buffer.concat(bytes);
  broken[broken.length - 5]! ^= 1;
  assert.throws(() => gunzipSync(broken));
});

test('each piece decompresses as soon as it arrives (streaming gunzip), without waiting for the next', async () => {
  const gunzip = createGunzip();
  const out: string[] = [];
  gunzip.on('data', (chunk: Buffer) => out.push(chunk.toString()));
  const trail = new GzipTrail();
  gunzip.write(GZIP_HEADER);
  let expected = '';
  for (let i = 0; i < 20; i++) {
    const text = Array.from({ length: i % 4 }, (_, k) => frame(i * 10 + k)).join('') + frame(i);
    expected += text;
    gunzip.write(trail.add(deflate(Buffer.from(text))));
    // zlib works off the main thread: give it a moment, at most a second.
    for (let wait = 0; out.join('') !== expected && wait < 100; wait++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(out.join(''), expected, `after piece ${i}`);
  }
  const ended = new Promise<void>((resolve, reject) => gunzip.on('end', resolve).on('error', reject));
  gunzip.end(trail.end());
  await ended;
  assert.equal(out.join(''), expected);
});

test('a payload is compressed once, however many clients it goes to', () => {
  const payload = new Payload(Buffer.from(frame(1)));
  const first = payload.deflated;
  assert.equal(payload.deflated, first);
  assert.equal(first.length, Buffer.byteLength(frame(1)));
  assert.ok(first.bytes.length < first.length);
});

test('a chunk of a chunked body: the length in hex, CRLF, the bytes, CRLF', () => {
  assert.equal(chunk(Buffer.from('retry: 2000\n\n')).toString(), 'd\r\nretry: 2000\n\n\r\n');
  const large = randomBytes(300);
  assert.deepEqual(chunk(large), Buffer.concat([Buffer.from('12c\r\n'), large, Buffer.from('\r\n')]));
});

test('a payload is framed once for each encoding, however many clients it goes to', () => {
  const payload = new Payload(Buffer.from(frame(1) + frame(2)));
  const text = payload.chunk(false);
  assert.equal(payload.chunk(false), text);
  assert.deepEqual(text, chunk(payload.text));
  const gzip = payload.chunk(true);
  assert.equal(payload.chunk(true), gzip);
  assert.deepEqual(gzip, chunk(payload.deflated.bytes));
});
