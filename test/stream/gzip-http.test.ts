import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { EventSource } from 'eventsource';
import type { AppDeps } from '../../src/app.ts';
import { SseReader, streaming as streamingApp, type SseEvent } from './sse.ts';

const GZIP = { 'accept-encoding': 'gzip, deflate' };
const title = (e: SseEvent) => (JSON.parse(e.data) as { data: { title?: string } }).data.title;

/** A client of the test app's stream that accepts gzip unless told otherwise, reading the bytes as sent. */
const streaming = (t: TestContext, deps: AppDeps = {}) =>
  streamingApp(t, deps, (url, headers) => SseReader.overHttp(url, headers), GZIP);

describe('GET /api/stream, gzip', () => {
  test('a client that accepts gzip gets a gzip stream: every event intact, decompressed as it arrives, filters kept', async (t) => {
    const { api, open } = await streaming(t);
    const plain = await open('', {});
    const all = await open();
    const tasks = await open('?types=task.*');
    assert.equal(all.response.headers.get('content-encoding'), 'gzip');
    assert.equal(all.response.headers.get('vary'), 'Accept-Encoding');
    assert.equal(plain.response.headers.get('content-encoding'), null);
    assert.equal(plain.response.headers.get('vary'), 'Accept-Encoding');
    assert.deepEqual([...all.bytes.subarray(0, 2)], [0x1f, 0x8b], 'the gzip header');

    // One at a time: each event must come out of the decompressor before the next change is made.
    for (let i = 0; i < 5; i++) {
      await api.post('/api/tasks', { projectId: 'proj_001', title: `T${i}` });
      await all.take(i + 1);
    }
    await api.post('/api/teams', { name: 'Not a task' });
    const task = (await api.post('/api/tasks', { projectId: 'proj_001', title: 'Ü – “quoted” ✓' })).body.data;
    await all.until(() => all.events.some((e) => e.event === 'task.created' && title(e) === task.title));
    await plain.take(all.events.length);
    await tasks.take(6);
    assert.equal(all.retry, 2_000);
    assert.deepEqual(all.events, plain.events, 'the same events as the identity stream, byte for byte');
    assert.deepEqual(
      tasks.events,
      plain.events.filter((e) => e.event.startsWith('task.')),
    );
    assert.equal(title(tasks.events.at(-1)!), 'Ü – “quoted” ✓');
    const compressed = all.bytes.length;
    const uncompressed = plain.bytes.length;
    assert.ok(compressed < uncompressed, `${compressed} compressed bytes against ${uncompressed}`);
  });

  test('clients sharing a filter get identical streams, and at shutdown each ends complete (trailer, CRC)', async (t) => {
    const { api, app, open } = await streaming(t, { config: { logLevel: 'silent', streamFlushMs: 50 } });
    const readers = await Promise.all([open('?types=task.created'), open('?types=task.created'), open()]);
    const plain = await open('?types=task.created', {});
    const made = await Promise.all(
      Array.from({ length: 30 }, (_, i) => api.post('/api/tasks', { projectId: 'proj_001', title: `S${i}` })),
    );
    assert.ok(made.every((r) => r.status === 201));
    for (const reader of [...readers, plain]) await reader.take(30);
    await app.close();
    await Promise.all(readers.map((r) => r.ended));
    const [a, b, all] = readers;
    assert.deepEqual(a!.events, plain.events);
    assert.deepEqual(b!.events, plain.events);
    assert.equal(all!.events.filter((e) => e.event === 'task.created').length, 30);
    for (const reader of readers) {
      assert.equal(reader.decodeError, undefined);
      // gunzipSync of every byte received checks the final block, CRC-32 and length.
      const text = gunzipSync(reader.bytes).toString();
      assert.match(text, /^retry: 2000\n\n/);
      assert.equal((text.match(/^event: /gm) ?? []).length, reader.events.length);
    }
    assert.equal(gunzipSync(a!.bytes).toString(), plain.bytes.toString());
  });

  test('resuming with Last-Event-ID while changes go on: replay then live, each event once, in order', async (t) => {
    const { api, open } = await streaming(t);
    const everything = await open('', {});
    const first = await open();
    const writes = (async () => {
      for (let i = 0; i < 40; i++) await api.post('/api/tasks', { projectId: 'proj_001', title: `W${i}` });
    })();
    await first.take(5);
    first.close();
    const resumed = await open('', { ...GZIP, 'last-event-id': first.events[4]!.id! });
    await writes;
    await everything.take(40);
    await resumed.take(35);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(
      [...first.events.slice(0, 5), ...resumed.events].map((e) => e.id),
      everything.events.map((e) => e.id),
    );
    // A position it does not know: the reset event, compressed for that client alone, then live.
    const reset = await open('', { ...GZIP, 'last-event-id': 'garbage' });
    await api.post('/api/tasks', { projectId: 'proj_001', title: 'after reset' });
    const [resetEvent, live] = await reset.take(2);
    assert.equal(resetEvent!.event, 'stream.reset');
    assert.equal(title(live!), 'after reset');
  });

  test('heartbeats come through the gzip stream as they are sent', async (t) => {
    const { open } = await streaming(t, { config: { logLevel: 'silent', streamHeartbeatMs: 100 } });
    const stream = await open();
    assert.equal(stream.response.headers.get('content-encoding'), 'gzip');
    await stream.until(() => stream.comments.length >= 2, 3_000, 'two heartbeats');
    assert.equal(stream.comments[0], ': keep-alive');
  });

  test('identity for no Accept-Encoding, gzip;q=0, and for everyone with STREAM_COMPRESSION=false', async (t) => {
    const { base, open } = await streaming(t);
    const identities: Record<string, string>[] = [
      {},
      { 'accept-encoding': 'gzip;q=0' },
      { 'accept-encoding': 'identity' },
    ];
    for (const headers of identities) {
      const stream = await open('', headers);
      assert.equal(stream.response.headers.get('content-encoding'), null, JSON.stringify(headers));
      assert.equal(stream.response.headers.get('vary'), 'Accept-Encoding');
      await stream.until(() => stream.retry !== undefined);
      assert.match(stream.bytes.toString(), /^retry: 2000\n\n/);
      stream.close();
    }
    const head = await fetch(`${base}/api/stream`, { method: 'HEAD', headers: GZIP });
    assert.equal(head.headers.get('content-encoding'), 'gzip');
    assert.equal(head.headers.get('vary'), 'Accept-Encoding');

    const off = await streaming(t, { config: { logLevel: 'silent', streamCompression: false } });
    const stream = await off.open();
    assert.equal(stream.response.headers.get('content-encoding'), null);
    assert.equal(stream.response.headers.get('vary'), null);
    await off.api.post('/api/tasks', { projectId: 'proj_001', title: 'plain' });
    const [event] = await stream.take(1);
    assert.equal(title(event!), 'plain');
    assert.match(stream.bytes.toString(), /^retry: 2000\n\n/);
  });

  test('the eventsource package asks for gzip (through fetch), is answered gzip, and reads it', async (t) => {
    const { api, base } = await streaming(t);
    const encodings: (string | null)[] = [];
    const es = new EventSource(`${base}/api/stream?types=task.created`, {
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        encodings.push(response.headers.get('content-encoding'));
        return response;
      },
    });
    t.after(() => es.close());
    const got: string[] = [];
    es.addEventListener('task.created', (e) => got.push(JSON.parse(e.data).data.title));
    await new Promise<void>((resolve, reject) => {
      es.onopen = () => resolve();
      es.onerror = (e) => reject(new Error(`eventsource error: ${String(e.message)}`));
    });
    await api.post('/api/tasks', { projectId: 'proj_001', title: 'one' });
    await api.post('/api/tasks', { projectId: 'proj_001', title: 'two' });
    const deadline = Date.now() + 5_000;
    while (got.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(got, ['one', 'two']);
    assert.deepEqual(encodings, ['gzip']);
  });
});
