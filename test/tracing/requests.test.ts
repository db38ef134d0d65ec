/** An incoming W3C `traceparent`: a request's span continues the caller's trace; one that cannot be read is ignored. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SpanKind } from '@opentelemetry/api';
import { testApp } from '../helpers/app.ts';
import { memoryTracing, spansOf } from './helpers.ts';

const { exporter, tracer } = memoryTracing();

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

test('a request carrying a traceparent gets a span that is a child of it, in its trace', async (t) => {
  const { app } = await testApp(t, { tracer });
  exporter.reset();
  const res = await app.inject({
    url: '/api/tasks/task_001',
    headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, tracestate: 'vendor=abc' },
  });
  assert.equal(res.statusCode, 200);
  const [span, ...others] = spansOf(exporter, SpanKind.SERVER);
  assert.equal(others.length, 0);
  assert.equal(span!.name, 'GET /api/tasks/:id');
  assert.equal(span!.spanContext().traceId, TRACE_ID);
  assert.notEqual(span!.spanContext().spanId, PARENT_ID, 'a span of its own');
  assert.equal(span!.parentSpanContext?.spanId, PARENT_ID);
  assert.equal(span!.parentSpanContext?.isRemote, true);
  assert.equal(span!.spanContext().traceState?.get('vendor'), 'abc', 'the trace state goes on with the trace');
});

test('the answer to a traced request carries no header that an untraced one does not', async (t) => {
  const { app } = await testApp(t, { tracer });
  const plain = await app.inject('/api/tasks/task_001');
  const traced = await app.inject({
    url: '/api/tasks/task_001',
    headers: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
  });
  assert.deepEqual(Object.keys(traced.headers).sort(), Object.keys(plain.headers).sort());
  assert.equal(traced.body, plain.body);
});

test('a traceparent that cannot be read is ignored: the request starts a trace of its own', async (t) => {
  const { app } = await testApp(t, { tracer });
  const bad = [
    'garbage',
    `00-${TRACE_ID}-${PARENT_ID}`, // no flags
    `00-${'0'.repeat(32)}-${PARENT_ID}-01`, // an all-zero trace id
    `00-${TRACE_ID}-${'0'.repeat(16)}-01`, // an all-zero parent id
    `ff-${TRACE_ID}-${PARENT_ID}-01`, // version ff is forbidden
    `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`, // hex digits in upper case
    `00-${TRACE_ID}-${PARENT_ID}-01, 00-${TRACE_ID}-${PARENT_ID}-01`, // two of them
  ];
  for (const traceparent of bad) {
    exporter.reset();
    const res = await app.inject({ url: '/api/tasks/task_001', headers: { traceparent } });
    assert.equal(res.statusCode, 200, traceparent);
    const [span] = spansOf(exporter, SpanKind.SERVER);
    assert.equal(span!.parentSpanContext, undefined, traceparent);
    assert.notEqual(span!.spanContext().traceId, TRACE_ID, traceparent);
  }
});

test('a request without a traceparent starts a trace; two such requests, two traces', async (t) => {
  const { app } = await testApp(t, { tracer });
  exporter.reset();
  await app.inject('/api/tasks/task_001');
  await app.inject('/api/tasks/task_002');
  const [a, b] = spansOf(exporter, SpanKind.SERVER);
  assert.equal(a!.parentSpanContext, undefined);
  assert.equal(b!.parentSpanContext, undefined);
  assert.notEqual(a!.spanContext().traceId, b!.spanContext().traceId);
});
