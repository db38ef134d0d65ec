import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { realTimers } from '../../src/webhooks/types.ts';
import {
  SECRET,
  appWithReceivers,
  captureLogger,
  chronological,
  closedPort,
  deliveringApp,
  dispatcher,
  event,
  receiver,
  subscribe,
  target,
} from './helpers.ts';

test('a 2xx is one succeeded attempt, signed so the standardwebhooks verifier accepts it', async (t) => {
  const rx = await receiver(t, (_req, res) => void res.writeHead(204).end());
  const { d } = dispatcher(t);
  const evt = event({ data: { id: 'task_1', title: 'Ünïcode ✓' } });
  d.enqueue(target(rx.url), evt);
  assert.equal((await d.deliveries('wh_001'))[0]?.status, 'pending', 'enqueue returns before anything is sent');
  await d.idle();

  assert.equal(rx.requests.length, 1);
  const { headers, body } = rx.requests[0]!;
  assert.equal(body, JSON.stringify({ type: evt.type, timestamp: evt.timestamp, data: evt.data }));
  assert.equal(headers['content-type'], 'application/json');
  assert.equal(headers['user-agent'], 'pm-service-webhooks/1');
  assert.equal(headers['webhook-id'], evt.id);
  assert.match(String(headers['webhook-timestamp']), /^\d{10}$/);
  assert.ok(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000) < 5);
  assert.match(String(headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/);
  const verified = new Webhook(SECRET).verify(body, headers as Record<string, string>);
  assert.deepEqual(verified, { type: evt.type, timestamp: evt.timestamp, data: evt.data });

  const [record, ...rest] = await d.deliveries('wh_001');
  assert.equal(rest.length, 0);
  assert.match(record!.id, /^dlv_/);
  assert.equal(record!.webhookId, 'wh_001');
  assert.equal(record!.eventId, evt.id);
  assert.equal(record!.eventType, 'task.created');
  assert.equal(record!.attempt, 1);
  assert.equal(record!.status, 'succeeded');
  assert.equal(record!.responseStatus, 204);
  assert.equal(record!.error, null);
  assert.ok(Number.isInteger(record!.durationMs) && record!.durationMs! >= 0);
  assert.ok(Date.parse(record!.completedAt!) >= Date.parse(record!.createdAt));
  assert.equal(record!.nextAttemptAt, null);
});

test('a 500 is retried with the same webhook-id; attempts are numbered 1, 2', async (t) => {
  const rx = await receiver(t, (_req, res, n) => void res.writeHead(n === 1 ? 500 : 200).end());
  const { d, timers } = dispatcher(t);
  const evt = event();
  d.enqueue(target(rx.url), evt);
  await d.idle();
  assert.equal(rx.requests.length, 1);
  assert.deepEqual(timers.pending, [50], 'the retry waits for the first step');
  timers.advance(49);
  await d.idle();
  assert.equal(rx.requests.length, 1, 'not before its time');
  timers.advance(1);
  await d.idle();
  assert.equal(rx.requests.length, 2);

  assert.deepEqual(
    rx.requests.map((r) => r.headers['webhook-id']),
    [evt.id, evt.id],
  );
  const records = chronological(await d.deliveries('wh_001'));
  assert.deepEqual(
    records.map((r) => [r.attempt, r.status, r.responseStatus, r.error]),
    [
      [1, 'failed', 500, 'HTTP 500'],
      [2, 'succeeded', 200, null],
    ],
  );
  assert.notEqual(records[0]!.id, records[1]!.id);
  const planned = Date.parse(records[0]!.nextAttemptAt!) - Date.parse(records[0]!.completedAt!);
  assert.equal(planned, 50, 'the failed attempt says when the retry was due');
  assert.deepEqual(timers.pending, [], 'a success is not retried');
  // Each attempt is signed afresh and still verifies.
  for (const r of rx.requests) new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>);
});

test('retries due at different times each happen at their time, the later one too', async (t) => {
  // Two receivers fail once, asking to be tried again after 1 s and after 5 s (Retry-After): one wake-up is set at
  // a time, so the later retry is found when the first wake-up fires.
  const soon = await receiver(
    t,
    (_req, res, n) => void (n === 1 ? res.writeHead(503, { 'retry-after': '1' }).end() : res.end()),
  );
  const late = await receiver(
    t,
    (_req, res, n) => void (n === 1 ? res.writeHead(503, { 'retry-after': '5' }).end() : res.end()),
  );
  const { d, timers } = dispatcher(t, { retrySchedule: [50, 10_000] });
  d.enqueue(target(soon.url, 'wh_001'), event());
  d.enqueue(target(late.url, 'wh_002'), event());
  await d.idle();
  assert.deepEqual([soon.requests.length, late.requests.length], [1, 1]);
  timers.advance(1_000);
  await d.idle();
  assert.deepEqual([soon.requests.length, late.requests.length], [2, 1]);
  timers.advance(3_999);
  await d.idle();
  assert.equal(late.requests.length, 1, 'not before its time');
  timers.advance(1);
  await d.idle();
  assert.deepEqual([soon.requests.length, late.requests.length], [2, 2]);
  assert.deepEqual(timers.pending, []);
});

test('failures retry through the schedule, then the delivery is finally failed', async (t) => {
  const rx = await receiver(t, (_req, res) => void res.writeHead(503).end('down'));
  const { d, log, timers } = dispatcher(t);
  d.enqueue(target(rx.url), event());
  for (const step of [50, 100]) {
    await d.idle();
    assert.deepEqual(timers.pending, [step]);
    timers.advance(step);
  }
  await d.idle();
  assert.deepEqual(timers.pending, [], 'no retry after the last step');
  assert.equal(rx.requests.length, 3);
  assert.deepEqual(
    chronological(await d.deliveries('wh_001')).map((r) => [r.attempt, r.status]),
    [
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
    ],
  );
  assert.equal((await d.deliveries('wh_001'))[0]!.nextAttemptAt, null);
  assert.ok(log.lines.some((l) => l.level === 'warn' && /retries exhausted/.test(l.msg ?? '')));
});

test('a receiver that hangs past the timeout fails with a timeout, then is retried', async (t) => {
  const rx = await receiver(t, (_req, res, n) => {
    if (n > 1) res.end('ok'); // the first request is never answered
  });
  const { d, timers } = dispatcher(t, { timeoutMs: 300 });
  d.enqueue(target(rx.url), event());
  await rx.arrived(1);
  assert.deepEqual(timers.pending, [300], 'the attempt runs against its timeout');
  timers.advance(299);
  assert.equal((await d.deliveries('wh_001'))[0]!.status, 'pending');
  timers.advance(1);
  await d.idle();
  timers.advance(50);
  await d.idle();
  const [first, second] = chronological(await d.deliveries('wh_001'));
  assert.equal(first!.status, 'failed');
  assert.equal(first!.error, 'timeout after 300 ms');
  assert.equal(first!.responseStatus, null);
  assert.ok(Number.isInteger(first!.durationMs) && first!.durationMs! >= 0);
  assert.equal(second!.status, 'succeeded');
});

test('a timeout also covers a response body that never ends', async (t) => {
  const rx = await receiver(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('partial…'); // and never end
  });
  // Real timers: the timeout must fire once the headers are in, and nothing tells the test when that is.
  const { d } = dispatcher(t, { retrySchedule: [], scheduler: realTimers });
  d.enqueue(target(rx.url), event());
  await d.idle();
  const [record] = await d.deliveries('wh_001');
  assert.equal(record!.status, 'failed');
  assert.equal(record!.responseStatus, 200);
  assert.equal(record!.error, 'timeout after 300 ms (HTTP 200, reading the response body)');
});

test('a large response body is read only up to a bound', async (t) => {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let written = 0;
  let stopped!: () => void;
  const stoppedWriting = new Promise<void>((resolve) => (stopped = resolve));
  const rx = await receiver(t, async (_req, res) => {
    res.writeHead(200);
    for (let i = 0; i < 160 && !res.destroyed; i++, written++) {
      // 10 MB if anyone read it all
      if (!res.write(chunk)) await drainedOrClosed(res);
    }
    res.end();
    stopped();
  });
  const { d } = dispatcher(t, { retrySchedule: [] });
  d.enqueue(target(rx.url), event());
  await d.idle();
  assert.equal((await d.deliveries('wh_001'))[0]!.status, 'succeeded');
  await stoppedWriting;
  assert.ok(written < 160, `the connection was dropped early (${written} of 160 chunks written)`);
});

/** Waits for room in the socket's buffer, or for the socket to close, leaving no listener behind. */
function drainedOrClosed(res: import('node:http').ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.on('drain', done).on('close', done);
  });
}

test('connection refused is a failed attempt with the network error', async (t) => {
  const port = await closedPort();
  const { d, timers } = dispatcher(t, { retrySchedule: [20] });
  d.enqueue(target(`http://127.0.0.1:${port}/hook`), event());
  await d.idle();
  timers.advance(20);
  await d.idle();
  assert.equal((await d.deliveries('wh_001')).length, 2);
  for (const r of await d.deliveries('wh_001')) {
    assert.equal(r.status, 'failed');
    assert.equal(r.responseStatus, null);
    assert.match(r.error!, /ECONNREFUSED/);
  }
});

test('410 Gone is not retried: the webhook is switched off, as a change by system', async (t) => {
  const { api, timers, watched } = await appWithReceivers(t);
  const r = await receiver(t, (_req, res) => void res.writeHead(410).end());
  const hook = await subscribe(api, r.url, ['task.created']);
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'Gone' });
  await watched.until(1); // the attempt, and the switching off it causes
  assert.deepEqual(timers.pending, [], 'no retry');
  assert.equal(r.requests.length, 1);
  const log = (await api.get(`/api/webhooks/${hook.id}/deliveries`)).body.data;
  assert.deepEqual(
    log.map((d: any) => [d.status, d.responseStatus, d.error, d.nextAttemptAt]),
    [['failed', 410, 'HTTP 410 Gone (receiver asked for no more deliveries)', null]],
  );
  assert.equal((await api.get(`/api/webhooks/${hook.id}`)).body.data.active, false);
  const changes = (await api.get(`/api/activity-log?resourceId=${hook.id}&action=webhook.updated`)).body.data;
  assert.deepEqual(
    changes.map((e: any) => [e.actor, e.metadata]),
    [['system', { fields: ['active'] }]],
  );
});

test('a redirect is a failure and is not followed', async (t) => {
  const elsewhere = await receiver(t);
  const rx = await receiver(t, (_req, res) => void res.writeHead(302, { location: elsewhere.url }).end());
  const { d, timers } = dispatcher(t);
  d.enqueue(target(rx.url), event());
  for (const step of [50, 100, 0]) {
    await d.idle();
    timers.advance(step);
  }
  assert.equal(rx.requests.length, 3);
  assert.equal(elsewhere.requests.length, 0);
  for (const r of await d.deliveries('wh_001')) {
    assert.equal(r.status, 'failed');
    assert.equal(r.responseStatus, 302);
    assert.equal(r.error, 'HTTP 302 (redirects are not followed)');
  }
});

test('by default a loopback target is refused: recorded with its reason, never contacted, not retried', async (t) => {
  const log = captureLogger();
  const { api, timers, watched } = await deliveringApp(t, { log }); // the service's defaults
  const rx = await receiver(t);
  const hosts = ['127.0.0.1', '[::1]', 'localhost', '[::ffff:127.0.0.1]'];
  const hooks = [];
  for (const host of hosts) hooks.push(await subscribe(api, `http://${host}:${rx.port}/hook`, ['task.created']));
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'Blocked' });
  await watched.until(hosts.length + 2); // and the two seeded webhooks on task.created
  assert.deepEqual(timers.pending, [], 'no retry');

  const logs: any[][] = [];
  for (const hook of hooks) logs.push((await api.get(`/api/webhooks/${hook.id}/deliveries`)).body.data);
  for (const [i, records] of logs.entries()) {
    assert.equal(records.length, 1, hosts[i]);
    assert.equal(records[0].status, 'refused', hosts[i]);
    assert.equal(records[0].responseStatus, null, hosts[i]);
    assert.equal(records[0].stopReason, 'refused', hosts[i]);
  }
  const why = (i: number) => logs[i]![0].error;
  assert.equal(why(0), 'refused: 127.0.0.1 is a loopback address (set WEBHOOK_ALLOW_PRIVATE=true to allow)');
  assert.equal(why(1), 'refused: ::1 is a loopback address (set WEBHOOK_ALLOW_PRIVATE=true to allow)');
  assert.match(why(2), /^refused: localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/);
  assert.match(why(3), /^refused: ::ffff:7f00:1 is a loopback address/);
  assert.equal(rx.requests.length, 0);
  assert.ok(log.lines.some((l) => l.level === 'warn' && /refused/.test(l.msg ?? '')));
});

test('the check is made on the resolved address: a name resolving to loopback is refused', async (t) => {
  const rx = await receiver(t);
  const lookups: string[] = [];
  const evil: LookupFunction = (hostname, options, callback) => {
    lookups.push(hostname);
    if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  };
  const { d } = dispatcher(t, { allowPrivate: false, lookup: evil });
  d.enqueue(target(`http://evil.test:${rx.port}/hook`), event());
  await d.idle();
  const [record] = await d.deliveries('wh_001');
  assert.equal(record!.status, 'refused');
  assert.equal(
    record!.error,
    'refused: evil.test resolves to 127.0.0.1, which is a loopback address (set WEBHOOK_ALLOW_PRIVATE=true to allow)',
  );
  assert.deepEqual(lookups, ['evil.test']);
  assert.equal(rx.requests.length, 0);
});

test('the injected lookup is the one the connection uses (allowed when allowPrivate)', async (t) => {
  const rx = await receiver(t);
  const evil: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  };
  const { d } = dispatcher(t, { allowPrivate: true, lookup: evil });
  d.enqueue(target(`http://evil.test:${rx.port}/hook`), event());
  await d.idle();
  assert.equal((await d.deliveries('wh_001'))[0]!.status, 'succeeded');
  assert.equal(rx.requests[0]!.headers.host, `evil.test:${rx.port}`);
});

test('a URL that is not http(s) fails at once and is not retried', async (t) => {
  const { d, timers } = dispatcher(t);
  d.enqueue(target('ftp://127.0.0.1/hook'), event());
  d.enqueue(target('http://user:pass@127.0.0.1:1/hook', 'wh_creds'), event());
  await d.idle();
  assert.deepEqual(timers.pending, [], 'no retry');
  assert.deepEqual(
    (await d.deliveries('wh_001')).map((r) => [r.status, r.error]),
    [['failed', 'invalid url: ftp: is not http or https']],
  );
  assert.deepEqual(
    (await d.deliveries('wh_creds')).map((r) => [r.status, r.error]),
    [['failed', 'invalid url: credentials in the URL are not supported']],
  );
});
