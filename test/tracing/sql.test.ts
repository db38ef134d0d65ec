/**
 * SQL statements traced on both SQL stores, through the start's own path (`openStore` with the observer): a span
 * per statement under the request that ran it, those of its transactions included; none outside a request.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import { openStore, type StoreOptions } from '../../src/store/index.ts';
import { statementSpans } from '../../src/tracing/index.ts';
import { testApp } from '../helpers/app.ts';
import { testServer } from '../store/sql-harness.ts';
import { memoryTracing, spansOf } from './helpers.ts';

const { exporter, tracer } = memoryTracing();
const postgres = await testServer();

/** An app on a store opened as the start opens it, its statements traced. */
async function tracedApp(t: TestContext, where: StoreOptions) {
  const store = await openStore({ ...where, observeStatement: statementSpans(tracer) });
  return testApp(t, { store, seed: false, tracer });
}

async function statementsUnderRequests(t: TestContext, where: StoreOptions) {
  exporter.reset();
  const { api } = await tracedApp(t, where);
  assert.deepEqual(exporter.getFinishedSpans(), [], 'opening, migrating and seeding: outside any request');

  assert.equal((await api.get('/api/tasks/task_001')).status, 200);
  const [read] = spansOf(exporter, SpanKind.SERVER);
  const reads = spansOf(exporter, SpanKind.CLIENT);
  assert.ok(reads.length > 0, 'the read ran statements');
  for (const s of reads) assert.equal(s.parentSpanContext?.spanId, read!.spanContext().spanId, s.name);
  assert.ok(reads.some((s) => s.name === 'SELECT' && /\bFROM tasks\b/.test(String(s.attributes['db.query.text']))));
  assert.ok(reads.every((s) => s.attributes['db.system.name'] === 'postgresql'));

  exporter.reset();
  const created = await api.post('/api/tasks', { projectId: 'proj_001', title: 'Traced' });
  assert.equal(created.status, 201);
  const [write] = spansOf(exporter, SpanKind.SERVER);
  const writes = spansOf(exporter, SpanKind.CLIENT);
  for (const s of writes) assert.equal(s.parentSpanContext?.spanId, write!.spanContext().spanId, s.name);
  const inserts = writes.filter((s) => s.name === 'INSERT' || s.name === 'WITH');
  assert.ok(
    inserts.some((s) => /INSERT INTO tasks\b/.test(String(s.attributes['db.query.text']))),
    `the task's INSERT, in the change's transaction, among: ${writes.map((s) => s.name).join(', ')}`,
  );
  const texts = writes.map((s) => String(s.attributes['db.query.text'])).join('\n');
  assert.ok(!texts.includes('Traced'), 'no value in a statement: they are parameterized');
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
