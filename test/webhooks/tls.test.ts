import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { startServer } from '../helpers/server-process.ts';
import { chronological, dispatcher, event, target, type Received } from './helpers.ts';

// A self-signed certificate for `localhost` and 127.0.0.1, for these tests only (test/fixtures/tls/).
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/tls/${name}`, import.meta.url));
const CERT = fixture('localhost-cert.pem');
const tls = { key: readFileSync(fixture('localhost-key.pem')), cert: readFileSync(CERT) };

/** An https receiver on `host` with that certificate, answering 204; closed when the test ends. */
async function httpsReceiver(
  t: TestContext,
  host = '127.0.0.1',
): Promise<{ port: number; requests: Received[]; sockets: () => number }> {
  const requests: Received[] = [];
  let connections = 0;
  const server: Server = createServer(tls, async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    requests.push({ headers: req.headers, body, at: performance.now() });
    res.writeHead(204).end();
  });
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as AddressInfo).port, requests, sockets: () => connections };
}

test("https deliveries check the receiver's certificate against Node's root certificates: a self-signed one fails every attempt, and nothing is sent", async (t) => {
  const rx = await httpsReceiver(t);
  const { d, timers } = dispatcher(t);
  d.enqueue(target(`https://127.0.0.1:${rx.port}/hook`), event());
  for (const step of [50, 100, 0]) {
    await d.idle();
    timers.advance(step);
  }

  const records = chronological(await d.deliveries('wh_001'));
  assert.deepEqual(
    records.map((r) => [r.attempt, r.status, r.responseStatus]),
    [
      [1, 'failed', null],
      [2, 'failed', null],
      [3, 'failed', null],
    ],
  );
  for (const r of records) assert.match(r.error ?? '', /self[- ]signed certificate/i);
  assert.equal(rx.requests.length, 0, 'no request was sent over the unverified connection');
});

test('over real HTTP, with a CA the process trusts (NODE_EXTRA_CA_CERTS), https deliveries to a name and to an IP are verified, signed and sent, reusing their connection', async (t) => {
  const byName = await httpsReceiver(t, (await lookup('localhost')).address); // where the service will connect
  const byIp = await httpsReceiver(t);
  const server = await startServer([], { NODE_EXTRA_CA_CERTS: CERT, WEBHOOK_ALLOW_PRIVATE: 'true' });
  t.after(() => server.child.kill('SIGKILL'));
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server.baseUrl + path, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
  };

  const hooks: { id: string; secret: string }[] = [];
  for (const url of [`https://localhost:${byName.port}/hook`, `https://127.0.0.1:${byIp.port}/hook`]) {
    const created = await api('POST', '/api/webhooks', { url, events: ['task.created'] });
    assert.equal(created.status, 201);
    hooks.push(created.body.data as { id: string; secret: string });
  }
  type Attempt = { status: string; responseStatus: number };
  /** Each hook's delivery records, once `count` of them succeeded (a record completes after the receiver's answer). */
  const succeeded = async (count: number): Promise<Attempt[][]> => {
    // Another process: its delivery log is all there is to watch.
    for (const deadline = Date.now() + 5_000; ; await new Promise((resolve) => setTimeout(resolve, 20))) {
      const records = await Promise.all(
        hooks.map(
          async (h) => (await api('GET', `/api/webhooks/${h.id}/deliveries`)).body.data as unknown as Attempt[],
        ),
      );
      if (records.every((r) => r.filter((a) => a.status === 'succeeded').length === count)) return records;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${count} succeeded deliveries per hook: ${JSON.stringify(records)}`);
    }
  };
  let records: Attempt[][] = [];
  for (const [n, title] of ['First over TLS', 'Second over TLS'].entries()) {
    assert.equal((await api('POST', '/api/tasks', { projectId: 'proj_001', title })).status, 201);
    records = await succeeded(n + 1); // the first connection is free again before the second delivery
  }

  for (const [i, rx] of [byName, byIp].entries()) {
    assert.deepEqual(
      records[i]!.map((r) => [r.status, r.responseStatus]),
      [
        ['succeeded', 204],
        ['succeeded', 204],
      ],
    );
    assert.deepEqual(
      rx.requests.map((r) => JSON.parse(r.body).data.title),
      ['First over TLS', 'Second over TLS'],
    );
    for (const { body, headers } of rx.requests) {
      const verified = new Webhook(hooks[i]!.secret).verify(body, headers as Record<string, string>) as {
        type: string;
      };
      assert.equal(verified.type, 'task.created');
    }
    assert.equal(rx.sockets(), 1, 'the second delivery reused the first one’s TLS connection');
  }
});
