import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { SECRET, chronological, closedPort, dispatcher, event, idle, receiver, target, waitFor } from './helpers.ts';

test('a 2xx is one succeeded attempt, signed so the standardwebhooks verifier accepts it', async (t) => {
  const rx = await receiver(t, (_req, res) => void res.writeHead(204).end());
  const { d } = dispatcher(t);
  const evt = event({ data: { id: 'task_1', title: 'Ünïcode ✓' } });
  d.enqueue(target(rx.url), evt);
  assert.equal(d.deliveries('wh_001')[0]?.status, 'pending', 'enqueue returns before anything is sent');
  await waitFor('success', () => idle(d));

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

  const [record, ...rest] = d.deliveries('wh_001');
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
  const { d } = dispatcher(t);
  const evt = event();
  d.enqueue(target(rx.url), evt);
  await waitFor('retry to succeed', () => idle(d) && rx.requests.length === 2);

  assert.deepEqual(
    rx.requests.map((r) => r.headers['webhook-id']),
    [evt.id, evt.id],
  );
  const records = chronological(d.deliveries('wh_001'));
  assert.deepEqual(
    records.map((r) => [r.attempt, r.status, r.responseStatus, r.error]),
    [
      [1, 'failed', 500, 'HTTP 500'],
      [2, 'succeeded', 200, null],
    ],
  );
  assert.notEqual(records[0]!.id, records[1]!.id);
  assert.ok(records[0]!.nextAttemptAt, 'the failed attempt says when the retry was due');
  assert.ok(rx.requests[1]!.at - rx.requests[0]!.at >= 45, 'the retry waited for the first step (50 ms)');
  // Each attempt is signed afresh and still verifies.
  for (const r of rx.requests) new Webhook(SECRET).verify(r.body, r.headers as Record<string, string>);
});

test('failures retry through the schedule, then the delivery is finally failed', async (t) => {
  const rx = await receiver(t, (_req, res) => void res.writeHead(503).end('down'));
  const { d, log } = dispatcher(t);
  d.enqueue(target(rx.url), event());
  await waitFor('retries exhausted', () => idle(d) && rx.requests.length === 3);
  assert.deepEqual(
    chronological(d.deliveries('wh_001')).map((r) => [r.attempt, r.status]),
    [
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
    ],
  );
  assert.equal(d.deliveries('wh_001')[0]!.nextAttemptAt, null);
  assert.ok(log.lines.some((l) => l.level === 'warn' && /retries exhausted/.test(l.msg ?? '')));
});

test('a receiver that hangs past the timeout fails with a timeout, then is retried', async (t) => {
  const rx = await receiver(t, (_req, res, n) => {
    if (n > 1) res.end('ok'); // the first request is never answered
  });
  const { d } = dispatcher(t, { timeoutMs: 300 });
  const started = performance.now();
  d.enqueue(target(rx.url), event());
  await waitFor('retry after timeout', () => idle(d) && rx.requests.length === 2);
  const [first, second] = chronological(d.deliveries('wh_001'));
  assert.equal(first!.status, 'failed');
  assert.equal(first!.error, 'timeout after 300 ms');
  assert.equal(first!.responseStatus, null);
  assert.ok(first!.durationMs! >= 290 && first!.durationMs! < 2_000, `durationMs ${first!.durationMs}`);
  assert.equal(second!.status, 'succeeded');
  assert.ok(performance.now() - started < 4_000);
});

test('a timeout also covers a response body that never ends', async (t) => {
  const rx = await receiver(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('partial…'); // and never end
  });
  const { d } = dispatcher(t, { retrySchedule: [] });
  d.enqueue(target(rx.url), event());
  await waitFor('timeout', () => idle(d));
  const [record] = d.deliveries('wh_001');
  assert.equal(record!.status, 'failed');
  assert.equal(record!.responseStatus, 200);
  assert.equal(record!.error, 'timeout after 300 ms (HTTP 200, reading the response body)');
});

test('a large response body is read only up to a bound', async (t) => {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let written = 0;
  const rx = await receiver(t, async (_req, res) => {
    res.writeHead(200);
    for (let i = 0; i < 160 && !res.destroyed; i++, written++) {
      // 10 MB if anyone read it all
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
    }
    res.end();
  });
  const { d } = dispatcher(t, { retrySchedule: [] });
  d.enqueue(target(rx.url), event());
  await waitFor('success', () => idle(d));
  assert.equal(d.deliveries('wh_001')[0]!.status, 'succeeded');
  await waitFor('receiver stopped writing', () => rx.concurrent === 0);
  assert.ok(written < 160, `the connection was dropped early (${written} of 160 chunks written)`);
});

test('connection refused is a failed attempt with the network error', async (t) => {
  const port = await closedPort();
  const { d } = dispatcher(t, { retrySchedule: [20] });
  d.enqueue(target(`http://127.0.0.1:${port}/hook`), event());
  await waitFor('failure', () => idle(d) && d.deliveries('wh_001').length === 2);
  for (const r of d.deliveries('wh_001')) {
    assert.equal(r.status, 'failed');
    assert.equal(r.responseStatus, null);
    assert.match(r.error!, /ECONNREFUSED/);
  }
});

test('410 Gone calls onGone and is not retried', async (t) => {
  const rx = await receiver(t, (_req, res) => void res.writeHead(410).end());
  const gone: string[] = [];
  const { d } = dispatcher(t, { onGone: async (id) => void gone.push(id) });
  d.enqueue(target(rx.url, 'wh_gone'), event());
  await waitFor('onGone', () => gone.length === 1 && idle(d, 'wh_gone'));
  await new Promise((resolve) => setTimeout(resolve, 120)); // past every retry step
  assert.deepEqual(gone, ['wh_gone']);
  assert.equal(rx.requests.length, 1);
  const records = d.deliveries('wh_gone');
  assert.equal(records.length, 1);
  assert.equal(records[0]!.status, 'failed');
  assert.equal(records[0]!.responseStatus, 410);
});

test('a redirect is a failure and is not followed', async (t) => {
  const elsewhere = await receiver(t);
  const rx = await receiver(t, (_req, res) => void res.writeHead(302, { location: elsewhere.url }).end());
  const { d } = dispatcher(t);
  d.enqueue(target(rx.url), event());
  await waitFor('retries exhausted', () => idle(d) && rx.requests.length === 3);
  assert.equal(elsewhere.requests.length, 0);
  for (const r of d.deliveries('wh_001')) {
    assert.equal(r.status, 'failed');
    assert.equal(r.responseStatus, 302);
    assert.equal(r.error, 'HTTP 302 (redirects are not followed)');
  }
});

test('a loopback target is refused by default: recorded with its reason, never contacted, not retried', async (t) => {
  const rx = await receiver(t);
  const { d, log } = dispatcher(t, { allowPrivate: false });
  d.enqueue(target(`http://127.0.0.1:${rx.port}/hook`), event());
  d.enqueue(target(`http://[::1]:${rx.port}/hook`, 'wh_v6'), event());
  d.enqueue(target(`http://localhost:${rx.port}/hook`, 'wh_name'), event());
  d.enqueue(target(`http://[::ffff:127.0.0.1]:${rx.port}/hook`, 'wh_mapped'), event());
  await waitFor('refusals', () => ['wh_001', 'wh_v6', 'wh_name', 'wh_mapped'].every((id) => idle(d, id)));
  await new Promise((resolve) => setTimeout(resolve, 120)); // past every retry step

  const [v4] = d.deliveries('wh_001');
  assert.equal(v4!.status, 'refused');
  assert.equal(v4!.error, 'refused: 127.0.0.1 is a loopback address (set WEBHOOK_ALLOW_PRIVATE=true to allow)');
  assert.equal(v4!.responseStatus, null);
  assert.equal(
    d.deliveries('wh_v6')[0]!.error,
    'refused: ::1 is a loopback address (set WEBHOOK_ALLOW_PRIVATE=true to allow)',
  );
  assert.match(
    d.deliveries('wh_name')[0]!.error!,
    /^refused: localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/,
  );
  assert.match(d.deliveries('wh_mapped')[0]!.error!, /^refused: ::ffff:7f00:1 is a loopback address/);
  for (const id of ['wh_001', 'wh_v6', 'wh_name', 'wh_mapped'])
    assert.equal(d.deliveries(id).length, 1, `${id}: no retry`);
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
  await waitFor('refusal', () => idle(d));
  const [record] = d.deliveries('wh_001');
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
  await waitFor('delivery', () => idle(d));
  assert.equal(d.deliveries('wh_001')[0]!.status, 'succeeded');
  assert.equal(rx.requests[0]!.headers.host, `evil.test:${rx.port}`);
});

test('a URL that is not http(s) fails at once and is not retried', async (t) => {
  const { d } = dispatcher(t);
  d.enqueue(target('ftp://127.0.0.1/hook'), event());
  d.enqueue(target('http://user:pass@127.0.0.1:1/hook', 'wh_creds'), event());
  await waitFor('failure', () => idle(d) && idle(d, 'wh_creds'));
  await new Promise((resolve) => setTimeout(resolve, 120)); // past every retry step
  assert.deepEqual(
    d.deliveries('wh_001').map((r) => [r.status, r.error]),
    [['failed', 'invalid url: ftp: is not http or https']],
  );
  assert.deepEqual(
    d.deliveries('wh_creds').map((r) => [r.status, r.error]),
    [['failed', 'invalid url: credentials in the URL are not supported']],
  );
});
