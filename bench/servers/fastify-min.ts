/**
 * Fastify with nothing of the service's: `GET /api/tasks/:id` over the same seeded tasks, the same `{ data }`
 * envelope serialized by the service's own task schema, and no hooks, plugins, validation, events or ETag.
 * With `--log`,
 * Fastify's stock request logging (`logger: true`: two JSON lines per request on stdout). What Fastify itself
 * costs per request, the floor the service's own work is added to (`npm run bench:floor`).
 * Usage: `node --import tsx bench/servers/fastify-min.ts <port> [--log]`.
 */
import Fastify from 'fastify';
import { Task } from '../../src/model/task.ts';
import * as seed from '../../src/store/seed-data.ts';

const tasks = new Map<string, object>(seed.tasks.map((t) => [t.id, { ...t }]));
const app = Fastify({ logger: process.argv.includes('--log') });

app.get(
  '/api/tasks/:id',
  { schema: { response: { 200: { type: 'object', properties: { data: Task } }, 404: {} } } },
  async (request, reply) => {
    const task = tasks.get((request.params as { id: string }).id);
    if (!task) return reply.code(404).send({ error: { code: 'NOT_FOUND', message: 'no such task' } });
    return { data: task };
  },
);

await app.listen({ port: Number(process.argv[2] ?? 3002), host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.on(signal, () => void app.close().then(() => process.exit(0)));
