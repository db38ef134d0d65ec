/**
 * The service as `npm start` runs it (the built `dist/`, its defaults, the memory store), with parts of the request
 * path left out for `npm run bench:profile` (bench/features.ts): `BENCH_WITHOUT` names them (a comma-separated list
 * of `BenchFeature`s of src/app.ts); the other settings come from the environment, `CHECK_NESTED_TRANSACTIONS`
 * among them, as `npm start` reads them. Plain JavaScript, so that it starts quickly under valgrind.
 *
 *   node bench/servers/features.mjs        (PORT, HOST, BENCH_WITHOUT, BENCH_DIST, LOG_LEVEL, METRICS, AUTH, …)
 *
 * Under callgrind, a line on stdin says what to count: `zero` resets the counts (a call of `uv_os_getpriority`,
 * which `--zero-before` names), `dump` writes them (`uv_os_setpriority`, for `--dump-before`: the counts before the
 * call); each line is answered `ok` on stderr once done.
 */
import process from 'node:process';
import { getPriority, setPriority } from 'node:os';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const dist = pathToFileURL(`${process.cwd()}/${process.env.BENCH_DIST ?? 'dist'}/`).href;
const { buildApp } = await import(`${dist}app.js`);
const { loadConfig } = await import(`${dist}config.js`);
const { openStore } = await import(`${dist}store/index.js`);
const { checksNesting } = await import(`${dist}store/scope.js`);

const without = new Set((process.env.BENCH_WITHOUT ?? '').split(',').filter((f) => f !== ''));
const config = loadConfig();
const store = await openStore({
  activityLogMax: config.activityLogMax,
  checkNesting: checksNesting(config.checkNestedTransactions),
});
const app = await buildApp({ config, store, seed: false, without });
await app.listen({ host: config.host, port: config.port });

const nice = getPriority();
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'zero') getPriority();
  else if (line === 'dump') setPriority(nice);
  process.stderr.write('ok\n');
});
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
