import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { startTracing, statementSpans, tracesWanted } from '../../src/tracing/index.ts';
import { realTimers } from '../../src/webhooks/types.ts';
import { testApp } from '../helpers/app.ts';
import { appWithReceivers, receiver, subscribe } from '../webhooks/helpers.ts';

// One provider for the file, registered with Node's async context, its spans kept in memory.
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
const tracer = provider.getTracer('test');

test('off unless the OTEL_* variables ask for traces; nothing is started then', async () => {
  assert.equal(tracesWanted({}), false);
  assert.equal(await startTracing({}), undefined);
  assert.equal(tracesWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
  assert.equal(tracesWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }), true);
  assert.equal(tracesWanted({ OTEL_TRACES_EXPORTER: 'console' }), true);
  assert.equal(tracesWanted({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), false);
  assert.equal(tracesWanted({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }), false);
});

test('a span per request: its method and route template, its status', async (t) => {
  exporter.reset();
  const { app } = await testApp(t, { tracer });
  await app.inject('/api/tasks/task_001');
  await app.inject('/api/tasks/task_nope');
  await app.inject('/api/nothing-here');
  const spans = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);
  assert.deepEqual(
    spans.map((s) => [s.name, s.attributes['http.route'], s.attributes['http.response.status_code']]),
    [
      ['GET /api/tasks/:id', '/api/tasks/:id', 200],
      ['GET /api/tasks/:id', '/api/tasks/:id', 404],
      ['GET', undefined, 404],
    ],
  );
  assert.ok(spans.every((s) => s.status.code !== SpanStatusCode.ERROR));
});

test('a span per webhook attempt, linked to the request whose change caused it', async (t) => {
  const hook = await receiver(t);
  const { api, watched } = await appWithReceivers(t, { scheduler: realTimers }, { tracer });
  await subscribe(api, hook.url, ['task.created']);
  exporter.reset();
  const created = await api.post('/api/tasks', { projectId: 'proj_001', title: 'Traced' });
  assert.equal(created.status, 201);
  await watched.until(1);
  const spans = exporter.getFinishedSpans();
  const request = spans.find((s) => s.name === 'POST /api/tasks')!;
  const attempt = spans.find((s) => s.name === 'webhook delivery')!;
  assert.ok(request && attempt, spans.map((s) => s.name).join(', '));
  assert.equal(attempt.kind, SpanKind.CLIENT);
  assert.equal(attempt.attributes['webhook.delivery.attempt'], 1);
  assert.equal(attempt.attributes['webhook.event.type'], 'task.created');
  assert.equal(attempt.attributes['http.response.status_code'], 200);
  assert.notEqual(attempt.spanContext().traceId, request.spanContext().traceId, 'a trace of its own');
  assert.deepEqual(
    attempt.links.map((l) => l.context.spanId),
    [request.spanContext().spanId],
  );
});

test('SQL statements: a span each under the span under way, none outside a trace', async () => {
  exporter.reset();
  const observe = statementSpans(tracer);
  assert.equal(await observe('SELECT 1', async () => 1), 1);
  assert.equal(exporter.getFinishedSpans().length, 0, 'no trace under way: no span');
  await tracer.startActiveSpan('GET /api/tasks/:id', async (request) => {
    await observe('SELECT data FROM tasks WHERE id = $1', async () => [{}]);
    await assert.rejects(
      observe('INSERT INTO tasks VALUES ($1)', async () => Promise.reject(new Error('refused'))),
      /refused/,
    );
    request.end();
  });
  const [select, insert] = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
  const request = exporter.getFinishedSpans().find((s) => s.name === 'GET /api/tasks/:id')!;
  assert.equal(select!.name, 'SELECT');
  assert.equal(select!.attributes['db.query.text'], 'SELECT data FROM tasks WHERE id = $1');
  assert.equal(select!.parentSpanContext?.spanId, request.spanContext().spanId);
  assert.equal(insert!.name, 'INSERT');
  assert.equal(insert!.status.code, SpanStatusCode.ERROR);
});
