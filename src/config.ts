import { parseArgs } from 'node:util';
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { StringEnum } from './schemas/common.ts';

/** Everything the service can be told at start, from the environment or the command line (flags win). */
export const ConfigSchema = Type.Object({
  host: Type.String({ minLength: 1, default: '127.0.0.1' }),
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  logLevel: StringEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  /** Largest accepted request body, in bytes. */
  bodyLimit: Type.Integer({ minimum: 1024, default: 1_048_576 }),
  /** How long in-flight requests (and webhook deliveries) may take to finish after SIGINT/SIGTERM, in ms. */
  shutdownGraceMs: Type.Integer({ minimum: 0, default: 10_000 }),
  /** A client must send a request's complete headers within this time (else 408 and the connection closes). */
  headersTimeoutMs: Type.Integer({ minimum: 100, default: 10_000 }),
  /** A client must send a whole request, headers and body, within this time (else 408); at least `headersTimeoutMs`. */
  requestTimeoutMs: Type.Integer({ minimum: 100, default: 30_000 }),
  /** An idle keep-alive connection is closed after this long without a new request. */
  keepAliveTimeoutMs: Type.Integer({ minimum: 100, default: 72_000 }),
  /** Largest request line plus headers, in bytes; larger ones get `431`. */
  maxHeaderSize: Type.Integer({ minimum: 1024, maximum: 1_048_576, default: 16_384 }),
  /** Open connections accepted at once; connections beyond it are closed at once. */
  maxConnections: Type.Integer({ minimum: 1, default: 10_000 }),
  /** Waits between webhook delivery attempts, e.g. `200ms,500ms,1s`. */
  webhookRetrySchedule: Type.String({
    pattern: '^\\s*\\d+(\\.\\d+)?\\s*(ms|s|m|h)\\s*(,\\s*\\d+(\\.\\d+)?\\s*(ms|s|m|h)\\s*)*$',
    default: '5s,5m,30m,2h,5h,10h,10h',
  }),
  webhookTimeoutMs: Type.Integer({ minimum: 100, default: 10_000 }),
  /** Deliver to loopback, private, link-local and metadata addresses too. */
  webhookAllowPrivate: Type.Boolean({ default: false }),
  webhookConcurrency: Type.Integer({ minimum: 1, maximum: 1000, default: 16 }),
  webhookMaxQueue: Type.Integer({ minimum: 1, default: 10_000 }),
  webhookHistory: Type.Integer({ minimum: 1, maximum: 10_000, default: 100 }),
});
export type Config = Readonly<Static<typeof ConfigSchema>>;
type Key = keyof Config;

const envName = (key: Key) => key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase(); // webhookTimeoutMs → WEBHOOK_TIMEOUT_MS
const flagName = (key: Key) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`); // webhookTimeoutMs → webhook-timeout-ms
const KEYS = Object.keys(ConfigSchema.properties) as Key[];
const validator = Compile(ConfigSchema);

export class ConfigError extends Error {}

/** Text to the type its schema asks for; anything unreadable is left as text for the validator to name. */
function convert(key: Key, text: string): unknown {
  const type = (ConfigSchema.properties[key] as { type?: string }).type;
  const t = text.trim();
  if (type === 'integer' && /^-?\d+$/.test(t)) return Number(t);
  if (type === 'boolean' && (t === 'true' || t === 'false')) return t === 'true';
  return t;
}

/** Reads, validates and freezes the configuration. Throws `ConfigError` naming every bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv.slice(2)): Config {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(KEYS.map((k) => [flagName(k), { type: 'string' as const }])),
    strict: true,
  });
  const raw: Record<string, unknown> = {};
  for (const key of KEYS) {
    const text = (values[flagName(key)] as string | undefined) ?? env[envName(key)];
    raw[key] =
      text === undefined || text === ''
        ? (ConfigSchema.properties[key] as unknown as { default: unknown }).default
        : convert(key, text);
  }
  if (!validator.Check(raw)) {
    const problems = [...validator.Errors(raw)].map((e) => {
      const key = e.instancePath.slice(1) as Key;
      return `${envName(key)} (--${flagName(key)}): ${e.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  if ((raw.requestTimeoutMs as number) < (raw.headersTimeoutMs as number)) {
    throw new ConfigError(
      `Invalid configuration:\n  ${envName('requestTimeoutMs')} (--${flagName('requestTimeoutMs')}): must be at least ${envName('headersTimeoutMs')} (${String(raw.headersTimeoutMs)})`,
    );
  }
  return Object.freeze(raw as Config);
}
