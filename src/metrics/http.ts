import { createServer, type Server } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StoreUnavailableError } from '../store/errors.ts';
import type { Metrics } from './registry.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's metrics (`METRICS`), null when off: the entry serves them on a listener of their own. */
    metrics: Metrics | null;
  }
}

/** Where the metrics are served: the path on the service's port, or on a listener of their own. */
export const METRICS_PATH = '/metrics';

/** The route label of a request that matched no route: its path never becomes a label (ids, probes, typos). */
export const UNMATCHED = 'unmatched';

/**
 * Times each answer (by method, the route's template and the status class): handed to the access log, which is told
 * of every request as it completes (http/logging.ts), so that timing costs no hook of its own. The route's
 * template, never the URL: an id never becomes a label. Each series is kept (request-durations.ts), so that an
 * answer costs two lookups and a bucket walk.
 */
export function requestTimer(metrics: Metrics): (request: FastifyRequest, reply: FastifyReply) => void {
  const histogram = metrics.requestDuration;
  return (request, reply) => {
    const seconds = reply.elapsedTime / 1000;
    if (!Number.isFinite(seconds)) return;
    histogram.series(request.method, request.routeOptions.url ?? UNMATCHED, reply.statusCode).observe(seconds);
  };
}

/** Counts the 503s the store caused, by reason (an `onError` hook: it runs for failed requests only). */
export function countUnavailable(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onError', (_request, _reply, error, done) => {
    if (error instanceof StoreUnavailableError) metrics.unavailable.inc({ reason: error.reason });
    done();
  });
}

/**
 * `GET /metrics` on the service's port, in the Prometheus text format; with `AUTH=token`, for tokens with the
 * `admin` scope. Not in the OpenAPI document (it is no part of the API): docs/monitoring.md describes it.
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics): void {
  app.get(METRICS_PATH, { schema: { hide: true }, config: { scope: 'admin' } }, async (_request, reply) => {
    const { contentType, text } = await metrics.scrape();
    return reply.header('content-type', contentType).header('cache-control', 'no-store').send(text);
  });
}

/**
 * A listener of the metrics' own (`METRICS_PORT`): `GET /metrics` and nothing else, no token (it listens on
 * `METRICS_HOST`, the loopback by default, where only the machine's own scrapers reach it).
 */
export function metricsServer(metrics: Metrics): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(path === METRICS_PATH ? 405 : 404, { 'content-type': 'text/plain; charset=utf-8' });
      return void res.end(path === METRICS_PATH ? 'GET only\n' : `not found: the metrics are at ${METRICS_PATH}\n`);
    }
    metrics.scrape().then(
      ({ contentType, text }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('the metrics could not be collected\n');
      },
    );
  });
}
