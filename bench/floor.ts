/**
 * `npm run bench:floor`: where the gap between the service and bare `node:http` on `GET /api/tasks/:id` comes
 * from. In one run, with fresh servers each round like `npm run bench`: bare node:http (also with 5 and 10 µs of
 * busy work added per request: what a few µs cost on this machine), a minimal Fastify app
 * (bench/servers/fastify-min.ts) without and with Fastify's stock request logging, the service without its
 * request lines (LOG_LEVEL=warn) and as users run it, and json-server 0.17. Prints req/s, p99 and each one's ratio to
 * bare and to json-server (what the `≥ 10× json-server` target asks of each layer), and writes
 * bench/results/floor.json. See bench/README.md, "Where the GET gap is".
 *
 *   npm run bench:floor                            10 s per measurement, 3 rounds
 *   npm run bench:floor -- --duration 3 --rounds 1 a quick look (written to bench/results/floor.tmp)
 */
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { quietMeasure } from './lib/compare.ts';
import { bareSpec, freePort, jsonServerSpec, serviceSpec } from './lib/fleet.ts';
import { LOAD_ARGS, measure, type Target } from './lib/load.ts';
import { machine, pairedRatio, summarize, type Run } from './lib/report.ts';
import { pinSelf, start, stop, type Running, type ServerSpec } from './lib/servers.ts';

const { values: a } = parseArgs({
  options: {
    ...LOAD_ARGS,
    'no-build': { type: 'boolean', default: false },
  },
});
const seconds = Number(a.duration);
const rounds = Number(a.rounds);
const connections = Number(a.connections);
const log = (line: string) => process.stdout.write(`${line}\n`);
const out = seconds >= 10 && rounds >= 2 ? 'bench/results/floor.json' : 'bench/results/floor.tmp';
const target: Target = { method: 'GET', path: '/api/tasks/task_001' };

async function fastifyMin(name: string, logging: boolean): Promise<ServerSpec> {
  const port = await freePort();
  const argv = [
    process.execPath,
    '--import',
    'tsx',
    'bench/servers/fastify-min.ts',
    String(port),
    ...(logging ? ['--log'] : []),
  ];
  return { name, argv, port, readyPath: '/api/tasks/task_001' };
}

/** From the bare limit up to the service as users run it, one layer at a time. */
const variants: { label: string; spec: () => Promise<ServerSpec> }[] = [
  { label: 'bare node:http', spec: () => bareSpec() },
  { label: 'bare node:http + 5 µs of work', spec: () => bareSpec(5) },
  { label: 'bare node:http + 10 µs of work', spec: () => bareSpec(10) },
  { label: 'Fastify, no logging', spec: () => fastifyMin('fastify', false) },
  { label: 'Fastify, stock request logging', spec: () => fastifyMin('fastify+log', true) },
  { label: 'service, LOG_LEVEL=warn', spec: () => serviceSpec({ LOG_LEVEL: 'warn' }) },
  { label: 'service (as run: LOG_LEVEL=info)', spec: () => serviceSpec() },
  { label: 'json-server 0.17', spec: () => jsonServerSpec() },
];
const JSON_SERVER = variants.length - 1;

log(`pinning: ${pinSelf()}`);
if (!a['no-build']) {
  log('building: npm run build');
  execSync('npm run build --silent', { stdio: 'inherit' });
}

// Fresh servers each round, as in `npm run bench`: the medians span as many processes as rounds.
const runs: Run[][] = variants.map(() => []);
for (let round = 1; round <= rounds; round++) {
  const running: Running[] = [];
  try {
    for (const v of variants) running.push(await start(await v.spec()));
    for (const server of running) await measure(server.url, target, { connections, seconds: Number(a.warmup) });
    for (const [i, server] of running.entries()) {
      const { m, cpu, others } = await quietMeasure(server, target, { connections, seconds, log });
      if (m.non2xx + m.errors > 0) throw new Error(`${variants[i]!.label}: ${m.non2xx} non-2xx, ${m.errors} errors`);
      runs[i]!.push({ ...m, cpu, others });
      log(
        `  ${variants[i]!.label.padEnd(34)} round ${round}: ${Math.round(m.rps)} req/s, p99 ${m.p99} ms, cpu ${cpu.toFixed(2)}`,
      );
    }
  } finally {
    for (const server of running) await stop(server);
  }
}
const results = variants.map((v, i) => ({ label: v.label, result: summarize(runs[i]!) }));

const bare = results[0]!.result.rps;
const paired = results.map((r) => pairedRatio(r.result, results[0]!.result));
const overJsonServer = results.map((r) => pairedRatio(r.result, results[JSON_SERVER]!.result));
log(`\n${'GET /api/tasks/:id'.padEnd(34)} |   req/s |  p99 | × bare | × bare, paired | × json-server, paired`);
for (const [i, { label, result }] of results.entries()) {
  log(
    `${label.padEnd(34)} | ${String(result.rps).padStart(7)} | ${String(result.p99).padStart(4)} | ${(result.rps / bare).toFixed(2)}×  | ${paired[i]!.toFixed(2)}×`.padEnd(
      77,
    ) + ` | ${overJsonServer[i]!.toFixed(2)}×`,
  );
}
log("req/s and p99 (ms): medians over rounds; × bare: ratio of the medians; paired: median of each round's ratio");

mkdirSync('bench/results', { recursive: true });
const command = `npm run bench:floor -- ${process.argv.slice(2).join(' ')}`.trim().replace(/ --$/, '');
const settings = { connections, seconds, rounds, warmup: Number(a.warmup) };
const report = {
  date: new Date().toISOString(),
  command,
  machine: machine(),
  settings,
  route: 'GET /api/tasks/:id',
  results: results.map((r, i) => ({
    ...r,
    pairedRatio: Number(paired[i]!.toFixed(3)),
    pairedOverJsonServer: Number(overJsonServer[i]!.toFixed(3)),
  })),
};
writeFileSync(out, `${JSON.stringify(report, null, 1)}\n`);
log(`\nwritten: ${out}`);
