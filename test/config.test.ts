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
  const fromEnv = loadConfig(env, []);
  assert.deepEqual([fromEnv.host, fromEnv.port, fromEnv.logLevel], ['0.0.0.0', 8080, 'debug']);
  const c = loadConfig(env, ['--port', '0', '--host=::1', '--log-level', 'warn']);
  assert.equal(c.port, 0);
  assert.equal(c.host, '::1');
  assert.equal(c.logLevel, 'warn');
});

test('bad settings are refused, naming each one', () => {
  assert.throws(
    () => loadConfig({ PORT: 'eighty' }, []),
    (e: Error) => e instanceof ConfigError && /PORT/.test(e.message),
  );
  assert.throws(
    () => loadConfig({ PORT: '70000', LOG_LEVEL: 'loud' }, []),
    (e: Error) => /PORT/.test(e.message) && /LOG_LEVEL/.test(e.message),
  );
  assert.throws(() => loadConfig({}, ['--bogus', '1']));
});

test('webhook settings: schedule, timeout, private targets', () => {
  const d = loadConfig({}, []);
  assert.equal(d.webhookRetrySchedule, '5s,5m,30m,2h,5h,10h,10h');
  assert.equal(d.webhookTimeoutMs, 10_000);
  assert.equal(d.webhookAllowPrivate, false);
  const c = loadConfig({ WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s', WEBHOOK_ALLOW_PRIVATE: 'true' }, [
    '--webhook-timeout-ms',
    '500',
  ]);
  assert.equal(c.webhookRetrySchedule, '200ms,500ms,1s');
  assert.equal(c.webhookAllowPrivate, true);
  assert.equal(c.webhookTimeoutMs, 500);
  assert.throws(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes' }, []), /WEBHOOK_ALLOW_PRIVATE/);
  assert.throws(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: 'soon' }, []), /WEBHOOK_RETRY_SCHEDULE/);
});
