import type { Tracer } from '@opentelemetry/api';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { loadConfig, type Config } from './config.ts';
import { randomIds, type IdGenerator } from './model/ids.ts';
import { iso, systemClock, type Clock } from './model/time.ts';
import type { ServiceDeps } from './core/resource-service.ts';
import { exportRoute } from './data-file/export-route.ts';
import { activityConsumer } from './events/activity.ts';
import { EventBus, type Consumer, type TransactionalConsumer, type TransactionStart } from './events/bus.ts';
import { notificationConsumer } from './events/notifications.ts';
import { subscribeDelivery } from './events/webhooks.ts';
import { AccessLog, defaultLogFormat, lazyChildLogger, loggerOptions } from './http/logging.ts';
import { registerAuth } from './http/auth.ts';
import { registerJsonBody } from './http/body.ts';
import { lingerOnClose } from './http/linger.ts';
import { Cors } from './http/cors.ts';
import {
  clientErrors,
  frameworkErrorsLoggedBy,
  refusedWithoutHost,
  registerErrorHandling,
  registerProtocolAnswers,
} from './http/errors.ts';
import { registerOpenApi } from './http/openapi.ts';
import { requestIdOf } from './http/request-id.ts';
import { RouteTable } from './http/route-table.ts';
import { validatorCompiler } from './http/validation.ts';
import { countUnavailable, Metrics, registerMetricsRoute, requestTimer } from './metrics/index.ts';
import { resources } from './resources/index.ts';
import { createServices } from './resources/services.ts';
import { MemoryStore } from './store/memory/store.ts';
import { seed } from './store/seed.ts';
import type { Store } from './store/store.ts';
import { registerStream, STREAM_TAG } from './stream/index.ts';
import { DATA_FILE_TAG, dataFileRoutes } from './data-file/routes.ts';
import type { StreamHub } from './stream/hub.ts';
import { deliverySpans, traceRequests } from './tracing/index.ts';
import { registerWebApp } from './web/index.ts';
import { WebhookDispatcher, type DispatcherOptions } from './webhooks/dispatcher.ts';
import type { DeliveryObserver } from './webhooks/types.ts';

/**
 * Of the shutdown grace period, what webhook attempts leave to give the unfinished ones back (GIVE_BACK_MS at most)
 * and to close the store (a SQL store drops the connections that have not ended within its END_WAIT_MS, 300 ms).
 */
const CLOSE_MARGIN_MS = 1_000;
const GIVE_BACK_MS = 300;

export interface AppDeps {
  config?: Partial<Config>;
  /** The store to serve, closed when the app closes; default: a new in-memory store bounded by `activityLogMax`. */
  store?: Store;
  /** Load the sample records into the store (default true). */
  seed?: boolean;
  clock?: Clock;
  ids?: IdGenerator;
  /** A logger to use instead of Fastify's pino instance at `config.logLevel`. */
  logger?: FastifyBaseLogger;
  /** Overrides of the webhook dispatcher's settings (tests: short schedules, an injected DNS lookup). */
  webhooks?: Partial<DispatcherOptions>;
  /** The event bus the services publish to and the app's consumers subscribe to; default: a new one. */
  events?: EventBus;
  /** Makes the webhook dispatcher from its settings; default: `new WebhookDispatcher(options)`. */
  makeDispatcher?: (options: DispatcherOptions) => WebhookDispatcher;
  /** How many records an unpaged list reads at a time; default: the store's (`Store.listPart`). */
  listPart?: number;
  /** Traces through this tracer (the OpenTelemetry SDK's, started from the `OTEL_*` variables); none when absent. */
  tracer?: Tracer;
  /** The folder of the built web app; default: `web/dist` (`npm run build:web`). */
  webDist?: string;
  /** For the bench only (bench/features.ts): parts of the request path left out, to measure what each costs. */
  without?: ReadonlySet<BenchFeature>;
}

/**
 * What the bench can leave out of the request path: the request id (a constant instead), CORS, the auth and
 * rate-limit registration, validation (every request part accepted as sent), serialization (every answer the same
 * small body), ETags, and the events of a change (no consumer: no activity, notification, stream entry or delivery),
 * or one of their consumers alone (`activity-log`, `notifications`, `stream`, `webhooks`).
 */
export type BenchFeature =
  'request-id' | 'cors' | 'auth' | 'validation' | 'serialization' | 'etag' | 'events' | (typeof CONSUMERS)[number];

/** Builds the service: every plugin, route and dependency wired explicitly. Never listens. */
export async function buildApp(deps: AppDeps = {}): Promise<FastifyInstance> {
  const config = { ...loadConfig({}, []), ...deps.config };
  const store = deps.store ?? new MemoryStore({ activityLogMax: config.activityLogMax });
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? randomIds;
  const without = deps.without ?? new Set<BenchFeature>();

  // The metrics (METRICS): every answer timed by the access log, the 404s and the early refusals included. The sources
  // are read at each scrape; the stream's hub comes later.
  let hub: StreamHub | undefined;
  const storeStats = (store as Store).stats?.bind(store);
  const metrics = config.metrics
    ? new Metrics({
        backlog: () => store.deliveries.backlog(iso(clock.now())),
        stream: { clients: () => hub?.size ?? 0, eventsSent: () => hub?.eventsSent ?? 0 },
        ...(storeStats && { store: storeStats }),
      })
    : null;
  const logger = deps.logger ? undefined : loggerOptions(config.logLevel, config.logFormat ?? defaultLogFormat());
  const accessLog = new AccessLog(logger?.stream, metrics ? requestTimer(metrics) : undefined);
  const app = Fastify({
    ...(logger ? { logger } : { loggerInstance: deps.logger }),
    bodyLimit: config.bodyLimit,
    // No part of a path is too long for the router: one is bounded by the request's head (`maxHeaderSize`), and
    // refused past the router it would skip the token check and the rate limit. A long id is the route's 404.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: config.maxHeaderSize },
    genReqId: without.has('request-id') ? () => 'req' : requestIdOf,
    frameworkErrors: frameworkErrorsLoggedBy((request, reply) => accessLog.requestCompleted(null, request, reply)),
    return503OnClosing: false,
    logController: accessLog,
    // Slow, oversized and idle clients (config.ts): answered 408 / 431 in the error shape and disconnected.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      maxHeaderSize: config.maxHeaderSize,
      // How often the timeouts above are checked (Node's default, 30 s, would let them overrun by that much).
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(config.headersTimeoutMs / 4))),
      // A request without Host is answered by registerProtocolAnswers, in the error shape (Node's has no body).
      requireHostHeader: false,
    },
    clientErrorHandler: clientErrors,
  });
  app.server.maxConnections = config.maxConnections;
  app.decorate('metrics', metrics);
  // Traces (OTEL_*, started by server.ts): a span per request, one per webhook attempt linked to its request.
  const spans = deps.tracer && deliverySpans(deps.tracer);
  if (deps.tracer) traceRequests(app, deps.tracer);
  if (metrics) countUnavailable(app, metrics);
  lingerOnClose(app.server);

  app.setValidatorCompiler(without.has('validation') ? () => () => true : validatorCompiler);
  if (without.has('serialization')) app.setSerializerCompiler(() => () => '{"data":{}}');
  app.decorate('etags', !without.has('etag'));
  app.setChildLoggerFactory(lazyChildLogger);
  // One hook for every answer: its request id and, once the service is closing, `Connection: close` (a keep-alive
  // connection busy when the listener closed would otherwise stay open, idle, until KEEP_ALIVE_TIMEOUT_MS and hold
  // the shutdown past its grace period).
  let closing = false;
  let closingSince = 0;
  app.addHook('preClose', async () => {
    closing = true;
    closingSince = performance.now();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  app.decorate('listPart', deps.listPart ?? (store as Store).listPart ?? null);

  const routes = new RouteTable();
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/api')) routes.add(route.url, route.method);
  });
  registerJsonBody(app);
  registerErrorHandling(app, routes);
  const events = deps.events ?? busWithout(app.log, without);
  const serviceDeps: ServiceDeps & { readonly store: Store } = { store, clock, ids, events };
  const dispatcher = (deps.makeDispatcher ?? ((options) => new WebhookDispatcher(options)))({
    clock,
    ids,
    log: app.log.child({ component: 'webhooks' }),
    retrySchedule: config.webhookRetrySchedule,
    timeoutMs: config.webhookTimeoutMs,
    concurrency: config.webhookConcurrency,
    perWebhookConcurrency: config.webhookConcurrencyPerWebhook,
    maxQueue: config.webhookMaxQueue,
    historyPerWebhook: config.webhookHistory,
    historyDays: config.webhookHistoryDays,
    pollMs: config.webhookPollMs,
    allowPrivate: config.webhookAllowPrivate,
    outbox: store.deliveries,
    // A receiver that answers 410 Gone wants no more: the webhook is switched off (recorded as a change by system),
    // unless its URL changed since (the 410 came from the old one).
    onGone: (id, url) => services.webhooks.goneAt(id, url),
    // Every attempt goes to the webhook as it is now.
    current: async (id) => {
      const hook = await store.webhooks.get(id);
      return hook && { id: hook.id, url: hook.url, secret: hook.secret, active: hook.active };
    },
    ...deps.webhooks,
    observer: allObservers(metrics?.deliveries, spans, deps.webhooks?.observer),
    ...(spans && { tracing: spans }),
  });
  const services = createServices(serviceDeps, dispatcher);
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  // The one `onRequest` hook of every request, before the token check and the rate limit: CORS's headers (a preflight
  // answered here), then a request without Host refused. Its `onSend` pair, above, adds the request id.
  const cors = without.has('cors')
    ? undefined
    : new Cors({ auth: config.auth, rateLimited: config.rateLimit !== undefined });
  app.addHook('onRequest', (request, reply, done) => {
    if (cors) {
      cors.answer(reply);
      if (request.method === 'OPTIONS') return cors.preflight(reply);
    }
    if (!refusedWithoutHost(request, reply)) done();
  });
  // AUTH=token and RATE_LIMIT: the token check, then the rate limit, in a hook each route gets as it is added (so
  // registered before any route) and one for the requests no route matched (http/auth.ts).
  if (!without.has('auth')) registerAuth(app, (value) => services.tokens.authenticate(value), config);
  else app.decorateRequest('principal', null);
  // Preflights to any path reach the CORS hook through this route (never its handler).
  app.options('*', { schema: { hide: true } }, (_request, reply) => reply.callNotFound());
  registerProtocolAnswers(app);
  // The web app: its page to browsers at `/` and its own paths, its assets under `/assets/`;
  // `/` is the index's route, which gives a browser the page.
  const browserPage = registerWebApp(app, { auth: config.auth }, deps.webDist);
  await registerOpenApi(
    app,
    resources,
    { auth: config.auth, rateLimited: config.rateLimit !== undefined },
    [STREAM_TAG, DATA_FILE_TAG],
    browserPage,
  );
  // On the service's port unless METRICS_PORT gives them a listener of their own (server.ts).
  if (metrics && config.metricsPort === undefined) registerMetricsRoute(app, metrics);

  // What the service does by itself with every change: in its transaction, the event stream's entries, the audit
  // trail, the users' notifications and the deliveries to the webhooks subscribed, written to the outbox (all
  // commit together or not at all); once committed, the stream's clients are sent the change and the delivery
  // workers are woken (never awaited). The stream's entries come first, so that a change's own event precedes
  // those of the notifications it causes.
  const stream = (hub = await registerStream(typed, {
    store,
    events,
    config,
    clock,
    tokens: services.tokens,
    accessLine: (request, reply) => accessLog.requestCompleted(null, request, reply),
  }));
  // Streams end as the service starts closing: none holds the grace period.
  app.addHook('preClose', () => stream.close());
  events.subscribeInTransaction('activity-log', activityConsumer(services.activity));
  events.subscribeInTransaction('notifications', notificationConsumer(services.notifications));
  subscribeDelivery(events, dispatcher, ids);

  for (const resource of resources) resource.routes(typed, services, serviceDeps);
  dataFileRoutes(typed);
  exportRoute(typed, { store, clock }, DATA_FILE_TAG.name);

  if (deps.seed ?? true) await seed(store);
  app.addHook('onClose', async () => {
    // The listener is closed and requests are done: webhook attempts in flight get what is left of the grace period
    // (less a margin to give the unfinished ones back to the outbox, for the next start or another instance).
    const left = Math.max(0, Math.floor(config.shutdownGraceMs - (performance.now() - closingSince) - CLOSE_MARGIN_MS));
    const delivered = dispatcher
      .close(left)
      .catch((err: unknown) => app.log.warn({ err }, 'webhook delivery did not close cleanly'));
    // What the dispatcher does after that waits on the store; a database that does not answer must not hold the
    // shutdown past the grace period: after GIVE_BACK_MS more, the store closes all the same (closing it drops the
    // connections that do not answer, which fails the statements still waiting on them).
    let spent: NodeJS.Timeout | undefined;
    await Promise.race([delivered, new Promise((resolve) => (spent = setTimeout(resolve, left + GIVE_BACK_MS)))]);
    clearTimeout(spent);
    await store.close();
    await delivered;
  });
  return app;
}

/** The consumers of changes the bench can leave out, by the names they subscribe with; `events`: all of them. */
const CONSUMERS = ['activity-log', 'notifications', 'stream', 'webhooks'] as const;

/** An event bus that keeps none of the consumers `left` names: their part of each change is left out (the bench). */
class PartialBus extends EventBus {
  constructor(
    log: FastifyBaseLogger,
    private readonly left: ReadonlySet<string>,
  ) {
    super(log);
  }
  override subscribe(name: string, consume: Consumer): void {
    if (!this.left.has(name)) super.subscribe(name, consume);
  }
  override subscribeInTransaction(name: string, consume: TransactionalConsumer, begin?: TransactionStart): void {
    if (!this.left.has(name)) super.subscribeInTransaction(name, consume, begin);
  }
}

/** The bus of a service with the bench's `without`: the consumers it leaves out kept off, else a plain one. */
function busWithout(log: FastifyBaseLogger, without: ReadonlySet<BenchFeature>): EventBus {
  const left = new Set<string>(CONSUMERS.filter((name) => without.has('events') || without.has(name)));
  return left.size === 0 ? new EventBus(log) : new PartialBus(log, left);
}

/** The observers of the delivery workers given, told in turn; the one alone as it is. */
function allObservers(...given: (DeliveryObserver | undefined)[]): DeliveryObserver | undefined {
  const all = given.filter((o) => o !== undefined);
  if (all.length < 2) return all[0];
  return {
    settled: (record) => all.forEach((o) => o.settled(record)),
    attempted: (row, startedAt) => all.forEach((o) => o.attempted?.(row, startedAt)),
  };
}
