import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { EventSource } from 'eventsource';
import { testApp } from '../helpers/app.ts';
import { until } from '../helpers/until.ts';
import { storeKind } from '../helpers/store.ts';
import { listening, SseReader, streaming, type SseEvent } from './sse.ts';

const body = (e: SseEvent) => JSON.parse(e.data) as { type: string; timestamp: string; data: Record<string, any> };

describe('GET /api/stream', () => {
  test('answers text/event-stream, advises retry, and sends a change with the webhook body', async (t) => {
    const { api, base, open } = await streaming(t);
    const stream = await open();
    assert.equal(stream.response.status, 200);
    assert.match(stream.response.headers.get('content-type')!, /^text\/event-stream/);
    assert.ok(stream.response.headers.get('x-request-id'));
    const created = await api.post('/api/tasks', { projectId: 'proj_001', title: 'Streamed' });
    const [event] = await stream.take(1);
    assert.equal(stream.retry, 2_000);
    assert.equal(event!.event, 'task.created');
    assert.match(event!.id!, /^\d+(-\d+)?$/);
    assert.deepEqual(body(event!), {
      type: 'task.created',
      timestamp: created.body.data.createdAt,
      data: created.body.data,
    });
    const head = await fetch(`${base}/api/stream`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.match(head.headers.get('content-type')!, /^text\/event-stream/);
  });

  test('sends every kind of change, and never a webhook secret', async (t) => {
    const { api, open } = await streaming(t);
    const stream = await open();
    const project = (await api.post('/api/projects', { name: 'P', teamId: 'team_001' })).body.data;
    const task = (await api.post('/api/tasks', { projectId: project.id, title: 'T', assignee: 'bob' })).body.data;
    await api.patch(`/api/tasks/${task.id}`, { status: 'in_progress' });
    const team = (await api.post('/api/teams', { name: 'Team' })).body.data;
    await api.patch(`/api/teams/${team.id}`, { name: 'Team 2' });
    const comment = (
      await api.post('/api/comments', { targetType: 'task', targetId: task.id, author: 'carol', body: 'hi' })
    ).body.data;
    const milestone = (await api.post('/api/milestones', { projectId: project.id, title: 'M' })).body.data;
    await api.patch(`/api/milestones/${milestone.id}`, { status: 'reached' });
    await api.post('/api/time-entries', { taskId: task.id, username: 'bob', hours: 1, date: '2026-11-20' });
    const hook = await api.post('/api/webhooks', { url: 'https://example.com/hook', events: ['*'] });
    assert.ok(hook.body.data.secret);
    await api.patch(`/api/webhooks/${hook.body.data.id}`, { active: false });
    await api.delete(`/api/webhooks/${hook.body.data.id}`);
    await api.post('/api/activity-log', {
      action: 'sprint.started',
      actor: 'alice',
      resourceType: 'project',
      resourceId: project.id,
    });
    await api.delete(`/api/comments/${comment.id}`);
    await api.delete(`/api/projects/${project.id}`);
    await stream.until(() => stream.events.some((e) => e.event === 'project.deleted'));
    const types = new Set(stream.events.map((e) => e.event));
    for (const type of [
      'project.created',
      'task.created',
      'task.updated',
      'team.created',
      'team.updated',
      'comment.created',
      'comment.deleted',
      'milestone.created',
      'milestone.updated',
      'milestone.reached',
      'time_entry.created',
      'time_entry.deleted',
      'webhook.created',
      'webhook.updated',
      'webhook.deleted',
      'notification.created',
      'activity.created',
      'sprint.started',
      'task.deleted',
      'milestone.deleted',
      'project.deleted',
    ]) {
      assert.ok(types.has(type), `${type} in ${[...types].join(', ')}`);
    }
    for (const event of stream.events) {
      assert.equal(body(event).type, event.event);
      assert.doesNotMatch(event.data, /whsec_|"secret"/);
    }
    // Positions only grow.
    const ids = stream.events.map((e) => e.id!);
    assert.equal(new Set(ids).size, ids.length);
  });

  test('types= keeps exact types and <resource>.*; an unknown type is a 400 before any stream', async (t) => {
    const { api, open } = await streaming(t);
    const stream = await open('?types=task.*,comment.created');
    await api.post('/api/projects', { name: 'Not sent' });
    const task = (await api.post('/api/tasks', { projectId: 'proj_001', title: 'T' })).body.data;
    await api.patch(`/api/tasks/${task.id}`, { title: 'T2' });
    await api.post('/api/comments', { targetType: 'task', targetId: task.id, author: 'carol' });
    const events = await stream.take(3);
    assert.deepEqual(
      events.map((e) => e.event),
      ['task.created', 'task.updated', 'comment.created'],
    );

    for (const types of ['task.nope', 'bogus.*', 'task.created,,', '']) {
      const res = await api.get(`/api/stream?types=${encodeURIComponent(types)}`);
      assert.equal(res.status, 400, types);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      assert.equal(res.body.error.details[0].field, 'types');
    }
    // A filter in a bracketed form is refused, not dropped (which would stream everything).
    for (const query of ['projectId[]=proj_001', 'projectId[in]=proj_001', 'types[]=task.created']) {
      const res = await api.get(`/api/stream?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.details[0].field, query.split('=')[0]);
    }
  });

  test('projectId= keeps the project, its tasks, milestones, comments, time entries and entries posted about them', async (t) => {
    const { api, open } = await streaming(t);
    const stream = await open('?projectId=proj_001');
    await api.post('/api/tasks', { projectId: 'proj_002', title: 'Other project' });
    await api.post('/api/comments', { targetType: 'task', targetId: 'task_001', author: 'carol' });
    await api.post('/api/time-entries', { taskId: 'task_001', username: 'bob', hours: 2, date: '2026-11-20' });
    await api.post('/api/comments', { targetType: 'project', targetId: 'proj_001', author: 'carol' });
    await api.post('/api/milestones', { projectId: 'proj_001', title: 'M' });
    const entry = { action: 'review.done', actor: 'carol' };
    await api.post('/api/activity-log', { ...entry, resourceType: 'task', resourceId: 'task_001' });
    await api.post('/api/activity-log', { ...entry, resourceType: 'team', resourceId: 'team_001' });
    await api.put('/api/projects/proj_001', { name: 'Renamed' });
    await api.post('/api/teams', { name: 'Not of a project' });
    const task = (await api.post('/api/tasks', { projectId: 'proj_001', title: 'Mine' })).body.data;
    await api.delete(`/api/tasks/${task.id}`);
    await stream.until(() => stream.events.some((e) => e.event === 'task.deleted'));
    assert.deepEqual(
      stream.events.map((e) => e.event),
      [
        'comment.created',
        'time_entry.created',
        'comment.created',
        'milestone.created',
        'activity.created',
        'project.updated',
        'task.created',
        'task.deleted',
      ],
    );
  });

  test("projectId= keeps every delete of the project's cascade, the comments and time entries of its tasks too", async (t) => {
    const { api, open } = await streaming(t);
    const all = await open();
    const mine = await open('?projectId=proj_001');
    assert.equal((await api.delete('/api/projects/proj_001')).status, 200);
    for (const stream of [all, mine])
      await stream.until(() => stream.events.some((e) => e.event === 'project.deleted'));
    // Every event of this delete concerns the project: the filtered stream has them all.
    const events = (stream: typeof all) => stream.events.map((e) => `${e.event} ${body(e).data.id}`);
    assert.ok(events(all).includes('time_entry.deleted te_001') && events(all).includes('comment.deleted cmt_001'));
    assert.deepEqual(events(mine), events(all));
  });

  test('resumes after Last-Event-ID (header or query): replay in order, then live, nothing lost or repeated', async (t) => {
    const { api, open } = await streaming(t);
    const first = await open();
    for (let i = 0; i < 5; i++) await api.post('/api/tasks', { projectId: 'proj_001', title: `T${i}` });
    const seen = await first.take(5);
    first.close();
    const byHeader = await open('', { 'last-event-id': seen[1]!.id! });
    const byQuery = await open(`?lastEventId=${seen[1]!.id!}`);
    // The header wins over the query (an EventSource resends its URL's query with a newer header).
    const both = await open(`?lastEventId=${seen[0]!.id!}`, { 'last-event-id': seen[3]!.id! });
    await api.post('/api/tasks', { projectId: 'proj_001', title: 'live' });
    for (const stream of [byHeader, byQuery]) {
      const events = await stream.take(4);
      assert.deepEqual(
        events.map((e) => e.id),
        [...seen.slice(2).map((e) => e.id), events[3]!.id],
      );
      assert.equal(body(events[3]!).data.title, 'live');
    }
    const events = await both.take(2);
    assert.deepEqual(
      events.map((e) => body(e).data.title),
      ['T4', 'live'],
    );
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(byHeader.events.length, 4);
  });

  test('resumes while changes go on: every event once, in order', async (t) => {
    const { api, open } = await streaming(t);
    const all = await open();
    const first = await open();
    const writes = (async () => {
      for (let i = 0; i < 40; i++) await api.post('/api/tasks', { projectId: 'proj_001', title: `W${i}` });
    })();
    await first.take(5);
    first.close();
    const resumed = await open('', { 'last-event-id': first.events[4]!.id! });
    await writes;
    await all.take(40);
    await resumed.take(35);
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(
      [...first.events.slice(0, 5), ...resumed.events].map((e) => e.id),
      all.events.map((e) => e.id),
    );
  });

  test('a position it does not recognize: one stream.reset, then live', async (t) => {
    const { api, open } = await streaming(t);
    for (const id of ['garbage', '99999999999999999', '1-2-3', '12']) {
      const stream = await open('', { 'last-event-id': id });
      await api.post('/api/tasks', { projectId: 'proj_001', title: id });
      const [reset, live] = await stream.take(2);
      assert.equal(reset!.event, 'stream.reset', id);
      const data = body(reset!);
      assert.equal(data.type, 'stream.reset');
      assert.equal(data.data.lastEventId, id);
      assert.match(data.data.reason, /not a position/, id);
      assert.equal(live!.event, 'task.created');
      stream.close();
    }
  });

  test('the position a reset gives while no event was ever written resumes with the events written since', async (t) => {
    const { api, open } = await streaming(t);
    const first = await open('', { 'last-event-id': 'garbage' });
    const [reset] = await first.take(1);
    assert.equal(reset!.event, 'stream.reset');
    first.close();
    await api.post('/api/tasks', { projectId: 'proj_001', title: 'Written while away' });
    const again = await open('', { 'last-event-id': reset!.id! });
    await api.post('/api/tasks', { projectId: 'proj_001', title: 'Live' });
    const events = await again.take(2);
    assert.deepEqual(
      events.map((e) => [e.event, body(e).data.title]),
      [
        ['task.created', 'Written while away'],
        ['task.created', 'Live'],
      ],
    );
  });

  test('events written while no client reads are replayed as they were made, whatever changed since', async (t) => {
    const { api, open } = await streaming(t);
    const first = await open('', { 'last-event-id': 'garbage' });
    const [reset] = await first.take(1);
    first.close();
    // No client is connected from here: the events are kept (their text made when a client first needs it).
    const created = (await api.post('/api/tasks', { projectId: 'proj_001', title: 'Before', assignee: 'bob' })).body
      .data;
    const updated = (await api.patch(`/api/tasks/${created.id}`, { title: 'After', status: 'done' })).body.data;
    await api.delete(`/api/tasks/${created.id}`);
    const again = await open('?types=task.*', { 'last-event-id': reset!.id! });
    const events = await again.take(3);
    assert.deepEqual(
      events.map((e) => ({ event: e.event, ...body(e) })),
      [
        { event: 'task.created', type: 'task.created', timestamp: created.createdAt, data: created },
        {
          event: 'task.updated',
          type: 'task.updated',
          timestamp: body(events[1]!).timestamp,
          data: updated,
          previous: { title: 'Before', status: 'todo' },
        },
        { event: 'task.deleted', type: 'task.deleted', timestamp: body(events[2]!).timestamp, data: updated },
      ],
    );
  });

  test('STREAM_FLUSH_MS: changes made together reach clients of different filters, each its own, once, in order', async (t) => {
    const { api, open } = await streaming(t, { config: { logLevel: 'silent', streamFlushMs: 50 } });
    const all = await open();
    const tasks = await open('?types=task.*');
    const comments = await open('?types=comment.created&projectId=proj_001');
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 3 === 2
          ? api.post('/api/comments', { targetType: 'project', targetId: 'proj_001', author: 'carol', body: `C${i}` })
          : api.post('/api/tasks', { projectId: 'proj_001', title: `T${i}` }),
      ),
    );
    assert.ok(made.every((r) => r.status === 201));
    await all.until(() => all.events.filter((e) => e.event === 'task.created').length === 8);
    await tasks.take(8);
    await comments.take(4);
    await new Promise((r) => setTimeout(r, 100));
    const ids = all.events.map((e) => e.id!);
    assert.equal(new Set(ids).size, ids.length, 'none twice');
    const ofType = (stream: SseReader, prefix: string) => stream.events.filter((e) => e.event.startsWith(prefix));
    assert.deepEqual(
      tasks.events.map((e) => e.id),
      ofType(all, 'task.').map((e) => e.id),
    );
    assert.equal(tasks.events.length, 8);
    assert.deepEqual(
      comments.events.map((e) => e.id),
      ofType(all, 'comment.created').map((e) => e.id),
    );
    assert.deepEqual(comments.events.map((e) => body(e).data.body).sort(), ['C11', 'C2', 'C5', 'C8']);
  });

  test('heartbeats: a comment every STREAM_HEARTBEAT_MS', async (t) => {
    const { open } = await streaming(t, { config: { logLevel: 'silent', streamHeartbeatMs: 100 } });
    const stream = await open();
    await stream.until(() => stream.comments.length >= 2, 3_000, 'two heartbeats');
    assert.equal(stream.comments[0], ': keep-alive');
  });

  test('beyond STREAM_MAX_CLIENTS: 503 with Retry-After; a place frees when a client leaves', async (t) => {
    const { base, open } = await streaming(t, { config: { logLevel: 'silent', streamMaxClients: 2 } });
    const a = await open();
    await open();
    const refused = await fetch(`${base}/api/stream`);
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '5');
    assert.equal(((await refused.json()) as any).error.code, 'SERVICE_UNAVAILABLE');
    a.close();
    await new Promise((r) => setTimeout(r, 100));
    const again = await open();
    assert.equal(again.response.status, 200);
  });

  test('the eventsource package receives events and resumes after the server drops the connection', async (t) => {
    const { api, base, app } = await streaming(t);
    const es = new EventSource(`${base}/api/stream?types=task.created`);
    t.after(() => es.close());
    const got: MessageEvent[] = [];
    es.addEventListener('task.created', (e) => got.push(e));
    await new Promise<void>((resolve, reject) => {
      es.onopen = () => resolve();
      es.onerror = (e) => reject(new Error(`eventsource error: ${String(e.message)}`));
    });
    es.onerror = () => {};
    await api.post('/api/tasks', { projectId: 'proj_001', title: 'one' });
    await until('the first event', () => got.length === 1);
    // The server drops every connection; meanwhile a change is made. The client reconnects with Last-Event-ID.
    app.server.closeAllConnections();
    await api.post('/api/tasks', { projectId: 'proj_001', title: 'two' });
    await until('the second event, after the reconnection', () => got.length === 2, 8_000);
    assert.deepEqual(
      got.map((e) => JSON.parse(e.data).data.title),
      ['one', 'two'],
    );
    assert.equal(got[1]!.lastEventId, es.readyState === EventSource.OPEN ? got[1]!.lastEventId : '');
  });

  test('over HTTP/1.1 the events come as chunks of a chunked body; over HTTP/1.0, as they are', async (t) => {
    const { api, base } = await streaming(t);
    const { port } = new URL(base);
    const read = async (version: string) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      t.after(() => socket.destroy());
      let received = '';
      socket.setEncoding('latin1').on('data', (text: string) => (received += text));
      socket.write(`GET /api/stream?types=task.created HTTP/${version}\r\nHost: 127.0.0.1\r\n\r\n`);
      await until('the stream to open', () => received.includes('retry: 2000'));
      await api.post('/api/tasks', { projectId: 'proj_001', title: `Over HTTP/${version}` });
      // The event's chunk, or the event as it is, complete.
      const tail = version === '1.1' ? '\n\n\r\n' : '\n\n';
      await until('the whole event', () => received.includes(`Over HTTP/${version}`) && received.endsWith(tail));
      const end = received.indexOf('\r\n\r\n');
      return { head: received.slice(0, end).toLowerCase(), body: received.slice(end + 4) };
    };
    const chunked = await read('1.1');
    assert.match(chunked.head, /\r\ntransfer-encoding: chunked(\r\n|$)/);
    // Each chunk: its length in hex, CRLF, that many bytes, CRLF.
    const chunks: string[] = [];
    let rest = chunked.body;
    while (rest !== '') {
      const m = /^([0-9a-f]+)\r\n/.exec(rest);
      assert.ok(m, `a chunk's length at ${JSON.stringify(rest.slice(0, 20))}`);
      const length = parseInt(m[1]!, 16);
      const start = m[0].length;
      assert.equal(rest.slice(start + length, start + length + 2), '\r\n');
      chunks.push(rest.slice(start, start + length));
      rest = rest.slice(start + length + 2);
    }
    assert.match(
      chunks.join(''),
      /^retry: 2000\n\nid: \d+(-\d+)?\nevent: task\.created\ndata: .*Over HTTP\/1\.1.*\n\n$/,
    );
    const plain = await read('1.0');
    assert.doesNotMatch(plain.head, /transfer-encoding/);
    assert.match(plain.body, /^retry: 2000\n\nid: \d+(-\d+)?\nevent: task\.created\ndata: .*Over HTTP\/1\.0.*\n\n$/);
  });

  // The events shared by several clients go straight to each connection (client.ts `putShared`): what the connection
  // has not sent yet still counts against the client's bound.
  test('a client that stops reading is cut at STREAM_CLIENT_BUFFER_BYTES, and its place frees', async (t) => {
    const { api, base } = await streaming(t, {
      config: { logLevel: 'silent', streamMaxClients: 1, streamClientBufferBytes: 4_096 },
    });
    const { port } = new URL(base);
    const socket = net.connect(Number(port), '127.0.0.1');
    t.after(() => socket.destroy());
    let received = '';
    let closed = false;
    socket.setEncoding('latin1').on('data', (text: string) => (received += text));
    socket.on('close', () => (closed = true));
    socket.write('GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await until('the stream to open', () => received.includes('retry: 2000'));
    socket.pause(); // reads nothing more: the kernel's buffers fill, then the connection's
    assert.equal((await fetch(`${base}/api/stream`)).status, 503, 'the one place is taken');
    const description = 'x'.repeat(10_000);
    let made = 0;
    let place = 503;
    while (place === 503 && made < 4_000) {
      for (let i = 0; i < 50; i++)
        await api.post('/api/tasks', { projectId: 'proj_001', title: `T${made++}`, description });
      const next = await fetch(`${base}/api/stream`);
      place = next.status;
      await next.body?.cancel();
    }
    assert.equal(place, 200, `still taken after ${made} changes of 10 kB`);
    socket.resume();
    await until('the connection to be cut', () => closed, 10_000);
    const creates = received.split('event: task.created\n').length - 1;
    assert.ok(creates < made, `${creates} of the ${made} creates reached the client before the cut`);
  });

  test('the stream ends at once when the service closes', async (t) => {
    const { app, open } = await streaming(t);
    const stream = await open();
    const started = Date.now();
    await app.close();
    await stream.ended;
    assert.ok(Date.now() - started < 2_000, `closed in ${Date.now() - started} ms`);
  });
});

describe('GET /api/stream: replay window and access lines', () => {
  const memoryOnly = { skip: storeKind() !== 'memory' && "the ring is the memory store's window" };
  test(
    'in memory, a position older than the last STREAM_REPLAY events: one stream.reset, then live',
    memoryOnly,
    async (t) => {
      const { api, app } = await testApp(t, { config: { logLevel: 'silent', streamReplay: 3 } });
      const base = await listening(app);
      const first = await SseReader.open(`${base}/api/stream`);
      t.after(() => first.close());
      for (let i = 0; i < 5; i++) await api.post('/api/tasks', { projectId: 'proj_001', title: `T${i}` });
      const seen = await first.take(5);
      // The last three can be resumed from: after the second, the three that follow.
      const recent = await SseReader.open(`${base}/api/stream`, { 'last-event-id': seen[1]!.id! });
      t.after(() => recent.close());
      assert.deepEqual(
        (await recent.take(3)).map((e) => e.id),
        seen.slice(2).map((e) => e.id),
      );
      const old = await SseReader.open(`${base}/api/stream`, { 'last-event-id': seen[0]!.id! });
      t.after(() => old.close());
      const [reset] = await old.take(1);
      assert.equal(reset!.event, 'stream.reset');
      assert.match(JSON.parse(reset!.data).data.reason, /older/);
      assert.equal(reset!.id, seen[4]!.id, 'the reset names where the stream is');
    },
  );

  test('one access line per stream, when it closes', async (t) => {
    const lines: string[] = [];
    const { default: pino } = await import('pino');
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const { app } = await testApp(t, { logger });
    const base = await listening(app);
    const stream = await SseReader.open(`${base}/api/stream?types=task.*`);
    await new Promise((r) => setTimeout(r, 100));
    const ofStream = () => lines.filter((l) => l.includes('/api/stream'));
    assert.equal(ofStream().length, 0, 'nothing while it is open');
    stream.close();
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(ofStream().length, 1, lines.join(''));
    assert.match(ofStream()[0]!, /"statusCode":200/);
    assert.match(ofStream()[0]!, /"msg":"request completed"/);
  });
});
