/**
 * `npm run bench:metrics`: what the metrics (`METRICS`, on by default) cost on `GET /api/tasks/:id`. Each round
 * starts two fresh services from the same build, one with `METRICS=true` and one with `METRICS=false`, warms both,
 * then measures each in turn (the order reversed every other round); the ratio on/off is taken within each round
 * (paired), then its median. See bench/README.md ("Metrics on and off").
 *
 *   npm run bench:metrics                                   5 rounds of 3 s, 1 s warm-up, 50 connections
 *   npm run bench:metrics -- --rounds 7 --duration 5        longer
 *   npm run bench:metrics -- --no-build                     the build already in dist/
 */
import { execSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { quietMeasure } from './lib/compare.ts';
import { serviceSpec } from './lib/fleet.ts';
import { measure, median, type Target } from './lib/load.ts';
import { pinSelf, start, stop, type Running } from './lib/servers.ts';

const { values: a } = parseArgs({
  options: {
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '50' },
    'no-build': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (a.help) {
  process.stdout.write(
    'npm run bench:metrics [-- --rounds 5 --duration 3 --warmup 1 --connections 50 --no-build]\n' +
      'GET /api/tasks/:id with METRICS=true and METRICS=false, paired round by round; prints req/s, p99 and the ratio.\n',
  );
  process.exit(0);
}
const seconds = Number(a.duration);
const rounds = Number(a.rounds);
const connections = Number(a.connections);
const log = (line: string) => process.stdout.write(`${line}\n`);
const target: Target = { method: 'GET', path: '/api/tasks/task_001' };

log(`pinning: ${pinSelf()}`);
if (!a['no-build']) {
  log('building: npm run build');
  execSync('npm run build --silent', { stdio: 'inherit' });
}

type Side = 'on' | 'off';
const rps: Record<Side, number[]> = { on: [], off: [] };
const p99: Record<Side, number[]> = { on: [], off: [] };
const ratios: number[] = [];
for (let round = 1; round <= rounds; round++) {
  const running = new Map<Side, Running>();
  try {
    running.set('on', await start(await serviceSpec({ METRICS: 'true' })));
    running.set('off', await start(await serviceSpec({ METRICS: 'false' })));
    for (const server of running.values())
      await measure(server.url, target, { connections, seconds: Number(a.warmup) });
    const order = [...running];
    if (round % 2 === 0) order.reverse();
    const got = {} as Record<Side, number>;
    for (const [side, server] of order) {
      const { m, cpu } = await quietMeasure(server, target, { connections, seconds, log });
      if (m.non2xx + m.errors > 0) throw new Error(`metrics ${side}: ${m.non2xx} non-2xx, ${m.errors} errors`);
      got[side] = m.rps;
      rps[side].push(m.rps);
      p99[side].push(m.p99);
      log(
        `  round ${round} · metrics ${side.padEnd(3)}: ${Math.round(m.rps)} req/s, p99 ${m.p99} ms, cpu ${cpu.toFixed(2)}`,
      );
    }
    ratios.push(got.on / got.off);
  } finally {
    for (const server of running.values()) await stop(server);
  }
}
const pct = (x: number) => `${((x - 1) * 100).toFixed(1)} %`;
log('');
log(`metrics on : median ${Math.round(median(rps.on))} req/s, p99 ${median(p99.on)} ms`);
log(`metrics off: median ${Math.round(median(rps.off))} req/s, p99 ${median(p99.off)} ms`);
log(
  `on/off, paired per round: ${ratios.map((r) => r.toFixed(3)).join(', ')}; median ${median(ratios).toFixed(3)} (${pct(median(ratios))})`,
);
