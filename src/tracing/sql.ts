import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { StatementObserver } from '../store/sql/driver.ts';

/**
 * A client span around each SQL statement, a child of the request (or other span) under way, named by the statement's
 * first word (`SELECT`, `INSERT`, `BEGIN`…) with its text (the statements are parameterized: no value is in it).
 * Only where a span is under way: the delivery workers' and the listeners' statements outside any trace make none.
 */
export function statementSpans(tracer: Tracer): StatementObserver {
  return async (text, run) => {
    if (trace.getSpan(context.active()) === undefined) return run();
    const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
    const span = tracer.startSpan(operation, {
      kind: SpanKind.CLIENT,
      attributes: { 'db.system.name': 'postgresql', 'db.operation.name': operation, 'db.query.text': text },
    });
    try {
      return await run();
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  };
}
