/**
 * The practical limit on PostgreSQL: a bare `node:http` server doing one query per request on the service's own
 * schema and seeded data (a database the service migrated and seeded), answering with the service's envelopes
 * (`{data}`, `{data,count}`). No validation, no events, no activity entries, no logging, no ETag: what Node and
 * `pg` cost per request. A pool of 10 connections, the service's default.
 * Usage: `DATABASE_URL=postgres://… node --import tsx bench/servers/bare-pg.ts <port>`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
let nextId = 0;

const TASK = `id, project_id, title, description, status, priority, assignee, created_at, updated_at`;
interface TaskRow {
  id: string;
  project_id: string;
  title: string;
  description: string;
  status: string;
  priority: string;
  assignee: string | null;
  created_at: Date;
  updated_at: Date;
}
const task = (r: TaskRow) => ({
  id: r.id,
  projectId: r.project_id,
  title: r.title,
  description: r.description,
  status: r.status,
  priority: r.priority,
  assignee: r.assignee,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

interface ActivityRow {
  id: string;
  action: string;
  actor: string;
  resource_type: string;
  resource_id: string;
  summary: string;
  metadata: unknown;
  occurred_at: Date;
  total?: string;
}
const entry = (r: ActivityRow) => ({
  id: r.id,
  action: r.action,
  actor: r.actor,
  resourceType: r.resource_type,
  resourceId: r.resource_id,
  summary: r.summary,
  metadata: r.metadata,
  timestamp: r.occurred_at.toISOString(),
});

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text ? (JSON.parse(text) as Record<string, unknown>) : {}));
  });
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = url.pathname;
  if (path === '/api/tasks') {
    if (req.method === 'GET') {
      const projectId = url.searchParams.get('projectId');
      const { rows } =
        projectId === null
          ? await pool.query<TaskRow>(`SELECT ${TASK} FROM tasks ORDER BY seq`)
          : await pool.query<TaskRow>(`SELECT ${TASK} FROM tasks WHERE project_id = $1 ORDER BY seq`, [projectId]);
      return send(res, 200, { data: rows.map(task), count: rows.length });
    }
    if (req.method === 'POST') {
      const b = await readJson(req);
      const now = new Date();
      const { rows } = await pool.query<TaskRow>(
        `INSERT INTO tasks (id, project_id, title, description, status, priority, assignee, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING ${TASK}`,
        [
          `task_b${process.pid}_${++nextId}`,
          b.projectId,
          b.title,
          b.description ?? '',
          b.status ?? 'todo',
          b.priority ?? 'medium',
          b.assignee ?? null,
          now,
        ],
      );
      return send(res, 201, { data: task(rows[0]!) });
    }
  } else if (path.startsWith('/api/tasks/')) {
    const id = path.slice('/api/tasks/'.length);
    if (req.method === 'GET') {
      const { rows } = await pool.query<TaskRow>(`SELECT ${TASK} FROM tasks WHERE id = $1`, [id]);
      return rows[0] ? send(res, 200, { data: task(rows[0]) }) : notFound(res);
    }
    if (req.method === 'PATCH') {
      const b = await readJson(req);
      const { rows } = await pool.query<TaskRow>(
        `UPDATE tasks SET title = coalesce($2, title), status = coalesce($3, status), updated_at = $4
         WHERE id = $1 RETURNING ${TASK}`,
        [id, b.title ?? null, b.status ?? null, new Date()],
      );
      return rows[0] ? send(res, 200, { data: task(rows[0]) }) : notFound(res);
    }
  } else if (path === '/api/activity-log') {
    if (req.method === 'GET') {
      const limit = Number(url.searchParams.get('limit') ?? 100);
      const { rows } = await pool.query<ActivityRow>(
        `SELECT *, (SELECT count(*) FROM activity_log) AS total FROM activity_log
         ORDER BY occurred_at DESC, seq DESC LIMIT $1`,
        [limit],
      );
      return send(res, 200, { data: rows.map(entry), count: rows.length, total: Number(rows[0]?.total ?? 0) });
    }
    if (req.method === 'POST') {
      const b = await readJson(req);
      const { rows } = await pool.query<ActivityRow>(
        `INSERT INTO activity_log (id, action, actor, resource_type, resource_id, summary, metadata, occurred_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
        [
          `act_b${process.pid}_${++nextId}`,
          b.action,
          b.actor,
          b.resourceType,
          b.resourceId,
          b.summary ?? '',
          JSON.stringify(b.metadata ?? {}),
          new Date(),
        ],
      );
      return send(res, 201, { data: entry(rows[0]!) });
    }
  }
  notFound(res);
}

const notFound = (res: ServerResponse) => send(res, 404, { error: { code: 'NOT_FOUND', message: 'not found' } });

const port = Number(process.argv[2] ?? 3001);
const server = createServer((req, res) => {
  handle(req, res).catch((err: Error) => send(res, 500, { error: { code: 'INTERNAL', message: err.message } }));
}).listen(port, '127.0.0.1');
const close = () => server.close(() => void pool.end().then(() => process.exit(0)));
process.on('SIGTERM', close);
process.on('SIGINT', close);
