/**
 * Graceful shutdown of the real server process under load: SIGTERM while many requests are in flight (their
 * bodies half sent, on pooled and unpooled connections) and a webhook delivery hangs on a receiver that never
 * answers. The listener closes at once, every request already accepted gets its normal answer, idle keep-alive
 * connections do not hold the process, and it exits 0 within SHUTDOWN_GRACE_MS.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer } from '../helpers/server-process.ts';
import { sleep } from './raw.ts';

const GRACE_MS = 6_000;
const IN_FLIGHT = 120;

interface Answer {
  status: number;
  body: any;
}

/** Starts a request, sends its headers and the first half of its body, and returns a way to finish it. */
function halfSent(base: string, path: string, payload: string, agent: Agent | false) {
  const bytes = Buffer.from(payload);
  const cut = Math.floor(bytes.length / 2);
  let finish!: () => void;
  const answer = new Promise<Answer>((resolve, reject) => {
    const req = request(
      new URL(path, base),
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': bytes.length, 'x-actor': 'alice' },
      },
      (res: IncomingMessage) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error('no answer in 15 s')));
    req.write(bytes.subarray(0, cut));
    req.flushHeaders();
    finish = () => req.end(bytes.subarray(cut));
  });
  return { answer, finish: () => finish() };
}

test(`SIGTERM with ${IN_FLIGHT} requests in flight and a hung webhook delivery: all answered normally, listener closed, exit 0 within the grace period`, async (t) => {
  // A webhook receiver on loopback that accepts deliveries and never answers.
  const hung = createServer(() => {});
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    hung.closeAllConnections();
    hung.close();
  });
  const hookUrl = `http://127.0.0.1:${(hung.address() as AddressInfo).port}/hook`;

  const server = await startServer(['--shutdown-grace-ms', String(GRACE_MS)], { WEBHOOK_ALLOW_PRIVATE: 'true' });
  t.after(() => server.child.kill('SIGKILL'));
  const base = server.baseUrl;
  const hook = await fetch(`${base}/api/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: hookUrl, events: ['project.created'] }),
  });
  assert.equal(hook.status, 201);
  const projects = await fetch(`${base}/api/projects`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"name":"Before"}',
  });
  assert.equal(projects.status, 201); // its delivery is now hanging on the receiver

  // Idle keep-alive connections, open when the signal comes: they must not keep the process up.
  const idle = new Agent({ keepAlive: true, maxSockets: 20 });
  const pooled = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  t.after(() => {
    idle.destroy();
    pooled.destroy();
  });
  await Promise.all(
    Array.from(
      { length: 20 },
      () =>
        new Promise<void>((resolve, reject) => {
          request(new URL('/api/health', base), { agent: idle }, (res) => res.resume().on('end', resolve))
            .on('error', reject)
            .end();
        }),
    ),
  );

  // Requests in flight: headers and half of each body sent; half on keep-alive connections, half on their own.
  const inFlight = Array.from({ length: IN_FLIGHT }, (_, i) => {
    const name = `In flight ${i} ${'x'.repeat(i)}`;
    const kind = i % 3;
    const path = kind === 0 ? '/api/projects' : kind === 1 ? '/api/tasks' : '/api/time-entries';
    const body =
      kind === 0
        ? { name }
        : kind === 1
          ? { projectId: 'proj_002', title: name, assignee: 'bob' }
          : { taskId: 'task_004', username: 'bob', hours: 1.5, description: name };
    return { kind, name, ...halfSent(base, path, JSON.stringify(body), i % 2 === 0 ? pooled : false) };
  });
  await sleep(500); // every request's headers are in and its handler waits for the rest of the body

  const signalled = performance.now();
  server.child.kill('SIGTERM');
  await sleep(300);

  // The listener is closed: a new connection is refused while the accepted requests are still running.
  await assert.rejects(fetch(`${base}/api/health`, { signal: AbortSignal.timeout(2_000) }));

  for (const r of inFlight) r.finish();
  const answers = await Promise.all(inFlight.map((r) => r.answer));
  for (const [i, a] of answers.entries()) {
    assert.equal(a.status, 201, `request ${i}: ${JSON.stringify(a.body)}`);
    const r = inFlight[i]!;
    if (r.kind === 0) assert.equal(a.body.data.name, r.name);
    if (r.kind === 1) assert.equal(a.body.data.title, r.name);
    if (r.kind === 2) assert.equal(a.body.data.description, r.name);
  }

  const code = await Promise.race([server.exited, sleep(GRACE_MS + 2_000).then(() => 'still running')]);
  const exitedAfter = performance.now() - signalled;
  assert.equal(code, 0, server.output().slice(-2_000));
  assert.ok(exitedAfter < GRACE_MS, `exited ${Math.round(exitedAfter)} ms after SIGTERM`);
  const log = server.output();
  assert.match(log, /shutting down/);
  assert.match(log, /webhook/); // the hung delivery was given up and named in the log
  assert.doesNotMatch(log, /"level":60/);
  t.diagnostic(
    `${IN_FLIGHT} in-flight requests all answered 201; exit code 0 after ${Math.round(exitedAfter)} ms (grace ${GRACE_MS} ms)`,
  );
});
