import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';

/** Starts the service: configuration, the app, listening, and a graceful stop on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(err as Error).message}\n`);
      process.exit(2);
    }
    throw err;
  }

  const app = await buildApp({ config });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    const timer = setTimeout(() => {
      app.log.error({ graceMs: config.shutdownGraceMs }, 'requests still running after the grace period; exiting');
      process.exit(1);
    }, config.shutdownGraceMs);
    timer.unref();
    try {
      await app.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error while shutting down');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  await app.listen({ host: config.host, port: config.port });
}

main().catch((err) => {
  process.stderr.write(`failed to start: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
