/**
 * A webhook's secret leaves the service exactly once: in the 201 answer to its create. This test runs the real
 * process at LOG_LEVEL=debug, creates webhooks, makes them deliver (to receivers that succeed, fail and answer
 * 410), then reads every route, every record, the activity log, the delivery logs, the OpenAPI document and a
 * set of error answers, and searches all of it, every log line and every delivery received for the secrets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startServer } from '../helpers/server-process.ts';
import { sleep } from './raw.ts';

interface Seen {
  what: string;
  status: number;
  text: string;
}

async function receiver(t: import('node:test').TestContext, status: number) {
  const received: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      received.push(JSON.stringify(req.headers) + body);
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

test('a webhook secret appears only in its 201 create answer: not in any other answer, log line (debug) or delivery', async (t) => {
  const ok = await receiver(t, 204);
  const failing = await receiver(t, 500);
  const gone = await receiver(t, 410);
  const server = await startServer(['--log-level', 'debug', '--webhook-retry-schedule', '50ms,50ms'], {
    WEBHOOK_ALLOW_PRIVATE: 'true',
  });
  t.after(() => server.child.kill('SIGKILL'));

  const seen: Seen[] = [];
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    seen.push({ what: `${method} ${path}`, status: res.status, text: `${JSON.stringify([...res.headers])}\n${text}` });
    const json = (res.headers.get('content-type') ?? '').startsWith('application/json') && text !== '';
    return { status: res.status, body: json ? JSON.parse(text) : undefined, etag: res.headers.get('etag') };
  };

  // Three webhooks, each told apart by its secret.
  const hooks: { id: string; secret: string; createAnswer: number }[] = [];
  for (const [url, events] of [
    [ok.url, ['*']],
    [failing.url, ['task.created', 'project.updated']],
    [gone.url, ['project.created']],
  ] as const) {
    const created = await call('POST', '/api/webhooks', { url, events, description: 'secret sweep' });
    assert.equal(created.status, 201);
    assert.match(created.body.data.secret, /^whsec_[A-Za-z0-9]{12}$/);
    hooks.push({ id: created.body.data.id, secret: created.body.data.secret, createAnswer: seen.length - 1 });
  }

  // Events, so that deliveries are made, retried, refused and answered 410 (which switches a webhook off).
  const project = await call('POST', '/api/projects', { name: 'Sweep', teamId: 'team_001' }, { 'x-actor': 'alice' });
  await call(
    'PUT',
    `/api/projects/${project.body.data.id}`,
    { name: 'Sweep 2', teamId: 'team_001' },
    { 'x-actor': 'bob' },
  );
  const task = await call('POST', '/api/tasks', { projectId: project.body.data.id, title: 'Leak?', assignee: 'carol' });
  await call('POST', '/api/comments', { targetType: 'task', targetId: task.body.data.id, author: 'alice', body: 'hi' });
  await call('POST', '/api/milestones', { projectId: project.body.data.id, title: 'M', status: 'reached' });
  await call('POST', '/api/activity-log', {
    action: 'sprint.started',
    actor: 'alice',
    resourceType: 'project',
    resourceId: project.body.data.id,
  });
  for (const h of hooks) await call('POST', `/api/webhooks/${h.id}/ping`);
  await sleep(800); // deliveries and their retries (50 ms apart) settle

  // Updates and errors on the webhooks themselves.
  const [first, second] = hooks;
  const current = await call('GET', `/api/webhooks/${first!.id}`);
  await call('GET', `/api/webhooks/${first!.id}`, undefined, { 'if-none-match': current.etag! });
  await call('PATCH', `/api/webhooks/${first!.id}`, { description: 'changed', secret: 'whsec_chosenByMe01' });
  await call('PATCH', `/api/webhooks/${first!.id}`, { events: ['nope'] });
  await call('PATCH', `/api/webhooks/${first!.id}`, { url: 'ftp://x' });
  await call('PATCH', `/api/webhooks/${first!.id}`, { active: true }, { 'if-match': current.etag! });
  await call('PUT', `/api/webhooks/${first!.id}`, { url: ok.url });
  await call('PATCH', `/api/webhooks/${first!.id}`, '{"url":');
  await call('GET', '/api/webhooks/wh_missing');
  const deliveries = await call('GET', `/api/webhooks/${first!.id}/deliveries`);
  assert.ok(deliveries.body.count > 0);
  await call('POST', `/api/webhooks/${first!.id}/deliveries/${deliveries.body.data[0].id}/redeliver`);
  await call('POST', `/api/webhooks/${first!.id}/deliveries/dlv_missing/redeliver`);
  await sleep(200);

  // Every read: lists (with their filters), every single record, the delivery logs, the documents.
  const lists = ['projects', 'tasks', 'teams', 'comments', 'milestones', 'time-entries', 'webhooks', 'notifications'];
  for (const name of lists) {
    const list = await call('GET', `/api/${name}`);
    for (const record of list.body.data) await call('GET', `/api/${name}/${record.id}`);
  }
  for (const q of ['?active=true', '?active=false', '?event=*', '?event=task.created'])
    await call('GET', `/api/webhooks${q}`);
  const activity = await call('GET', '/api/activity-log?limit=100000');
  for (const entry of activity.body.data) await call('GET', `/api/activity-log/${entry.id}`);
  await call('GET', '/api/activity-log?resourceType=webhook');
  for (const h of hooks) await call('GET', `/api/webhooks/${h.id}/deliveries`);
  for (const path of ['/api/openapi.json', '/docs/json', '/docs/yaml', '/api/health']) await call('GET', path);
  await call('DELETE', `/api/webhooks/${second!.id}`);
  await call('GET', `/api/webhooks/${second!.id}`);

  // The sweep.
  for (const h of hooks) {
    const holders = seen.filter((s) => s.text.includes(h.secret)).map((s) => s.what);
    assert.deepEqual(holders, ['POST /api/webhooks'], `secret of ${h.id} seen in: ${holders.join(', ')}`);
    assert.ok(seen[h.createAnswer]!.text.includes(h.secret));
    assert.equal(seen[h.createAnswer]!.status, 201);
  }
  const log = server.output();
  assert.ok(log.split('\n').filter((l) => l.includes('"level":20')).length > 0, 'debug lines were logged');
  for (const h of hooks) {
    assert.equal(log.includes(h.secret), false, `secret of ${h.id} in the log`);
    assert.equal(log.includes(h.secret.slice('whsec_'.length)), false, `secret of ${h.id} (without prefix) in the log`);
  }
  const delivered = [...ok.received, ...failing.received, ...gone.received];
  assert.ok(
    ok.received.length > 0 && failing.received.length > 1 && gone.received.length > 0,
    'every receiver was called',
  );
  for (const h of hooks)
    assert.equal(
      delivered.some((r) => r.includes(h.secret)),
      false,
      `secret of ${h.id} sent in a delivery`,
    );
  assert.equal(
    seen.some((s) => s.status >= 500),
    false,
  );
  t.diagnostic(
    `${seen.length} answers, ${log.split('\n').length} log lines and ${delivered.length} deliveries searched for ${hooks.length} secrets`,
  );
});
