/**
 * The webhook outbox under load, with the service in this process (so client, service and receivers share one
 * event loop: the figures are a floor, not the service's best):
 * - fairness: a receiver that never answers and a healthy one side by side, each subscribed to `task.created`; the
 *   healthy one's latency (its arrival minus the task's `createdAt`, taken before the commit: an upper bound of
 *   commit-to-receiver) at p50/p99;
 * - with `--database-url` (PostgreSQL): `POST /api/tasks` with one subscribed (healthy) webhook against none, and
 *   the commit-to-receiver delay at the rate reached.
 *
 *   node --import tsx bench/webhook-outbox.ts [--seconds 5] [--connections 16] [--database-url postgres://…]
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { openStore } from '../src/store/index.ts';

const { values: a } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
    'database-url': { type: 'string' },
  },
});
const seconds = Number(a.seconds);
const connections = Number(a.connections);
const databaseUrl = a['database-url'];

interface Receiver {
  url: string;
  delays: number[];
  close(): Promise<void>;
}

async function receiver(hang: boolean): Promise<Receiver> {
  const delays: number[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c));
    req.on('end', () => {
      if (hang) return;
      const created = Date.parse((JSON.parse(body) as { data: { createdAt: string } }).data.createdAt);
      delays.push(Date.now() - created);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    delays,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function service() {
  const store = await openStore(databaseUrl ? { databaseUrl, resetData: true } : {});
  const app = await buildApp({
    store,
    seed: false,
    config: { logLevel: 'silent', webhookAllowPrivate: true, webhookTimeoutMs: 2_000, shutdownGraceMs: 1_000 },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: { id: string } } };
  };
  for (const id of ['wh_001', 'wh_002', 'wh_003']) await call('PATCH', `/api/webhooks/${id}`, { active: false });
  return { app, call };
}

/** `POST /api/tasks` from `connections` loops for `seconds`: requests per second. */
async function load(call: Awaited<ReturnType<typeof service>>['call']): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const res = await call('POST', '/api/tasks', { projectId: 'proj_001', title: 'Bench' });
        if (res.status !== 201) throw new Error(`POST /api/tasks: ${res.status}`);
        done++;
      }
    }),
  );
  return done / seconds;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const line = (name: string, xs: number[]) =>
  `${name}: ${xs.length} delivered, p50 ${pct(xs, 50)} ms, p99 ${pct(xs, 99)} ms, max ${Math.max(...xs)} ms`;
const store = databaseUrl ? 'PostgreSQL' : 'memory';

// Fairness: a hanging and a healthy receiver side by side.
{
  const hanging = await receiver(true);
  const healthy = await receiver(false);
  const { app, call } = await service();
  await call('POST', '/api/webhooks', { url: hanging.url, events: ['task.created'] });
  await call('POST', '/api/webhooks', { url: healthy.url, events: ['task.created'] });
  const rps = await load(call);
  await new Promise((r) => setTimeout(r, 2_500));
  console.log(`[${store}] hanging + healthy receiver, ${Math.round(rps)} POST/s: ${line('healthy', healthy.delays)}`);
  await app.close();
  await Promise.all([hanging.close(), healthy.close()]);
}

if (databaseUrl) {
  // POST /api/tasks with one subscribed webhook against none, and the commit-to-receiver delay.
  const none = await service();
  const bare = await load(none.call);
  await none.app.close();
  const healthy = await receiver(false);
  const one = await service();
  await one.call('POST', '/api/webhooks', { url: healthy.url, events: ['task.created'] });
  const withHook = await load(one.call);
  await new Promise((r) => setTimeout(r, 1_000));
  await one.app.close();
  await healthy.close();
  console.log(
    `[PostgreSQL] POST /api/tasks: no webhook ${Math.round(bare)}/s, one webhook ${Math.round(withHook)}/s ` +
      `(ratio ${(withHook / bare).toFixed(2)}); ${line('commit-to-receiver', healthy.delays)}`,
  );
}
