import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { RequestDurations } from '../../src/metrics/request-durations.ts';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const config = (registry: Registry) => ({
  name: 'http_server_request_duration_seconds',
  help: 'help text',
  labelNames: ['method', 'route', 'status_class'] as const,
  buckets: BUCKETS,
  registers: [registry],
});

test("the request durations expose exactly what prom-client's own histogram does for the same answers", async () => {
  const ours = new Registry();
  const theirs = new Registry();
  const fast = new RequestDurations({ ...config(ours), labelNames: ['method', 'route', 'status_class'] });
  const stock = new Histogram({ ...config(theirs), labelNames: ['method', 'route', 'status_class'] });
  const answers: [string, string, number][] = [
    ['GET', '/api/tasks/:id', 200],
    ['GET', '/api/tasks/:id', 404],
    ['POST', '/api/tasks', 201],
    ['GET', 'unmatched', 404],
    ['DELETE', '/api/tasks/:id', 503],
    ['GET', '/api/tasks', 304],
  ];
  // Every bound itself (a bucket's bound is inclusive), values between them, beyond the last, and zero.
  const values = [0, ...BUCKETS, ...BUCKETS.map((b) => b * 1.5), 42];
  let i = 0;
  for (const value of values) {
    for (const [method, route, status] of answers) {
      if (i++ % 3 === 0) continue; // not every series sees every value
      fast.series(method, route, status).observe(value);
      stock.observe({ method, route, status_class: `${Math.floor(status / 100)}xx` }, value);
    }
  }
  assert.equal(await ours.metrics(), await theirs.metrics());
  fast.reset();
  assert.doesNotMatch(await ours.metrics(), /_count/);
});

test('a status code outside 1xx–5xx is counted under the class "other"', async () => {
  const registry = new Registry();
  const fast = new RequestDurations({ ...config(registry), labelNames: ['method', 'route', 'status_class'] });
  fast.series('GET', '/x', 600).observe(0.002);
  assert.match(
    await registry.metrics(),
    /http_server_request_duration_seconds_count\{method="GET",route="\/x",status_class="other"\} 1/,
  );
});
