/**
 * Where the service spends its time under load: runs `node --cpu-prof dist/server.js` (default settings),
 * loads one route with autocannon, stops the server (which writes the profile) and prints the functions
 * and the files with the most self time.
 *
 *   npx tsx bench/profile.ts --route 'POST /api/tasks' --duration 10 [--top 30] [--env LOG_LEVEL=warn]
 *   npx tsx bench/profile.ts --route 'POST /api/tasks' --store postgres --webhook   (a fresh database; one webhook
 *     to every event, answered 204 at once by a receiver in this process, the seeded webhooks switched off)
 *   npx tsx bench/profile.ts --file bench/results/profile-…/CPU….cpuprofile     (summarize one again)
 *
 * Build first (`npm run build`). The profile stays in bench/results/ (*.cpuprofile, ignored by git).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { serviceSpec } from './lib/fleet.ts';
import { measure } from './lib/load.ts';
import { summarizeProfile } from './lib/profile-summary.ts';
import { ROUTES } from './lib/routes.ts';
import { HOST, pinSelf, start, stop, type Running } from './lib/servers.ts';
import { freePort } from './lib/fleet.ts';
import { SEEDED, call } from './lib/webhooks.ts';

const { values: a } = parseArgs({
  options: {
    route: { type: 'string', default: 'GET /api/tasks/:id' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    top: { type: 'string', default: '30' },
    env: { type: 'string', multiple: true, default: [] },
    store: { type: 'string', default: 'memory' },
    /** One webhook to every event, its receiver answering 204 at once; the seeded webhooks switched off. */
    webhook: { type: 'boolean', default: false },
    /** Only summarize this existing profile. */
    file: { type: 'string' },
  },
});
if (a.file) {
  console.log(summarizeProfile(readFileSync(a.file, 'utf8'), Number(a.top)));
  process.exit(0);
}
const route = ROUTES.find((r) => r.name === a.route);
if (!route) throw new Error(`no route '${a.route}'; one of: ${ROUTES.map((r) => r.name).join(' | ')}`);

console.log(pinSelf());
const dir = join('bench/results', `profile-${Date.now()}`);
const env = Object.fromEntries(a.env!.map((kv) => kv.split('=', 2) as [string, string]));
if (a.store !== 'memory' && a.store !== 'postgres') throw new Error(`--store is memory or postgres, not ${a.store}`);
const pg = a.store === 'postgres' ? await import('./lib/pg.ts') : undefined;
const db = pg ? await pg.freshDatabase() : undefined;
if (db) env.DATABASE_URL = db.url;
if (a.webhook) env.WEBHOOK_ALLOW_PRIVATE = 'true';
let received = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(204).end();
  });
});
// Whatever happens, the server stops and the databases made for it go.
let server: Running | undefined;
try {
  server = await start(await serviceSpec(env, undefined, ['--cpu-prof', `--cpu-prof-dir=${dir}`]));
  if (a.webhook) {
    const port = await freePort();
    await new Promise<void>((resolve) => receiver.listen(port, HOST, resolve));
    for (const id of SEEDED) await call(server, 'PATCH', `/api/webhooks/${id}`, { active: false });
    await call(server, 'POST', '/api/webhooks', { url: `http://${HOST}:${port}/hook`, events: ['*'] });
  }
  const connections = Number(a.connections);
  if (route.prepare) {
    for (let n = 0; n < route.prepare.count; n++) {
      await fetch(server.url + route.prepare.path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(route.prepare.body!(n)),
      });
    }
  }
  await measure(server.url, route.targets.service, { connections, seconds: 2 }); // warm-up
  const m = await measure(server.url, route.targets.service, { connections, seconds: Number(a.duration) });
  const deliveries = a.webhook ? `, ${received} deliveries received in all` : '';
  console.log(
    `${route.name}: ${Math.round(m.rps)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms (while profiling)${deliveries}`,
  );
} finally {
  if (server) await stop(server);
  receiver.closeAllConnections();
  receiver.close();
  await pg?.dropAll(); // the copy and its template
}

const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile written in ${dir}`);
console.log(summarizeProfile(readFileSync(join(dir, file), 'utf8'), Number(a.top)));
console.log(`\nprofile: ${join(dir, file)}`);
