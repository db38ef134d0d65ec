import type { Server } from 'node:http';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { assertReadable, SeedFileRefused, seedFromFile } from './data-file/seed-file.ts';
import { metricsServer } from './metrics/index.ts';
import { openStore, StoreOpenError } from './store/index.ts';
import { checksNesting } from './store/scope.ts';
import { startTracing, statementSpans } from './tracing/index.ts';
import type { Store } from './store/store.ts';

/**
 * Starts the service: configuration, the store, the app, listening, and a graceful stop on SIGINT/SIGTERM.
 * What a user can get wrong (a bad setting, a database that does not answer, a port in use) ends the process with
 * one line on stderr, no stack: exit code 2 for the configuration (a bad `SEED_FILE`: a line per problem), 1 for the
 * rest.
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, 2);
    throw err;
  }

  // Traces only when the OTEL_* variables ask for them: otherwise the SDK is never loaded.
  const tracing = await startTracing();

  let store: Store;
  try {
    if (config.seedFile !== undefined) await assertReadable(config.seedFile);
    store = await openStore({
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
      resetData: config.resetData,
      ...(config.seedFile !== undefined && { seed: seedFromFile(config.seedFile) }),
      activityLogMax: config.activityLogMax,
      poolSize: config.dbPoolSize,
      connectTimeoutMs: config.dbConnectTimeoutMs,
      statementTimeoutMs: config.dbStatementTimeoutMs,
      checkNesting: checksNesting(config.checkNestedTransactions),
      ...(tracing && { observeStatement: statementSpans(tracing.tracer) }),
    });
  } catch (err) {
    // A bad SEED_FILE is a mistake in the settings: its problems, one a line, and exit 2; nothing was loaded.
    const refused = err instanceof StoreOpenError ? err.cause : err;
    if (refused instanceof SeedFileRefused) fail(refused.message, 2);
    if (err instanceof StoreOpenError) fail(`cannot start: ${err.message}`, 1);
    throw err;
  }

  // The store is ready and seeded as its mode wants (openStore); the app closes it when it closes.
  const app = await buildApp({ config, store, seed: false, ...(tracing && { tracer: tracing.tracer }) });
  app.log.info({ store: store.kind }, 'store ready');
  let metricsListener: Server | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    // The listener's `close` comes once every connection has ended, so every request has been answered.
    let answered = false;
    app.server.once('close', () => (answered = true));
    const timer = setTimeout(() => {
      app.log.error(
        { graceMs: config.shutdownGraceMs },
        answered
          ? 'every request answered, but webhook delivery and the store did not close within the grace period; exiting'
          : 'requests still running after the grace period; exiting',
      );
      process.exit(1);
    }, config.shutdownGraceMs);
    timer.unref();
    metricsListener?.close();
    metricsListener?.closeAllConnections();
    try {
      await app.close();
      await tracing?.shutdown().catch((err: unknown) => app.log.warn({ err }, 'traces not all exported'));
      app.log.info({ signal }, 'stopped: every request answered, the process exits');
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error while shutting down');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    failToListen(err, config.host, config.port, ['PORT (--port)', 'HOST (--host)']);
  }
  // METRICS_PORT: the metrics on a listener of their own, not on the service's port (app.ts).
  if (app.metrics && config.metricsPort !== undefined) {
    const listener = (metricsListener = metricsServer(app.metrics));
    const { metricsHost: host, metricsPort: port } = config;
    try {
      await new Promise<void>((resolve, reject) => {
        listener.once('error', reject);
        listener.listen({ host, port }, () => resolve());
      });
    } catch (err) {
      failToListen(err, host, port, ['METRICS_PORT (--metrics-port)', 'METRICS_HOST (--metrics-host)']);
    }
    const address = listener.address();
    app.log.info({ address: typeof address === 'object' ? address : undefined }, 'metrics listening');
  }
}

/** Ends the process with a line saying why `host`:`port` could not be listened on, naming the settings to change. */
function failToListen(err: unknown, host: string, port: number, [portSetting, hostSetting]: [string, string]): never {
  const { code, syscall } = err as NodeJS.ErrnoException;
  if ((syscall !== 'listen' && syscall !== 'getaddrinfo') || code === undefined) throw err;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  fail(
    code === 'EADDRINUSE'
      ? `cannot listen on ${where}: port ${port} is already in use; choose another with ${portSetting}`
      : syscall === 'getaddrinfo'
        ? `cannot listen on ${where}: ${hostSetting} ${host} does not resolve to an address (${code})`
        : `cannot listen on ${where}: ${(err as Error).message}`,
    1,
  );
}

/** Ends the process with one line on stderr. */
function fail(message: string, exitCode: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(exitCode);
}

main().catch((err) => {
  process.stderr.write(`failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
