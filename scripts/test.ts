/**
 * Runs the test files with Node's test runner, two at a time: `spec` output, then one summary line,
 * `N passed, N failed` (what CI reads), with the skipped tests named on the line before it when there are any.
 * `--fast`: every file but the slow ones (SLOW), for `npm run test:fast`. Other arguments: only the files under
 * these paths (`npm run test:fast -- test/webhooks`). Exits 1 when a test failed.
 */
import { readdirSync } from 'node:fs';
import { Readable } from 'node:stream';
import { run } from 'node:test';
import { spec, type TestEvent } from 'node:test/reporters';

/** Fuzzing, real server processes under load and over raw sockets or TLS, the browser: what `--fast` leaves out. */
const SLOW = [
  'test/abuse/connections.test.ts',
  'test/abuse/secrets.test.ts',
  'test/abuse/shutdown.test.ts',
  'test/e2e/',
  'test/fuzz/',
  'test/http/logging.test.ts',
  'test/openapi/docs-browser.test.ts',
  'test/webhooks/tls.test.ts',
];

/** The runner's own totals, left out: they count subtests apart, and one summary is enough. */
const RUNNER_TOTALS = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) \d/;

const isSlow = (file: string) => SLOW.some((slow) => file.startsWith(slow));
const args = process.argv.slice(2);
const fast = args.includes('--fast');
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

async function* counted(source: AsyncIterable<TestEvent>): AsyncGenerator<TestEvent> {
  for await (const event of source) {
    if (event.type === 'test:diagnostic' && event.data.nesting === 0 && RUNNER_TOTALS.test(event.data.message))
      continue;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.details.type !== 'suite') {
      if (event.data.skip !== undefined || event.data.todo !== undefined) skipped.push(event.data.name);
      else if (event.type === 'test:pass') passed++;
      else failed++;
    }
    yield event;
  }
}

const output = Readable.from(counted(run({ files, concurrency: 2 }) as AsyncIterable<TestEvent>)).pipe(new spec());
for await (const chunk of output) process.stdout.write(String(chunk));
if (skipped.length > 0) process.stdout.write(`\n${skipped.length} skipped: ${skipped.join('; ')}`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
if (failed > 0) process.exitCode = 1;
