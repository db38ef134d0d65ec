/**
 * `npm run bench`: builds the service, then loads it, a bare node:http server and json-server 0.17 with
 * autocannon, route by route, prints the table and the targets, then runs the webhook section (a receiver
 * that never answers). Results go to bench/results/latest.json (quick runs, shorter than 10 s or one round,
 * to bench/results/quick.tmp). See bench/README.md.
 *
 *   npm run bench                                  full run: 10 s per measurement, 3 rounds, 3 s warm-up
 *   npm run bench -- --duration 3 --rounds 1       a quick smoke run
 *   npm run bench -- --section webhooks            only the webhook section (--section compare: only the table)
 *   npm run bench -- --route PATCH                 only the routes whose name contains PATCH
 *   npm run bench -- --store postgres              the service on PostgreSQL against bare node:http + pg
 */
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { compareRoute } from './lib/compare.ts';
import { LOAD_ARGS } from './lib/load.ts';
import { serviceDist } from './lib/fleet.ts';
import { machine, table, verdictLines, verdicts, type RouteResult } from './lib/report.ts';
import { dropAll } from './lib/pg.ts';
import { PG_SERVERS, ROUTES, SERVERS, type ServerName, type Store } from './lib/routes.ts';
import { pinSelf } from './lib/servers.ts';
import { webhookSection, type WebhookResult } from './lib/webhooks.ts';

const { values: a } = parseArgs({
  options: {
    ...LOAD_ARGS,
    /** `compare`, `webhooks`, or both (comma-separated). */
    section: { type: 'string', default: 'compare,webhooks' },
    /** Only the routes whose name contains this text. */
    route: { type: 'string' },
    /** `memory` (the default, as users run it) or `postgres` (a fresh database per server and round). */
    store: { type: 'string', default: 'memory' },
    servers: { type: 'string' },
    out: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    /** Run this build of the service instead of building `dist/` (e.g. a copy of an earlier build). */
    dist: { type: 'string' },
  },
});
const seconds = Number(a.duration);
const rounds = Number(a.rounds);
const store = a.store as Store;
if (store !== 'memory' && store !== 'postgres') throw new Error(`--store: memory or postgres, not ${store}`);
const pgStore = store === 'postgres';
// The webhook section measures the dispatcher and the process's memory: it runs on the default store only.
const sections = a.section!.split(',').filter((s) => !pgStore || s === 'compare');
const log = (line: string) => process.stdout.write(`${line}\n`);
const full = seconds >= 10 && rounds >= 2;
const out =
  a.out ??
  (pgStore
    ? full
      ? 'bench/results/latest-pg.json'
      : 'bench/results/quick-pg.tmp'
    : full
      ? 'bench/results/latest.json'
      : 'bench/results/quick.tmp');

log(`pinning: ${pinSelf()}`);
if (a.dist) serviceDist.dir = a.dist;
else if (!a['no-build']) {
  log('building: npm run build');
  execSync('npm run build --silent', { stdio: 'inherit' });
}

const settings = { store, connections: Number(a.connections), seconds, rounds, warmup: Number(a.warmup) };
const routes: RouteResult[] = [];
let webhooks: WebhookResult | undefined;

if (sections.includes('compare')) {
  const servers = (a.servers?.split(',') ?? (pgStore ? PG_SERVERS : SERVERS)) as ServerName[];
  for (const route of ROUTES.filter((r) => !a.route || r.name.includes(a.route))) {
    log(`\n${route.name}`);
    try {
      routes.push(await compareRoute(route, { ...settings, servers, log }));
    } catch (err) {
      if (pgStore) await dropAll();
      throw err;
    }
  }
  if (pgStore) await dropAll();
  log(
    `\n${table(routes, store)}\n\nTargets (ratios: median of the rounds' ratios; p99: median):\n${verdictLines(verdicts(routes, store))}`,
  );
}
if (sections.includes('webhooks')) {
  webhooks = await webhookSection({ ...settings, log });
}

mkdirSync('bench/results', { recursive: true });
const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim().replace(/ --$/, '');
writeFileSync(
  out,
  `${JSON.stringify({ date: new Date().toISOString(), command, machine: machine(), settings, routes, targets: verdicts(routes, store), webhooks }, null, 1)}\n`,
);
log(`\nwritten: ${out}`);
