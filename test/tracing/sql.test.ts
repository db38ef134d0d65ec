/**
 * SQL statements traced on both SQL stores, through the start's own path (`openStore` with the observer): a span
 * per statement under the request that ran it, those of its transactions included; none outside a request, nor for
 * the delivery workers a request's change wakes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { openStore, type StoreOptions } from '../../src/store/index.ts';
import { statementSpans } from '../../src/tracing/index.ts';
import type { DeliveryObserver } from '../../src/webhooks/types.ts';
import { testApp } from '../helpers/app.ts';
import { testServer } from '../store/sql-harness.ts';
import { receiver, subscribe, watch } from '../webhooks/helpers.ts';
import { memoryTracing, spansOf } from './helpers.ts';

const { exporter, tracer } = memoryTracing();
const postgres = await testServer();

/** An app on a store opened as the start opens it, its statements traced. */
async function tracedApp(t: TestContext, where: StoreOptions, observer: DeliveryObserver) {
  const store = await openStore({ ...where, observeStatement: statementSpans(tracer) });
  return testApp(t, { store, seed: false, tracer, webhooks: { allowPrivate: true, observer } });
}

async function statementsUnderRequests(t: TestContext, where: StoreOptions) {
  exporter.reset();
  const watched = watch();
  const { api } = await tracedApp(t, where, watched.observer);
  assert.deepEqual(exporter.getFinishedSpans(), [], 'opening, migrating and seeding: outside any request');
  const rx = await receiver(t);
  const hook = await subscribe(api, rx.url, ['task.created']);
  exporter.reset();

  assert.equal((await api.get('/api/tasks/task_001')).status, 200);
  const [read] = spansOf(exporter, SpanKind.SERVER);
  // In its trace: the event stream's read of what the webhook's creation committed may end after it (and count there).
  const inTraceOf = (request: ReadableSpan) =>
    spansOf(exporter, SpanKind.CLIENT).filter((s) => s.spanContext().traceId === request.spanContext().traceId);
  const reads = inTraceOf(read!);
  assert.ok(reads.length > 0, 'the read ran statements');
  for (const s of reads)
    assert.equal(s.parentSpanContext?.spanId, read!.spanContext().spanId, String(s.attributes['db.query.text']));
  assert.ok(reads.some((s) => s.name === 'SELECT' && /\bFROM tasks\b/.test(String(s.attributes['db.query.text']))));
  assert.ok(reads.every((s) => s.attributes['db.system.name'] === 'postgresql'));

  exporter.reset();
  const created = await api.post('/api/tasks', { projectId: 'proj_001', title: 'Traced' });
  assert.equal(created.status, 201);
  const [write] = spansOf(exporter, SpanKind.SERVER);
  const writes = inTraceOf(write!);
  for (const s of writes) assert.equal(s.parentSpanContext?.spanId, write!.spanContext().spanId, s.name);
  const inserts = writes.filter((s) => s.name === 'INSERT' || s.name === 'WITH');
  assert.ok(
    inserts.some((s) => /INSERT INTO tasks\b/.test(String(s.attributes['db.query.text']))),
    `the task's INSERT, in the change's transaction, among: ${writes.map((s) => s.name).join(', ')}`,
  );
  const texts = writes.map((s) => String(s.attributes['db.query.text'])).join('\n');
  assert.ok(!texts.includes('Traced'), 'no value in a statement: they are parameterized');

  // The change woke the delivery workers: their claim and settle (UPDATEs of the outbox) are no part of it.
  // The seeded webhooks' attempts are recorded final as they are staged (hosts that never resolve); then ours.
  for (let n = 1; !watched.settled.some((d) => d.webhookId === hook.id); n++) await watched.until(n);
  assert.equal(watched.settled.find((d) => d.webhookId === hook.id)?.status, 'succeeded');
  const traced = spansOf(exporter, SpanKind.CLIENT).map((s) => String(s.attributes['db.query.text']));
  assert.ok(!traced.some((text) => /UPDATE webhook_deliveries/.test(text)), traced.join('\n'));
}

test('the embedded store (DATA_DIR): a span per statement under the request, its transactions included', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pm-traced-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  await statementsUnderRequests(t, { dataDir });
});

test(
  'a PostgreSQL server (DATABASE_URL): a span per statement under the request, its transactions included',
  { skip: 'skip' in postgres ? postgres.skip : false },
  async (t) => {
    if (!('server' in postgres)) return;
    t.after(() => postgres.server.dropAll());
    await statementsUnderRequests(t, { databaseUrl: await postgres.server.database() });
  },
);
