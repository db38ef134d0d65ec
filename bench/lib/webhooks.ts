/**
 * Webhook delivery under load: the service with no webhook receiver at all, against the service whose one
 * webhook (subscribed to `*`) points at a receiver that accepts connections and never answers. Writes are
 * measured alternately on both; the RSS of both is sampled throughout, and the hanging side's delivery log
 * shows what the dispatcher's bounds (concurrency, timeout, maxQueue) did.
 */
import { createServer, type Socket } from 'node:net';
import { measure } from './load.ts';
import { freePort, serviceSpec } from './fleet.ts';
import { pairedRatio, summarize, type Run, type ServerResult } from './report.ts';
import { ROUTES } from './routes.ts';
import { quietMeasure } from './compare.ts';
import { HOST, rssBytes, start, stop, type Running } from './servers.ts';

export interface WebhookResult {
  route: string;
  noReceiver: ServerResult;
  hanging: ServerResult;
  /** Hanging to no receiver: the median of the rounds' ratios (judged), and the ratio of the medians. */
  ratio: number;
  ratioOfMedians: number;
  /** RSS in MB at the end of each round, and the highest seen. */
  rssMb: { noReceiver: number[]; hanging: number[]; maxNoReceiver: number; maxHanging: number };
  /**
   * At the end: the requests the hanging receiver was holding (bounded by WEBHOOK_CONCURRENCY_PER_WEBHOOK), and the
   * connections open to it, which can be a few more: undici's pool opens a connection now and then that carries no
   * request and closes by itself within seconds.
   */
  receiverRequests: number;
  receiverOpen: number;
  /** The hanging webhook's last delivery records, counted by status and error. */
  deliveryLog: Record<string, number>;
}

interface Options {
  connections: number;
  seconds: number;
  warmup: number;
  rounds: number;
  log: (line: string) => void;
}

/** The seeded webhooks, switched off before measuring so that only what is measured is delivered. */
export const SEEDED = ['wh_001', 'wh_002', 'wh_003'];

export async function webhookSection(o: Options): Promise<WebhookResult> {
  const route = ROUTES.find((r) => r.name === 'POST /api/tasks')!;
  const receiver = await hangingReceiver();
  const env = { WEBHOOK_ALLOW_PRIVATE: 'true' };
  const sides: { name: 'noReceiver' | 'hanging'; server?: Running; rss: number[]; max: number; runs: Run[] }[] = [
    { name: 'noReceiver', rss: [], max: 0, runs: [] },
    { name: 'hanging', rss: [], max: 0, runs: [] },
  ];
  const sampler = setInterval(() => {
    for (const s of sides) s.max = Math.max(s.max, rssBytes(s.server?.child.pid) || 0);
  }, 250);
  let hookId = '';
  let deliveries: { data: { status: string; error: string | null }[] } = { data: [] };
  try {
    o.log(`\nWebhooks: ${route.name}, no receiver vs a receiver that never answers (port ${receiver.port})`);
    // Fresh servers each round, like the comparison: a round's figures are one process's, and the medians span as
    // many processes as rounds.
    for (let round = 1; round <= o.rounds; round++) {
      for (const side of sides) {
        side.server = await start(await serviceSpec(env));
        for (const id of SEEDED) await call(side.server, 'PATCH', `/api/webhooks/${id}`, { active: false });
        if (side.name === 'hanging') {
          const hook = await call(side.server, 'POST', '/api/webhooks', {
            url: `http://${HOST}:${receiver.port}/hook`,
            events: ['*'],
          });
          hookId = (hook as { data: { id: string } }).data.id;
        }
        if (o.warmup > 0)
          await measure(side.server.url, route.targets.service, { connections: o.connections, seconds: o.warmup });
      }
      for (const side of round % 2 === 0 ? [...sides].reverse() : sides) {
        const pid = side.server!.child.pid;
        const { m, cpu, others } = await quietMeasure(side.server!, route.targets.service, o);
        side.runs.push({ ...m, cpu, others });
        side.rss.push(mb(rssBytes(pid)));
        o.log(
          `  ${side.name.padEnd(10)} round ${round}: ${Math.round(m.rps)} req/s, p99 ${m.p99} ms, RSS ${mb(rssBytes(pid))} MB (receiver holding ${receiver.requests()} requests on ${receiver.open()} connections)`,
        );
      }
      deliveries = (await call(sides[1]!.server!, 'GET', `/api/webhooks/${hookId}/deliveries`)) as typeof deliveries;
      for (const side of sides) if (side.server) await stop(side.server);
    }
    const [none, hanging] = sides.map((s) => summarize(s.runs)) as [ServerResult, ServerResult];
    const deliveryLog: Record<string, number> = {};
    for (const d of deliveries.data) {
      const key = `${d.status}${d.error ? `: ${d.error.replace(/\d+/g, 'N')}` : ''}`;
      deliveryLog[key] = (deliveryLog[key] ?? 0) + 1;
    }
    const result: WebhookResult = {
      route: route.name,
      noReceiver: none,
      hanging,
      ratio: Math.round(pairedRatio(hanging, none) * 1000) / 1000,
      ratioOfMedians: Math.round((hanging.rps / none.rps) * 1000) / 1000,
      rssMb: {
        noReceiver: sides[0]!.rss,
        hanging: sides[1]!.rss,
        maxNoReceiver: mb(sides[0]!.max),
        maxHanging: mb(sides[1]!.max),
      },
      receiverRequests: receiver.requests(),
      receiverOpen: receiver.open(),
      deliveryLog,
    };
    o.log(
      `\n  throughput with a hanging receiver: ${(result.ratio * 100).toFixed(1)} % of the no-receiver run, the median of the rounds' ratios (target ≥ 90 %: ${result.ratio >= 0.9 ? 'met' : 'NOT MET'}; ratio of the medians: ${(result.ratioOfMedians * 100).toFixed(1)} %)` +
        `\n  RSS max: ${result.rssMb.maxNoReceiver} MB without receiver, ${result.rssMb.maxHanging} MB with the hanging one` +
        `\n  last delivery records of the hanging webhook: ${JSON.stringify(deliveryLog)}`,
    );
    return result;
  } finally {
    clearInterval(sampler);
    for (const side of sides) if (side.server) await stop(side.server);
    receiver.close();
  }
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

export async function call(server: Running, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(server.url + path, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as unknown;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A TCP server on loopback that accepts connections, reads what is sent, and never answers. */
export async function hangingReceiver(): Promise<{
  port: number;
  open: () => number;
  requests: () => number;
  close: () => void;
}> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  /** The connections a request came on: the attempts waiting for an answer. */
  const asked = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => asked.add(socket)); // read and ignore
    socket.on('close', () => {
      sockets.delete(socket);
      asked.delete(socket);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(port, HOST, resolve));
  return {
    port,
    open: () => sockets.size,
    requests: () => asked.size,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
