import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/app.ts';
import { ROUTES, fastifyPattern } from './arbitraries.ts';

/** `app.printRoutes({ commonPrefix: false })` as `METHOD /full/path` lines (HEAD and the CORS OPTIONS left out). */
function registeredRoutes(tree: string): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+) \(([^)]+)\)/.exec(line.replace(/\u2502 {3}/g, '│   '));
    if (!m) continue;
    const depth = [...m[1]!].length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    const path = stack.join('');
    for (const method of m[3]!.split(', '))
      if (method !== 'HEAD' && method !== 'OPTIONS') out.push(`${method} ${path}`);
  }
  return out.sort();
}

/**
 * Routes the fuzzers leave out, and why: the event stream answers for as long as the client stays (an injected
 * request would never end); test/stream/ sends it bad parameters and headers.
 */
const NOT_FUZZED = new Set(['GET /api/stream']);

test('the fuzzers cover every route the app serves', async (t) => {
  const app = await buildApp({ config: { logLevel: 'silent' } });
  t.after(() => app.close());
  await app.ready();
  const served = registeredRoutes(app.printRoutes({ commonPrefix: false }));
  assert.ok(served.length > 40, `parsed only ${served.length} routes`);
  const fuzzed = new Set(ROUTES.map((r) => `${r.method} ${fastifyPattern(r.pattern)}`));
  // A wildcard route is printed under its longest shared prefix (`/docs*` for `/docs/static/*`).
  const wildcards = [...fuzzed].filter((r) => r.endsWith('*'));
  const missing = served.filter(
    (r) =>
      !fuzzed.has(r) && !NOT_FUZZED.has(r) && !(r.endsWith('*') && wildcards.some((w) => w.startsWith(r.slice(0, -1)))),
  );
  assert.deepEqual(missing, [], `routes the fuzzers never send to: ${missing.join(', ')}`);
  t.diagnostic(`${served.length} routes served, all fuzzed but ${[...NOT_FUZZED].join(', ')}`);
});
