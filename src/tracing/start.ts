import type { Tracer } from '@opentelemetry/api';

/** The tracer of the service, and how to flush and stop it at shutdown. */
export interface Tracing {
  readonly tracer: Tracer;
  shutdown(): Promise<void>;
}

/**
 * Whether the standard variables ask for traces: an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), or an exporter named (`OTEL_TRACES_EXPORTER`: `otlp`, `console`), and
 * the SDK not disabled (`OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none`).
 */
export function tracesWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return false;
  return Boolean(exporter || env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Starts the OpenTelemetry SDK when {@link tracesWanted}, and only then loads it (the SDK and the exporter are
 * imported here, on demand: with traces off, the process never reads them). The exporter reads its own variables
 * (`OTEL_EXPORTER_OTLP_*`: endpoint, headers, timeout); spans go in batches (`OTEL_BSP_*`). The service is named by
 * `OTEL_SERVICE_NAME`, default `pm-service`. Registers the provider globally, with Node's async context.
 */
export async function startTracing(env: NodeJS.ProcessEnv = process.env): Promise<Tracing | undefined> {
  if (!tracesWanted(env)) return undefined;
  const [{ NodeTracerProvider, BatchSpanProcessor, ConsoleSpanExporter }, { resourceFromAttributes }] =
    await Promise.all([import('@opentelemetry/sdk-trace-node'), import('@opentelemetry/resources')]);
  const exporter =
    env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'console'
      ? new ConsoleSpanExporter()
      : new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || 'pm-service' }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register();
  return { tracer: provider.getTracer('pm-service'), shutdown: () => provider.shutdown() };
}
