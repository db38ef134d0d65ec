import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../src/config.ts';

test('defaults: 127.0.0.1:3000, info, 1 MiB bodies', () => {
  const c = loadConfig({}, []);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 3000);
  assert.equal(c.logLevel, 'info');
  assert.equal(c.bodyLimit, 1_048_576);
  assert.ok(Object.isFrozen(c));
});

test('environment variables, and flags over them', () => {
  const env = { HOST: '0.0.0.0', PORT: '8080', LOG_LEVEL: 'debug' };
  assert.deepEqual(
    { ...loadConfig(env, []) },
    { host: '0.0.0.0', port: 8080, logLevel: 'debug', bodyLimit: 1_048_576, shutdownGraceMs: 10_000 },
  );
  const c = loadConfig(env, ['--port', '0', '--host=::1', '--log-level', 'warn']);
  assert.equal(c.port, 0);
  assert.equal(c.host, '::1');
  assert.equal(c.logLevel, 'warn');
});

test('bad settings are refused, naming each one', () => {
  assert.throws(() => loadConfig({ PORT: 'eighty' }, []), (e: Error) => e instanceof ConfigError && /PORT/.test(e.message));
  assert.throws(() => loadConfig({ PORT: '70000', LOG_LEVEL: 'loud' }, []), (e: Error) => /PORT/.test(e.message) && /LOG_LEVEL/.test(e.message));
  assert.throws(() => loadConfig({}, ['--bogus', '1']));
});
