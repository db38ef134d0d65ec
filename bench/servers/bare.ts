/**
 * The practical limit: a bare `node:http` server answering the benchmarked routes with the service's envelopes
 * (`{data}`, `{data,count}`) over the same seeded tasks and activity. No validation, no events, no logging,
 * no ETag: what Node itself costs per request. Usage: `node --import tsx bench/servers/bare.ts <port>`.
 *
 * `BUSY_US=<µs>` (`npm run bench:floor` only) adds that much busy work before each answer: how much a few
 * microseconds of extra work per request move the throughput on this machine.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import * as seed from '../../src/store/seed-data.ts';

type Rec = Record<string, unknown> & { id: string };
const tasks = new Map<string, Rec>(seed.tasks.map((t) => [t.id, { ...t }]));
const activity: Rec[] = seed.activity.map((a) => ({ ...a })); // oldest first
let nextId = 0;

const busyMs = Number(process.env.BUSY_US ?? 0) / 1000;

function send(res: ServerResponse, status: number, body: unknown): void {
  if (busyMs > 0) for (const start = performance.now(); performance.now() - start < busyMs;);
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function readJson(req: IncomingMessage, then: (body: Record<string, unknown>) => void): void {
  let text = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (text += chunk));
  req.on('end', () => then(text ? (JSON.parse(text) as Record<string, unknown>) : {}));
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = url.pathname;
  const now = new Date().toISOString();
  if (path === '/api/tasks') {
    if (req.method === 'GET') {
      const projectId = url.searchParams.get('projectId');
      const data = [...tasks.values()].filter((t) => projectId === null || t.projectId === projectId);
      return send(res, 200, { data, count: data.length });
    }
    if (req.method === 'POST') {
      return readJson(req, (body) => {
        const task = {
          id: `task_b${++nextId}`,
          description: '',
          status: 'todo',
          priority: 'medium',
          assignee: null,
          ...body,
          createdAt: now,
          updatedAt: now,
        };
        tasks.set(task.id, task);
        send(res, 201, { data: task });
      });
    }
  } else if (path.startsWith('/api/tasks/')) {
    const task = tasks.get(path.slice('/api/tasks/'.length));
    if (!task) return send(res, 404, { error: { code: 'NOT_FOUND', message: 'no such task' } });
    if (req.method === 'GET') return send(res, 200, { data: task });
    if (req.method === 'PATCH') {
      return readJson(req, (body) => {
        const next = { ...task, ...body, id: task.id, updatedAt: now };
        tasks.set(task.id, next);
        send(res, 200, { data: next });
      });
    }
  } else if (path === '/api/activity-log') {
    if (req.method === 'GET') {
      const limit = Number(url.searchParams.get('limit') ?? Infinity);
      const data: Rec[] = [];
      for (let i = activity.length - 1; i >= 0 && data.length < limit; i--) data.push(activity[i]!);
      return send(res, 200, { data, count: data.length, total: activity.length });
    }
    if (req.method === 'POST') {
      return readJson(req, (body) => {
        const entry = { id: `act_b${++nextId}`, summary: '', metadata: {}, ...body, timestamp: now };
        activity.push(entry);
        send(res, 201, { data: entry });
      });
    }
  }
  send(res, 404, { error: { code: 'NOT_FOUND', message: 'no route' } });
}

const port = Number(process.argv[2] ?? 3001);
const server = createServer(handle).listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
process.on('SIGINT', () => server.close(() => process.exit(0)));
