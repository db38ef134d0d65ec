import { SpanKind } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-node';

/**
 * Traces kept in memory, through a provider registered as the service's is (server.ts, `startTracing`): with Node's
 * async context and the SDK's default propagator (W3C Trace Context). One per test file (each runs in a process of
 * its own); `exporter.reset()` between tests.
 */
export function memoryTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  return { exporter, tracer: provider.getTracer('test') };
}

/** The finished spans of `kind`. */
export const spansOf = (exporter: InMemorySpanExporter, kind: SpanKind): ReadableSpan[] =>
  exporter.getFinishedSpans().filter((s) => s.kind === kind);
