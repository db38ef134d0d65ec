import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ConfigError, DEFAULT_CONFIG, loadConfig, parseDuration, parseSchedule, type Config } from '../src/config.ts';
import { randomIds } from '../src/model/ids.ts';
import { systemClock } from '../src/model/time.ts';
import { resolveOptions } from '../src/webhooks/options.ts';

/** Asserts that `fn` throws a one-line `ConfigError` matching every pattern. */
function refused(fn: () => unknown, ...patterns: RegExp[]) {
  assert.throws(fn, (e: Error) => {
    assert.ok(e instanceof ConfigError, String(e));
    assert.doesNotMatch(e.message, /\n/);
    for (const p of patterns) assert.match(e.message, p);
    return true;
  });
}

test('defaults: 127.0.0.1:3000, info, 1 MiB bodies, the production retry schedule in ms', () => {
  const c = loadConfig({}, []);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 3000);
  assert.equal(c.logLevel, 'info');
  assert.equal(c.bodyLimit, 1_048_576);
  assert.deepEqual(c.webhookRetrySchedule, [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
  assert.equal(c.webhookConcurrency, 32);
  assert.equal(c.webhookConcurrencyPerWebhook, 8);
  assert.equal(c.webhookHistoryDays, 30);
  assert.ok(Object.isFrozen(c) && Object.isFrozen(c.webhookRetrySchedule));
  assert.deepEqual(DEFAULT_CONFIG, c);
});

test('environment variables, and flags over them; an empty variable means the default', () => {
  const env = { HOST: '0.0.0.0', PORT: '8080', LOG_LEVEL: 'debug', BODY_LIMIT: '' };
  const fromEnv = loadConfig(env, []);
  assert.deepEqual(
    [fromEnv.host, fromEnv.port, fromEnv.logLevel, fromEnv.bodyLimit],
    ['0.0.0.0', 8080, 'debug', 1_048_576],
  );
  const c = loadConfig(env, ['--port', '0', '--host=::1', '--log-level', 'warn']);
  assert.equal(c.port, 0);
  assert.equal(c.host, '::1');
  assert.equal(c.logLevel, 'warn');
});

test('bad settings are refused in one line naming the variable and the flag of each, and what was expected', () => {
  refused(
    () => loadConfig({ PORT: 'eighty' }, []),
    /^invalid configuration: PORT \(--port\): must be an integer from 0 to 65535, got "eighty"$/,
  );
  refused(
    () => loadConfig({ PORT: '70000', LOG_LEVEL: 'loud' }, []),
    /PORT \(--port\): must be an integer from 0 to 65535, got "70000"/,
    /LOG_LEVEL \(--log-level\): must be one of fatal, error, warn, info, debug, trace, silent, got "loud"/,
  );
  refused(
    () => loadConfig({}, ['--body-limit', '12']),
    /BODY_LIMIT \(--body-limit\): must be an integer of at least 1024/,
  );
  refused(
    () => loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'yes' }, []),
    /WEBHOOK_ALLOW_PRIVATE \(--webhook-allow-private\): must be true or false/,
  );
  refused(() => loadConfig({}, ['--port', '1.5']), /PORT \(--port\)/);
  refused(() => loadConfig({ HOST: ' ' }, []), /^invalid configuration: HOST \(--host\): must not be blank, got " "$/);
});

test('a setting that becomes a timer is refused above 2147483647 ms (a longer timer would fire at once)', () => {
  const timers = [
    'SHUTDOWN_GRACE_MS',
    'HEADERS_TIMEOUT_MS',
    'REQUEST_TIMEOUT_MS',
    'KEEP_ALIVE_TIMEOUT_MS',
    'WEBHOOK_TIMEOUT_MS',
    'DB_CONNECT_TIMEOUT_MS',
    'DB_STATEMENT_TIMEOUT_MS',
    'STREAM_HEARTBEAT_MS',
  ];
  for (const name of timers) {
    refused(() => loadConfig({ [name]: '3000000000' }, []), new RegExp(`${name} \\(--[a-z-]+\\): .*2147483647`));
    // The headers' timeout may not exceed the request's (a rule of its own): both at the bound.
    const largest = {
      [name]: '2147483647',
      ...(name === 'HEADERS_TIMEOUT_MS' ? { REQUEST_TIMEOUT_MS: '2147483647' } : {}),
    };
    assert.doesNotThrow(() => loadConfig(largest, []), name);
  }
});

test('unknown flags, flags without a value and stray arguments are refused in one line', () => {
  refused(() => loadConfig({}, ['--bogus', '1']), /^invalid configuration: unknown flag --bogus$/);
  refused(() => loadConfig({}, ['-p', '3000']), /unknown flag -p/);
  refused(() => loadConfig({}, ['--port']), /^invalid configuration: PORT \(--port\): the flag needs a value$/);
  refused(() => loadConfig({}, ['--port=']), /PORT \(--port\): the flag needs a value/);
  refused(() => loadConfig({}, ['--port', '--host', 'x']), /PORT \(--port\): the flag needs a value/, /argument "x"/);
  refused(() => loadConfig({}, ['3000']), /unexpected argument "3000"/);
});

test('webhook settings: the retry schedule becomes milliseconds at start; none means no retries', () => {
  const c = loadConfig({ WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s', WEBHOOK_ALLOW_PRIVATE: 'true' }, [
    '--webhook-timeout-ms',
    '500',
    '--webhook-history-days',
    '7',
  ]);
  assert.deepEqual(c.webhookRetrySchedule, [200, 500, 1_000]);
  assert.equal(c.webhookAllowPrivate, true);
  assert.equal(c.webhookTimeoutMs, 500);
  assert.equal(c.webhookHistoryDays, 7);
  assert.deepEqual(loadConfig({ WEBHOOK_RETRY_SCHEDULE: 'none' }, []).webhookRetrySchedule, []);
  assert.deepEqual(loadConfig({}, ['--webhook-retry-schedule', ' 1.5s, 2m ']).webhookRetrySchedule, [1_500, 120_000]);
  const name = /WEBHOOK_RETRY_SCHEDULE \(--webhook-retry-schedule\): /;
  refused(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: 'soon' }, []), name, /step 1: "soon" is not a duration/);
  refused(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1000h' }, []), name, /"1000h" is longer than the longest timer/);
  refused(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1s,,2s' }, []), name, /step 2/);
});

test('the request timeout may not be shorter than the headers timeout', () => {
  refused(
    () => loadConfig({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' }, []),
    /REQUEST_TIMEOUT_MS \(--request-timeout-ms\): must be at least HEADERS_TIMEOUT_MS \(5000\), got 1000/,
  );
});

test('parseDuration reads ms, s, m and h', () => {
  assert.equal(parseDuration('200ms'), 200);
  assert.equal(parseDuration('5s'), 5_000);
  assert.equal(parseDuration(' 5m '), 300_000);
  assert.equal(parseDuration('2h'), 7_200_000);
  assert.equal(parseDuration('1.5s'), 1_500);
  assert.equal(parseDuration('0ms'), 0);
});

test('parseDuration refuses anything else, saying why', () => {
  for (const bad of ['', '5', 'ms', '-1s', '5 d', '5d', '1e3ms', 's5', '5sec', '1,5s', '30d']) {
    assert.throws(() => parseDuration(bad), /is not a duration: a number and a unit/, bad);
  }
  for (const bad of ['1000h', '597h']) assert.throws(() => parseDuration(bad), /longer than the longest timer/, bad);
  assert.equal(parseDuration('596h'), 596 * 3_600_000);
});

test('parseSchedule reads a comma-separated list, none means no retries, and names a bad step', () => {
  assert.deepEqual(parseSchedule('200ms,500ms,1s'), [200, 500, 1_000]);
  assert.deepEqual(parseSchedule(' 5s, 5m ,30m,2h,5h,10h,10h '), [...DEFAULT_CONFIG.webhookRetrySchedule]);
  assert.deepEqual(parseSchedule('none'), []);
  assert.throws(() => parseSchedule(''), /empty: use "none"/);
  assert.throws(() => parseSchedule('200ms,,1s'), /^Error: step 2: "" is not a duration/);
  assert.throws(() => parseSchedule('200ms,fast'), /step 2: "fast" is not a duration/);
  assert.throws(() => parseSchedule('1s,'), /step 2/);
});

test('the webhook dispatcher built without settings uses the service defaults', () => {
  const s = resolveOptions({
    clock: systemClock,
    ids: randomIds,
    log: { info() {}, warn() {}, error() {}, debug() {} },
    allowPrivate: false,
  });
  assert.deepEqual(
    [s.retrySchedule, s.timeoutMs, s.concurrency, s.maxQueue, s.historyPerWebhook],
    [
      DEFAULT_CONFIG.webhookRetrySchedule,
      DEFAULT_CONFIG.webhookTimeoutMs,
      DEFAULT_CONFIG.webhookConcurrency,
      DEFAULT_CONFIG.webhookMaxQueue,
      DEFAULT_CONFIG.webhookHistory,
    ],
  );
});

test('docs/configuration.md lists every setting with its variable, flag and default', () => {
  const page = readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
  const rows = [...page.matchAll(/^\| `([A-Z_]+)` \| `(--[a-z-]+)` \| (?:`([^`]*)`|unset) \|/gm)];
  assert.equal(rows.length, Object.keys(DEFAULT_CONFIG).length, 'one row per setting');
  for (const [, variable, flag, documented] of rows) {
    // The documented default, given through the variable or the flag, is the default; `unset` has none.
    const text = documented ?? '';
    assert.deepEqual(loadConfig({ [variable!]: text }, []), DEFAULT_CONFIG, variable);
    if (documented !== undefined) assert.deepEqual(loadConfig({}, [flag!, text]), DEFAULT_CONFIG, flag);
    else {
      const key = variable!.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
      assert.ok(key in DEFAULT_CONFIG && DEFAULT_CONFIG[key as keyof Config] === undefined, `${variable} is unset`);
    }
    // The variable and the flag name the same setting.
    refused(() => loadConfig({}, [`${flag}=`]), new RegExp(`^invalid configuration: ${variable} \\(${flag}\\):`));
  }
});

test('storage settings: memory by default; a folder or a server; both at once is refused in one line', () => {
  const c = loadConfig({}, []);
  assert.deepEqual(
    [c.dataDir, c.databaseUrl, c.resetData, c.dbConnectTimeoutMs, c.dbStatementTimeoutMs, c.dbPoolSize],
    [undefined, undefined, false, 10_000, 10_000, 10],
  );
  assert.equal(c.activityLogMax, 1_000_000);
  const durable = loadConfig({ DATA_DIR: './data', RESET_DATA: 'true' }, ['--db-pool-size', '4']);
  assert.deepEqual([durable.dataDir, durable.resetData, durable.dbPoolSize], ['./data', true, 4]);
  const url = 'postgres://pm:s3cret@db.example:5433/pm';
  const server = loadConfig({}, ['--database-url', url, '--reset-data', 'true', '--db-statement-timeout-ms', '500']);
  assert.deepEqual([server.databaseUrl, server.resetData, server.dbStatementTimeoutMs], [url, true, 500]);
  assert.equal(loadConfig({ DATABASE_URL: 'postgresql://db/pm' }, []).databaseUrl, 'postgresql://db/pm');
  assert.equal(loadConfig({ ACTIVITY_LOG_MAX: '5' }, []).activityLogMax, 5);

  refused(
    () => loadConfig({ DATA_DIR: './data' }, ['--database-url', url]),
    /^invalid configuration: DATA_DIR \(--data-dir\) and DATABASE_URL \(--database-url\) are both set: choose one/,
  );
  // A URL that is not PostgreSQL's is refused without repeating it: it may hold a password.
  assert.throws(
    () => loadConfig({ DATABASE_URL: 'mysql://root:hunter2@db/pm' }, []),
    (e: Error) => {
      assert.match(e.message, /^invalid configuration: DATABASE_URL \(--database-url\): must be a postgres:\/\//);
      assert.doesNotMatch(e.message, /hunter2/);
      return e instanceof ConfigError;
    },
  );
  // Not a URL node-postgres can read (a port past 65535, not a number, a broken IPv6 host): refused here, exit 2.
  for (const bad of ['postgres://pm@db:99999/pm', 'postgres://pm@db:abc/pm', 'postgres://pm@[bad/pm']) {
    refused(() => loadConfig({ DATABASE_URL: bad }, []), /DATABASE_URL \(--database-url\): must be a postgres:\/\//);
  }
  const socket = 'postgres://pm@/pm?host=/var/run/postgresql';
  assert.equal(loadConfig({ DATABASE_URL: socket }, []).databaseUrl, socket);
  refused(() => loadConfig({ RESET_DATA: 'yes' }, []), /RESET_DATA \(--reset-data\): must be true or false/);
  refused(() => loadConfig({ DB_POOL_SIZE: '0' }, []), /DB_POOL_SIZE \(--db-pool-size\): must be an integer from 1/);
  refused(() => loadConfig({ ACTIVITY_LOG_MAX: '0' }, []), /ACTIVITY_LOG_MAX \(--activity-log-max\): must be an/);
  refused(() => loadConfig({ DB_CONNECT_TIMEOUT_MS: '5s' }, []), /DB_CONNECT_TIMEOUT_MS \(--db-connect-timeout-ms\)/);
});

test('AUTH is none by default; token needs ADMIN_TOKEN of 32 or more printable characters, never repeated in a message', () => {
  assert.equal(DEFAULT_CONFIG.auth, 'none');
  assert.equal(DEFAULT_CONFIG.adminToken, undefined);
  assert.equal(DEFAULT_CONFIG.rateLimit, undefined);
  const secret = 'x'.repeat(32);
  const c = loadConfig({ AUTH: 'token', ADMIN_TOKEN: ` ${secret} ` }, []);
  assert.deepEqual([c.auth, c.adminToken], ['token', secret]);
  assert.equal(loadConfig({}, ['--auth', 'token', '--admin-token', secret]).adminToken, secret);
  refused(
    () => loadConfig({ AUTH: 'token' }, []),
    /^invalid configuration: ADMIN_TOKEN \(--admin-token\): is required with AUTH=token/,
  );
  const short = 'short-secret-value';
  assert.throws(
    () => loadConfig({ AUTH: 'token', ADMIN_TOKEN: short }, []),
    (e: Error) =>
      e instanceof ConfigError &&
      /^invalid configuration: ADMIN_TOKEN \(--admin-token\): must be at least 32 characters long$/.test(e.message) &&
      !e.message.includes(short),
  );
  // A value no header could carry as a token (auth.ts reads printable ASCII without spaces) is refused at start.
  for (const unsendable of ['correct horse battery staple 0123456789', `adm_${'ñ'.repeat(32)}`]) {
    assert.throws(
      () => loadConfig({ AUTH: 'token', ADMIN_TOKEN: unsendable }, []),
      (e: Error) =>
        e instanceof ConfigError &&
        /ADMIN_TOKEN \(--admin-token\): must be printable ASCII without spaces/.test(e.message) &&
        !e.message.includes(unsendable),
    );
  }
  refused(() => loadConfig({ AUTH: 'basic' }, []), /AUTH \(--auth\): must be one of none, token, got "basic"/);
});

test('RATE_LIMIT is <requests>/<window>: 600/1m; anything else is refused naming it', () => {
  assert.deepEqual(loadConfig({ RATE_LIMIT: '600/1m' }, []).rateLimit, { max: 600, windowMs: 60_000 });
  assert.deepEqual(loadConfig({}, ['--rate-limit', '5/500ms']).rateLimit, { max: 5, windowMs: 500 });
  for (const bad of ['600', '600/', '0/1m', '-1/1m', '600/minute', '600/60', 'x/1m', '1.5/1s']) {
    refused(() => loadConfig({ RATE_LIMIT: bad }, []), /^invalid configuration: RATE_LIMIT \(--rate-limit\): /);
  }
});

test('event stream settings: STREAM_FLUSH_MS from 0 (every turn) to 1000, 20 by default', () => {
  assert.equal(DEFAULT_CONFIG.streamFlushMs, 20);
  assert.equal(loadConfig({ STREAM_FLUSH_MS: '0' }, []).streamFlushMs, 0);
  assert.equal(loadConfig({}, ['--stream-flush-ms', '100']).streamFlushMs, 100);
  refused(
    () => loadConfig({ STREAM_FLUSH_MS: '1001' }, []),
    /^invalid configuration: STREAM_FLUSH_MS \(--stream-flush-ms\): must be an integer from 0 to 1000, got "1001"$/,
  );
  refused(() => loadConfig({ STREAM_FLUSH_MS: '-1' }, []), /STREAM_FLUSH_MS \(--stream-flush-ms\): must be an integer/);
  refused(() => loadConfig({ STREAM_FLUSH_MS: '20ms' }, []), /STREAM_FLUSH_MS \(--stream-flush-ms\)/);
  assert.deepEqual(
    [DEFAULT_CONFIG.streamHeartbeatMs, DEFAULT_CONFIG.streamMaxClients, DEFAULT_CONFIG.streamClientBufferBytes],
    [15_000, 1_000, 1_048_576],
  );
  refused(() => loadConfig({ STREAM_HEARTBEAT_MS: '99' }, []), /STREAM_HEARTBEAT_MS \(--stream-heartbeat-ms\)/);
});

test('STREAM_FLUSH_MAX_MS: 100 by default, from 0 to 1000', () => {
  assert.equal(DEFAULT_CONFIG.streamFlushMaxMs, 100);
  assert.equal(loadConfig({ STREAM_FLUSH_MAX_MS: '0' }, []).streamFlushMaxMs, 0);
  assert.equal(loadConfig({}, ['--stream-flush-max-ms', '250']).streamFlushMaxMs, 250);
  // Below STREAM_FLUSH_MS is no error: the interval is then fixed (src/stream/pace.ts).
  assert.equal(loadConfig({ STREAM_FLUSH_MS: '200' }, []).streamFlushMaxMs, 100);
  refused(
    () => loadConfig({ STREAM_FLUSH_MAX_MS: '1001' }, []),
    /^invalid configuration: STREAM_FLUSH_MAX_MS \(--stream-flush-max-ms\): must be an integer from 0 to 1000, got "1001"$/,
  );
  refused(() => loadConfig({ STREAM_FLUSH_MAX_MS: '1s' }, []), /STREAM_FLUSH_MAX_MS \(--stream-flush-max-ms\)/);
});

test('STREAM_COMPRESSION: on by default, false turns it off, anything else is refused', () => {
  assert.equal(DEFAULT_CONFIG.streamCompression, true);
  assert.equal(loadConfig({ STREAM_COMPRESSION: 'false' }, []).streamCompression, false);
  assert.equal(loadConfig({}, ['--stream-compression', 'false']).streamCompression, false);
  refused(
    () => loadConfig({ STREAM_COMPRESSION: 'no' }, []),
    /^invalid configuration: STREAM_COMPRESSION \(--stream-compression\): must be true or false, got "no"$/,
  );
});
