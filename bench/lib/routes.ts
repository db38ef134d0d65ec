/** The benchmarked routes, as each server spells them (json-server has its own query language). */
import type { Target } from './load.ts';

export type ServerName = 'service' | 'service-token' | 'bare' | 'json-server' | 'bare-pg';
/**
 * The servers compared on each store: the service's memory store by default (and the same service with `AUTH=token`
 * and `RATE_LIMIT`, sent the admin token), `--store postgres` on PostgreSQL.
 */
export const SERVERS: readonly ServerName[] = ['service', 'service-token', 'bare', 'json-server'];
export const PG_SERVERS: readonly ServerName[] = ['service', 'bare-pg'];
export type Store = 'memory' | 'postgres';

export interface Route {
  name: string;
  write: boolean;
  targets: Record<ServerName, Target>;
  /** Requests sent to each server before measuring, so the route has something to read. */
  prepare?: Target & { count: number };
}

/** The admin token of the `service-token` server, sent by every request to it. */
export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef0123456789';
const withToken = (t: Target): Target => ({ ...t, headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` } });
const same = (t: Target): Record<ServerName, Target> => ({
  service: t,
  'service-token': withToken(t),
  bare: t,
  'json-server': t,
  'bare-pg': t,
});
const STATUSES = ['todo', 'in_progress', 'done'];

export const ROUTES: readonly Route[] = [
  { name: 'GET /api/tasks/:id', write: false, targets: same({ method: 'GET', path: '/api/tasks/task_001' }) },
  {
    name: 'GET /api/tasks?projectId=…',
    write: false,
    targets: same({ method: 'GET', path: '/api/tasks?projectId=proj_001' }),
  },
  { name: 'GET /api/tasks', write: false, targets: same({ method: 'GET', path: '/api/tasks' }) },
  {
    // An assignee, so each create also writes `task.assigned` and a notification, as a real create would.
    name: 'POST /api/tasks',
    write: true,
    targets: same({
      method: 'POST',
      path: '/api/tasks',
      body: (n) => ({ projectId: 'proj_001', title: `Bench task ${n}`, assignee: 'dana', priority: 'high' }),
    }),
  },
  {
    // Every request changes the title and the status: an update event, activity entries, webhook deliveries.
    name: 'PATCH /api/tasks/:id',
    write: true,
    targets: same({
      method: 'PATCH',
      path: '/api/tasks/task_002',
      body: (n) => ({ title: `Bench title ${n}`, status: STATUSES[n % 3] }),
    }),
  },
  {
    name: 'GET /api/activity-log?limit=50',
    write: false,
    targets: {
      service: { method: 'GET', path: '/api/activity-log?limit=50' },
      'service-token': withToken({ method: 'GET', path: '/api/activity-log?limit=50' }),
      bare: { method: 'GET', path: '/api/activity-log?limit=50' },
      'bare-pg': { method: 'GET', path: '/api/activity-log?limit=50' },
      'json-server': { method: 'GET', path: '/api/activity-log?_sort=timestamp&_order=desc&_limit=50' },
    },
    // 200 entries, so that `limit=50` has 50 to return.
    prepare: {
      count: 200,
      method: 'POST',
      path: '/api/activity-log',
      body: (n) => ({
        action: 'bench.note',
        actor: 'alice',
        resourceType: 'project',
        resourceId: 'proj_001',
        summary: `Bench note ${n}`,
        timestamp: new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString(), // ignored: the service stamps its own
      }),
    },
  },
];
