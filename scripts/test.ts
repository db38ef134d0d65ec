/**
 * Runs the test files with Node's test runner, two at a time: `spec` output, then one summary line,
 * `N passed, N failed` (what CI reads), with the skipped tests named on the line before it when there are any.
 * The files that exercise the service through its API (ON_EVERY_STORE) run again on the embedded store and, when
 * `TEST_DATABASE_URL` answers, on PostgreSQL (`TEST_STORE`, read by test/helpers/store.ts; the web app in a browser,
 * WEB_BROWSER, not on PostgreSQL); those runs' tests are named `[embedded] …` and `[postgres] …`, and the summary
 * counts every run. The resource and event suites run once more with every transaction run twice (`[rerun] …`).
 * `--fast`: every file but the slow ones (SLOW), on the memory store only, for `npm run test:fast`. Other arguments:
 * only the files under these paths (`npm run test:fast -- test/webhooks`). Exits 1 when a test failed.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { run } from 'node:test';
import { spec, type TestEvent } from 'node:test/reporters';
import { PgliteDriver } from '../src/store/sql/pglite.ts';
import { testServer } from '../test/store/sql-harness.ts';

/** The web app in a browser, end to end (test/web/browser/): slow, and run on the memory and embedded stores. */
const WEB_BROWSER = ['test/web/browser/'];

/**
 * Fuzzing, real server processes under load and over raw sockets or TLS, the browser, the stores' own suites on
 * the SQL stores, and the data file's round trips through the real commands: what `--fast` leaves out.
 */
const SLOW = [
  'test/abuse/connections.test.ts',
  'test/abuse/secrets.test.ts',
  'test/abuse/shutdown.test.ts',
  'test/data-file/round-trip.test.ts',
  'test/e2e/',
  'test/e2e/webhook-outbox.test.ts',
  'test/fuzz/',
  'test/http/logging.test.ts',
  'test/openapi/docs-browser.test.ts',
  'test/store/embedded.test.ts',
  'test/store/postgres.test.ts',
  'test/store/sql-embedded.test.ts',
  'test/store/sql-postgres.test.ts',
  'test/stream/browser.test.ts',
  'test/tracing/sql.test.ts',
  'test/webhooks/tls.test.ts',
  ...WEB_BROWSER,
];

/**
 * The tests that go through the API, run on every store: resources, events, tokens and scopes, ETags, what no store
 * keeps, real HTTP, the contract, webhook deliveries.
 */
const ON_EVERY_STORE = [
  'test/events/',
  'test/helpers/store.test.ts',
  'test/http/auth.test.ts',
  'test/http/etag.test.ts',
  'test/http/storable.test.ts',
  'test/http/real-http.test.ts',
  'test/openapi/contract.test.ts',
  'test/resources/',
  'test/stream/stream.test.ts',
  'test/webhooks/delivery.test.ts',
  'test/webhooks/limits.test.ts',
  'test/webhooks/outbox.test.ts',
  'test/webhooks/url-guard.test.ts',
  ...WEB_BROWSER,
];

/**
 * Of those, the ones that run on the memory and embedded stores only: the web app in a browser goes through the
 * whole service, whose SQL store the embedded run already covers.
 */
const NOT_ON_POSTGRES = WEB_BROWSER;

/** The API suites run once more on a memory store that runs every transaction twice, the first rolled back. */
const RERUN = ['test/events/', 'test/resources/', 'test/webhooks/outbox.test.ts'];

/** The runner's own totals, left out: they count subtests apart, and one summary is enough. */
const RUNNER_TOTALS = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) \d/;

const isSlow = (file: string) => SLOW.some((slow) => file.startsWith(slow));
const args = process.argv.slice(2);
const fast = args.includes('--fast');
// Suites that declare themselves once per store (test/events/stores.ts) keep to memory in a fast run.
if (fast) process.env.TEST_MEMORY_ONLY = 'true';
const only = args.filter((arg) => !arg.startsWith('--')).map((path) => path.replace(/^\.\//, ''));
const files = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .map((name) => `test/${name.replaceAll('\\', '/')}`)
  .filter((file) => file.endsWith('.test.ts'))
  .filter((file) => !(fast && isSlow(file)))
  .filter((file) => only.length === 0 || only.some((path) => file.startsWith(path)))
  .sort()
  // The slow files first, so that the run does not end waiting on one of them.
  .sort((a, b) => Number(isSlow(b)) - Number(isSlow(a)));

let passed = 0;
let failed = 0;
const skipped: string[] = [];

/** The runner's events, counted, its totals left out, the top-level names prefixed with `label` when given. */
async function* counted(source: AsyncIterable<TestEvent>, label: string): AsyncGenerator<TestEvent> {
  for await (const event of source) {
    if (event.type === 'test:diagnostic' && event.data.nesting === 0 && RUNNER_TOTALS.test(event.data.message))
      continue;
    const data = event.data as { name?: string; nesting?: number } | undefined;
    if (label && data?.name !== undefined && data.nesting === 0) data.name = `${label} ${data.name}`;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.details.type !== 'suite') {
      if (event.data.skip !== undefined || event.data.todo !== undefined) skipped.push(event.data.name);
      else if (event.type === 'test:pass') passed++;
      else failed++;
    }
    yield event;
  }
}

/** Runs `chosen` with `TEST_STORE` set to `store` (the files' processes inherit the environment). */
async function runOn(store: 'memory' | 'embedded' | 'postgres' | 'rerun', chosen: string[]): Promise<void> {
  if (chosen.length === 0) return;
  process.env.TEST_STORE = store;
  const events = run({ files: chosen, concurrency: 2 }) as AsyncIterable<TestEvent>;
  const output = Readable.from(counted(events, store === 'memory' ? '' : `[${store}]`)).pipe(new spec());
  for await (const chunk of output) process.stdout.write(String(chunk));
}

const onEveryStore = files.filter((file) => ON_EVERY_STORE.some((path) => file.startsWith(path)));
await runOn('memory', files);

if (!fast && onEveryStore.length > 0) {
  // The embedded runs start from one empty database made here: quicker than each process making its own.
  const dir = mkdtempSync(join(tmpdir(), 'pm-test-'));
  try {
    const db = await PgliteDriver.open();
    const from = join(dir, 'empty.tar');
    writeFileSync(from, Buffer.from(await (await db.dump()).arrayBuffer()));
    await db.close();
    process.env.TEST_PGLITE_FROM = from;
    await runOn('embedded', onEveryStore);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  // Every transaction run twice, the first rolled back, as a SQL store does after a conflict (test/helpers/store.ts).
  await runOn(
    'rerun',
    files.filter((file) => RERUN.some((path) => file.startsWith(path))),
  );

  const server = await testServer();
  if ('skip' in server) process.stdout.write(`\nThe PostgreSQL runs are skipped: ${server.skip}.\n`);
  else
    await runOn(
      'postgres',
      onEveryStore.filter((file) => !NOT_ON_POSTGRES.some((path) => file.startsWith(path))),
    );
}

if (skipped.length > 0) process.stdout.write(`\n${skipped.length} skipped: ${skipped.join('; ')}`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
if (failed > 0) process.exitCode = 1;
