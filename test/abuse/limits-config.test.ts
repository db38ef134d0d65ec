import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';

test('connection limits: production defaults, read from the environment and flags like every setting', () => {
  const d = loadConfig({}, []);
  assert.deepEqual(
    [d.headersTimeoutMs, d.requestTimeoutMs, d.keepAliveTimeoutMs, d.maxHeaderSize, d.maxConnections],
    [10_000, 30_000, 72_000, 16_384, 10_000],
  );
  const c = loadConfig(
    { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '1500', KEEP_ALIVE_TIMEOUT_MS: '2000', MAX_HEADER_SIZE: '8192' },
    ['--max-connections', '50', '--headers-timeout-ms', '1200'],
  );
  assert.deepEqual(
    [c.headersTimeoutMs, c.requestTimeoutMs, c.keepAliveTimeoutMs, c.maxHeaderSize, c.maxConnections],
    [1200, 1500, 2000, 8192, 50],
  );
});

test('connection limits: bad values are refused, naming them; the request timeout may not be shorter than the headers timeout', () => {
  assert.throws(
    () => loadConfig({ HEADERS_TIMEOUT_MS: '10' }, []),
    (e: Error) => e instanceof ConfigError && /HEADERS_TIMEOUT_MS/.test(e.message),
  );
  assert.throws(() => loadConfig({ MAX_HEADER_SIZE: 'big' }, []), /MAX_HEADER_SIZE/);
  assert.throws(() => loadConfig({ MAX_CONNECTIONS: '0' }, []), /MAX_CONNECTIONS/);
  assert.throws(
    () => loadConfig({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' }, []),
    (e: Error) =>
      e instanceof ConfigError && /REQUEST_TIMEOUT_MS/.test(e.message) && /HEADERS_TIMEOUT_MS/.test(e.message),
  );
});

test('buildApp applies them to the HTTP server', async (t) => {
  const app = await buildApp({
    config: {
      logLevel: 'silent',
      headersTimeoutMs: 1_000,
      requestTimeoutMs: 1_500,
      keepAliveTimeoutMs: 2_000,
      maxConnections: 7,
    },
  });
  t.after(() => app.close());
  assert.equal(app.server.headersTimeout, 1_000);
  assert.equal(app.server.requestTimeout, 1_500);
  assert.equal(app.server.keepAliveTimeout, 2_000);
  assert.equal(app.server.maxConnections, 7);
});
