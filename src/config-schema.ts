import { Type, type Static } from 'typebox';
import { StringEnum } from './schemas/common.ts';
import { DELIVERY_DEFAULTS } from './webhooks/options.ts';

/**
 * setTimeout's largest delay (about 24.8 days); a longer one would fire at once. The bound of every setting that
 * becomes a timer or a socket timeout.
 */
export const MAX_DELAY_MS = 2_147_483_647;

/** The shortest `ADMIN_TOKEN` accepted. */
export const ADMIN_TOKEN_MIN = 32;

/**
 * The settings: each one's schema, default and meaning, the one definition that loading (config.ts), the messages
 * and docs/configuration.md read.
 */

/** Everything the service can be told at start, from the environment or the command line (flags win). */
export const ConfigSchema = Type.Object({
  host: Type.String({
    description: 'Address to listen on (`0.0.0.0` for every interface)',
    minLength: 1,
    default: '127.0.0.1',
  }),
  port: Type.Integer({
    description: 'Port to listen on (`0` picks a free one)',
    minimum: 0,
    maximum: 65535,
    default: 3000,
  }),
  logLevel: StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    description:
      "`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`; logs are JSON lines (pino) on stdout, those of one turn of the event loop written together at its end (a reader of stdout that stalls makes the service wait, as Node's own stdout does); at `info`, one line per request when it completes (`reqId`, method, url, status, response time), and one (`request refused`: `reqId`, status, the parser's code) for what the HTTP parser refuses before there is a request (`408`, `431`, bytes that are not HTTP; `CONNECT`); `warn` leaves those lines out",
    default: 'info',
  }),
  logFormat: Type.Optional(
    StringEnum(['json', 'pretty'], {
      description:
        '`json`: one JSON line per entry (pino), for a log collector; `pretty`: one coloured, human-readable line per entry (pino-pretty), for a person at a terminal. Unset: `pretty` when stdout is a terminal, `json` otherwise',
    }),
  ),
  metrics: Type.Boolean({
    description:
      '`GET /metrics` in the Prometheus text format (see [Monitoring](monitoring.md)); with `AUTH=token` it needs a token with the `admin` scope. `false`: no metrics, nothing collected',
    default: true,
  }),
  metricsPort: Type.Optional(
    Type.Integer({
      description:
        "Serve `GET /metrics` on a listener of its own on this port (on `METRICS_HOST`, no token), and not on the service's port",
      minimum: 0,
      maximum: 65535,
    }),
  ),
  metricsHost: Type.String({
    description: 'Address of the metrics listener of `METRICS_PORT`',
    minLength: 1,
    default: '127.0.0.1',
  }),
  bodyLimit: Type.Integer({
    description:
      'Largest request body in bytes; larger ones get `413 PAYLOAD_TOO_LARGE`, then the connection closes once the client has stopped sending (what still comes is read and dropped, for up to 5 s, so that the client reads the answer)',
    minimum: 1024,
    default: 1_048_576,
  }),
  shutdownGraceMs: Type.Integer({
    description:
      'On SIGINT/SIGTERM the listener closes at once and requests in flight and webhook attempts in flight get this long to finish (their answers close their connections); attempts unfinished then are left in the outbox for retry by the next start or another instance, not dropped. Replaces `WEBHOOK_CLOSE_GRACE_MS` (removed)',
    minimum: 0,
    maximum: MAX_DELAY_MS,
    default: 10_000,
  }),
  headersTimeoutMs: Type.Integer({
    description:
      "A client must send a request's complete headers within this time, else `408 REQUEST_TIMEOUT` and the connection is closed (also closes connections that send nothing)",
    minimum: 100,
    maximum: MAX_DELAY_MS,
    default: 10_000,
  }),
  requestTimeoutMs: Type.Integer({
    description:
      'A client must send a whole request, headers and body, within this time, else `408 REQUEST_TIMEOUT`; at least `HEADERS_TIMEOUT_MS`',
    minimum: 100,
    maximum: MAX_DELAY_MS,
    default: 30_000,
  }),
  keepAliveTimeoutMs: Type.Integer({
    description: 'An idle keep-alive connection is closed after this long without a new request',
    minimum: 100,
    maximum: MAX_DELAY_MS,
    default: 72_000,
  }),
  maxHeaderSize: Type.Integer({
    description: 'Largest request line plus headers in bytes; larger ones get `431 HEADERS_TOO_LARGE`',
    minimum: 1024,
    maximum: 1_048_576,
    default: 16_384,
  }),
  maxConnections: Type.Integer({
    description: 'Open connections accepted at once; a connection beyond it is closed as soon as it is accepted',
    minimum: 1,
    default: 10_000,
  }),
  webhookRetrySchedule: Type.Array(Type.Integer({ minimum: 0, maximum: MAX_DELAY_MS }), {
    description:
      'Waits before each retry of a failed delivery (`ms`, `s`, `m`, `h`), e.g. `200ms,500ms,1s`; `none` for no retries',
    default: DELIVERY_DEFAULTS.retrySchedule,
  }),
  webhookTimeoutMs: Type.Integer({
    description: 'Time a receiver has to answer one delivery attempt',
    minimum: 100,
    maximum: MAX_DELAY_MS,
    default: DELIVERY_DEFAULTS.timeoutMs,
  }),
  webhookAllowPrivate: Type.Boolean({
    description:
      '`true` lets deliveries go to loopback, private, link-local and metadata addresses (for local development)',
    default: false,
  }),
  webhookConcurrency: Type.Integer({
    description: 'Delivery requests in flight at once; the rest wait their turn',
    minimum: 1,
    maximum: 1000,
    default: DELIVERY_DEFAULTS.concurrency,
  }),
  webhookConcurrencyPerWebhook: Type.Integer({
    description:
      'Attempts in flight at once to one webhook (per instance): a receiver that hangs holds at most these of the `WEBHOOK_CONCURRENCY` slots',
    minimum: 1,
    maximum: 1000,
    default: DELIVERY_DEFAULTS.perWebhookConcurrency,
  }),
  webhookMaxQueue: Type.Integer({
    description:
      'Memory store: deliveries alive at once (waiting, in flight or due for a retry); more are recorded failed `queue full`. A durable store keeps every one',
    minimum: 1,
    default: DELIVERY_DEFAULTS.maxQueue,
  }),
  webhookHistory: Type.Integer({
    description:
      'Memory store: delivery attempts kept per webhook in its delivery log (a durable store keeps them by age: `WEBHOOK_HISTORY_DAYS`)',
    minimum: 1,
    maximum: 10_000,
    default: DELIVERY_DEFAULTS.historyPerWebhook,
  }),
  webhookHistoryDays: Type.Integer({
    description:
      'With `DATA_DIR` or `DATABASE_URL`: days the delivery log keeps attempts (pruned hourly); redelivery works for any of them',
    minimum: 1,
    maximum: 3650,
    default: DELIVERY_DEFAULTS.historyDays,
  }),
  webhookPollMs: Type.Integer({
    description:
      'With `DATA_DIR` or `DATABASE_URL`: how often the outbox is looked at for due deliveries no notification announced (a backstop; new deliveries wake the workers at once)',
    minimum: 50,
    maximum: 3_600_000,
    default: DELIVERY_DEFAULTS.pollMs,
  }),
  dataDir: Type.Optional(
    Type.String({
      description:
        'Keep the records in an embedded PostgreSQL in this folder (created if missing); they survive restarts (see [Storage](storage.md))',
      minLength: 1,
    }),
  ),
  databaseUrl: Type.Optional(
    Type.String({
      description:
        'Keep the records in this PostgreSQL server, `postgres://user:password@host:5432/database`; they survive restarts. Not with `DATA_DIR` (both set: exit 2)',
      minLength: 1,
    }),
  ),
  resetData: Type.Boolean({
    description:
      '`true`: at start, empty the durable store and load the sample records (or `SEED_FILE`) again (the seeded webhooks get new secrets). Memory always starts from them',
    default: false,
  }),
  seedFile: Type.Optional(
    Type.String({
      description:
        'A data file to start from instead of the sample records (see [Data files](data-files.md)): loaded at every start in memory, into an empty `DATA_DIR` or `DATABASE_URL` store, and on `RESET_DATA=true`. Checked whole first: a bad or unreadable file stops the start with exit 2 and one line per problem',
      minLength: 1,
    }),
  ),
  dbConnectTimeoutMs: Type.Integer({
    description:
      'At start, how long the PostgreSQL server may stay unreachable (tried again and again) before the service exits 1 with one line naming its host; while running, how long opening one connection may take',
    minimum: 100,
    maximum: MAX_DELAY_MS,
    default: 10_000,
  }),
  dbStatementTimeoutMs: Type.Integer({
    description:
      "Longest time one SQL statement may run (PostgreSQL's `statement_timeout`); a request whose statement runs longer is answered `503 SERVICE_UNAVAILABLE`",
    minimum: 100,
    maximum: MAX_DELAY_MS,
    default: 10_000,
  }),
  dbPoolSize: Type.Integer({
    description:
      'Connections this instance keeps to the PostgreSQL server at most for requests (the delivery workers and the two listeners have four more)',
    minimum: 1,
    maximum: 1000,
    default: 10,
  }),
  activityLogMax: Type.Integer({
    description:
      'In memory (neither `DATA_DIR` nor `DATABASE_URL`), the activity log keeps at most this many entries, the oldest dropped, so memory stays bounded',
    minimum: 1,
    default: 1_000_000,
  }),
  checkNestedTransactions: Type.Boolean({
    description:
      "Refuse a store transaction opened inside another (a programming error of the service's own, which would otherwise wait forever), with a 500 naming it. On Node 20 and 22 the check keeps an async context that every promise of the process pays for (about a tenth of the speed of a write; see bench/README.md), so it is off unless set; on Node 24 it costs nothing and is always on. The tests run with it on",
    default: false,
  }),
  auth: StringEnum(['none', 'token'], {
    description:
      '`none`: no authentication, as the interface document says; `token`: every `/api` request but the health checks, the OpenAPI document and the data file schema needs an API token (see [Running it: for a team](running.md#for-a-team-tokens-scopes-rate-limits))',
    default: 'none',
  }),
  adminToken: Type.Optional(
    Type.String({
      description:
        'With `AUTH=token`, required: a secret of at least 32 printable ASCII characters, no spaces (it is sent in a header), that acts as a token with the `admin` scope, username `admin` (without it the service exits 2 naming this variable). Prefer the variable to the flag, which other users of the machine can see in the process list',
      minLength: ADMIN_TOKEN_MIN,
    }),
  ),
  rateLimit: Type.Optional(
    Type.Object(
      { max: Type.Integer({ minimum: 1 }), windowMs: Type.Integer({ minimum: 1, maximum: MAX_DELAY_MS }) },
      {
        description:
          '`<requests>/<window>`, e.g. `600/1m` (window in `ms`, `s`, `m` or `h`): at most that many requests per window per token, or per client address for requests without a valid token; over it, `429 RATE_LIMITED`. Unset: no limit. Per instance',
      },
    ),
  ),
  streamReplay: Type.Integer({
    description:
      'In memory, the [event stream](event-stream.md) keeps its last this many events for clients that resume',
    minimum: 1,
    maximum: 10_000_000,
    default: 10_000,
  }),
  streamRetentionMs: Type.Integer({
    description:
      "On the durable stores, the event stream's table keeps events this long (one day) for clients that resume",
    minimum: 1_000,
    default: 86_400_000,
  }),
  streamHeartbeatMs: Type.Integer({
    description:
      'A comment line (`: keep-alive`) goes to every event stream client this often, so that proxies keep idle streams open',
    minimum: 100,
    maximum: MAX_DELAY_MS,
    default: 15_000,
  }),
  streamMaxClients: Type.Integer({
    description: 'Event stream clients connected at once; more get `503 SERVICE_UNAVAILABLE` with `Retry-After`',
    minimum: 1,
    default: 1_000,
  }),
  streamClientBufferBytes: Type.Integer({
    description:
      "Bytes sent to an event stream client (compressed, on a gzip stream) and not yet taken by it beyond which it is disconnected (it may resume), so a client that does not read never grows the service's memory",
    minimum: 4_096,
    default: 1_048_576,
  }),
  streamFlushMs: Type.Integer({
    description:
      'Events committed within this many ms go to each event stream client in one write (a change waits at most this long before it is sent, unless the service is saturated: `STREAM_FLUSH_MAX_MS`); `0`: at the end of every turn of the event loop. Longer costs the write path less with many clients connected',
    minimum: 0,
    maximum: 1_000,
    default: 20,
  }),
  streamFlushMaxMs: Type.Integer({
    description:
      "While the service's event loop is saturated (work waits), the interval between event stream writes grows, 1.5 times every 100 ms or so, up to this many ms: fewer writes, each of more events, leave more of the service to the requests. It goes back to `STREAM_FLUSH_MS` once the loop is not saturated, where it stays at normal load. At or below `STREAM_FLUSH_MS` (`0` too): always `STREAM_FLUSH_MS`",
    minimum: 0,
    maximum: 1_000,
    default: 100,
  }),
  streamCompression: Type.Boolean({
    description:
      "Event streams are gzip-compressed for the clients whose `Accept-Encoding` takes gzip (browsers do), each flush's text compressed once for all the clients of the same filter; `false`: never",
    default: true,
  }),
});
export type Settings = Static<typeof ConfigSchema>;
export type Config = Readonly<Omit<Settings, 'webhookRetrySchedule'> & { webhookRetrySchedule: readonly number[] }>;
type Key = keyof Config;

export const envName = (key: Key) => key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase(); // webhookTimeoutMs → WEBHOOK_TIMEOUT_MS
export const flagName = (key: Key) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`); // webhookTimeoutMs → webhook-timeout-ms
