/**
 * Where the service spends its time under load: runs `node --cpu-prof dist/server.js` (default settings),
 * loads one route with autocannon, stops the server (which writes the profile) and prints the functions
 * and the files with the most self time.
 *
 *   npx tsx bench/profile.ts --route 'POST /api/tasks' --duration 10 [--top 30] [--env LOG_LEVEL=warn]
 *   npx tsx bench/profile.ts --file bench/results/profile-…/CPU….cpuprofile     (summarize one again)
 *
 * Build first (`npm run build`). The profile stays in bench/results/ (*.cpuprofile, ignored by git).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { serviceSpec } from './lib/fleet.ts';
import { measure } from './lib/load.ts';
import { summarizeProfile } from './lib/profile-summary.ts';
import { ROUTES } from './lib/routes.ts';
import { pinSelf, start, stop } from './lib/servers.ts';

const { values: a } = parseArgs({
  options: {
    route: { type: 'string', default: 'GET /api/tasks/:id' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    top: { type: 'string', default: '30' },
    env: { type: 'string', multiple: true, default: [] },
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
const server = await start(await serviceSpec(env, undefined, ['--cpu-prof', `--cpu-prof-dir=${dir}`]));
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
console.log(`${route.name}: ${Math.round(m.rps)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms (while profiling)`);
await stop(server);

const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile written in ${dir}`);
console.log(summarizeProfile(readFileSync(join(dir, file), 'utf8'), Number(a.top)));
console.log(`\nprofile: ${join(dir, file)}`);
