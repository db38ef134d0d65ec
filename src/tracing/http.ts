import { context, propagation, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';

const SPAN = Symbol('tracing.span');
type Traced = FastifyRequest & { [SPAN]?: Span };

/**
 * One server span per request, named by its method and route template (`GET /api/tasks/:id`; `GET` alone for a path
 * that matched no route), with the status code; a 5xx marks it failed. The rest of the request runs in its context,
 * so that what it does (SQL statements, the deliveries it causes) is traced under it.
 *
 * A request that carries a trace context (`traceparent`, W3C Trace Context) gets a span that is a child of it, in
 * its trace: read by the propagator registered with the API (the SDK registers W3C Trace Context and Baggage). One
 * the propagator cannot read is ignored: the span starts a trace. Nothing is added to the answer.
 */
export function traceRequests(app: FastifyInstance, tracer: Tracer): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    const parent = propagation.extract(context.active(), request.headers);
    const span = tracer.startSpan(
      route === undefined ? request.method : `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          ...(route !== undefined && { 'http.route': route }),
          'url.path': request.url.split('?', 1)[0],
        },
      },
      parent,
    );
    (request as Traced)[SPAN] = span;
    context.with(trace.setSpan(parent, span), done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = (request as Traced)[SPAN];
    if (span) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}
