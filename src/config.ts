import { parseArgs } from 'node:util';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import {
  ADMIN_TOKEN_MIN,
  ConfigSchema,
  envName,
  flagName,
  MAX_DELAY_MS,
  type Config,
  type Settings,
} from './config-schema.ts';

export type { Config } from './config-schema.ts';

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** `'200ms'`, `'5s'`, `'1.5m'`, `'2h'` → milliseconds. Throws on anything else (a bare number has no unit). */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  if (!match) {
    throw new Error(
      `${JSON.stringify(text)} is not a duration: a number and a unit (ms, s, m or h), e.g. 500ms, 5s, 2h`,
    );
  }
  const ms = Math.round(Number(match[1]) * UNITS[match[2]!]!);
  if (ms > MAX_DELAY_MS)
    throw new Error(`${JSON.stringify(text)} is longer than the longest timer, ${MAX_DELAY_MS} ms`);
  return ms;
}

/** A retry schedule: comma-separated durations, e.g. `'200ms,500ms,1s'`, or `none` for no retries. Names a bad step. */
export function parseSchedule(text: string): number[] {
  const trimmed = text.trim();
  if (trimmed === 'none') return [];
  if (trimmed === '') throw new Error('is empty: use "none" for no retries');
  return trimmed.split(',').map((step, i) => {
    try {
      return parseDuration(step);
    } catch (err) {
      throw new Error(`step ${i + 1}: ${(err as Error).message}`, { cause: err });
    }
  });
}

/** `'600/1m'` → at most 600 requests a minute; the window is a duration (`parseDuration`). Throws why not. */
export function parseRateLimit(text: string): { max: number; windowMs: number } {
  const match = /^(\d+)\/(.+)$/.exec(text.trim());
  if (!match || Number(match[1]) < 1 || !Number.isSafeInteger(Number(match[1]))) {
    throw new Error(`${JSON.stringify(text)} is not a rate limit: <requests>/<window>, e.g. 600/1m`);
  }
  const windowMs = parseDuration(match[2]!);
  if (windowMs < 1) throw new Error(`${JSON.stringify(text)}: the window must be at least 1ms`);
  return { max: Number(match[1]), windowMs };
}

/** Settings whose values are secrets: a message about one never repeats its value. */
const SECRETS = new Set<string>(['adminToken']);

type Key = keyof Config;

/** How a message names a setting: its variable and its flag. */
const settingName = (key: Key) => `${envName(key)} (--${flagName(key)})`;
const KEYS = Object.keys(ConfigSchema.properties) as Key[];
// Each setting's schema is a TypeBox one of its own kind; what the messages read of them is common to all, and the
// union of their types does not show it.
const schemaOf = (key: Key) => ConfigSchema.properties[key] as unknown as TSchema & SchemaFacts;
interface SchemaFacts {
  type?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  default: unknown;
}

/** A bad setting or argument. Its message is one line, fit to be shown as it is. */
export class ConfigError extends Error {}

/** What a setting's schema asks for, in words. */
function expectation(schema: SchemaFacts): string {
  if (schema.enum) return `must be one of ${schema.enum.join(', ')}`;
  if (schema.type === 'boolean') return 'must be true or false';
  if (schema.type === 'integer') {
    return schema.maximum === undefined
      ? `must be an integer of at least ${schema.minimum}`
      : `must be an integer from ${schema.minimum} to ${schema.maximum}`;
  }
  return 'must not be blank';
}

/** Text to the value its schema asks for; throws with the reason when it is not one. */
function parseSetting(key: Key, text: string): unknown {
  const schema = schemaOf(key);
  const t = text.trim();
  if (schema.type === 'array') return Object.freeze(parseSchedule(t));
  if (schema.type === 'object') return Object.freeze(parseRateLimit(t));
  if (SECRETS.has(key)) {
    if (!Value.Check(schema, t)) throw new Error(`must be at least ${ADMIN_TOKEN_MIN} characters long`);
    // What a header can carry as a token (auth.ts): a space or a letter beyond ASCII could never be sent.
    if (!/^[\x21-\x7e]+$/.test(t)) {
      throw new Error('must be printable ASCII without spaces (a token is sent in a header)');
    }
    return t;
  }
  const value =
    schema.type === 'integer' && /^-?\d+$/.test(t)
      ? Number(t)
      : schema.type === 'boolean' && (t === 'true' || t === 'false')
        ? t === 'true'
        : t;
  if (!Value.Check(schema, value)) throw new Error(`${expectation(schema)}, got ${JSON.stringify(text)}`);
  return value;
}

/** The flags given, by setting; anything else (an unknown flag, a flag without a value, a stray word) is a problem. */
function readFlags(argv: string[], problems: string[]): Partial<Record<Key, string>> {
  const byFlag = new Map(KEYS.map((k) => [flagName(k), k]));
  const { tokens } = parseArgs({
    args: argv,
    options: Object.fromEntries(KEYS.map((k) => [flagName(k), { type: 'string' as const }])),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const flags: Partial<Record<Key, string>> = {};
  let afterUnknown = -1; // the index just past an unknown flag: the word there is taken for its value
  for (const token of tokens) {
    if (token.kind === 'positional') {
      if (token.index !== afterUnknown) problems.push(`unexpected argument ${JSON.stringify(token.value)}`);
    } else if (token.kind === 'option') {
      const key = byFlag.get(token.name);
      if (key === undefined) {
        problems.push(`unknown flag ${token.rawName}`);
        afterUnknown = token.index + 1;
      } else if (
        token.value === undefined ||
        token.value === '' ||
        (!token.inlineValue && token.value.startsWith('--'))
      ) {
        problems.push(`${settingName(key)}: the flag needs a value`);
      } else {
        flags[key] = token.value;
      }
    }
  }
  return flags;
}

/**
 * Whether node-postgres can read `url` as a URL: as it does, with a stand-in host where there is none before the
 * database (`postgres://user@/db?host=/var/run/postgresql`). A port past 65535 or a broken IPv6 host is not one.
 */
function isUrl(url: string): boolean {
  return [url, url.replace('@/', '@localhost/')].some((candidate) => URL.canParse(candidate));
}

/**
 * Reads every setting from the environment and the flags (flags win) into its final typed value, and freezes the
 * result. An unset or empty variable means the default. Throws one `ConfigError` naming every problem.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv.slice(2)): Config {
  const problems: string[] = [];
  const flags = readFlags(argv, problems);
  const config: Record<string, unknown> = {};
  for (const key of KEYS) {
    const text = flags[key] ?? env[envName(key)];
    if (text === undefined || text === '') {
      config[key] = schemaOf(key).default;
      continue;
    }
    try {
      config[key] = parseSetting(key, text);
    } catch (err) {
      problems.push(`${settingName(key)}: ${(err as Error).message}`);
    }
  }
  const { headersTimeoutMs, requestTimeoutMs } = config as Settings;
  if (requestTimeoutMs < headersTimeoutMs) {
    problems.push(
      `${settingName('requestTimeoutMs')}: must be at least ${envName('headersTimeoutMs')} (${headersTimeoutMs}), ` +
        `got ${requestTimeoutMs}`,
    );
  }
  const { dataDir, databaseUrl } = config as Settings;
  if (dataDir !== undefined && databaseUrl !== undefined) {
    problems.push(
      `${settingName('dataDir')} and ${settingName('databaseUrl')} are both set: choose one, ` +
        'an embedded database in a folder or a PostgreSQL server',
    );
  }
  // The URL holds a password: the message says what is expected and never repeats the value.
  if (databaseUrl !== undefined && !(/^postgres(ql)?:\/\/\S*$/.test(databaseUrl) && isUrl(databaseUrl))) {
    problems.push(`${settingName('databaseUrl')}: must be a postgres:// or postgresql:// URL`);
  }
  const { auth, adminToken } = config as Settings;
  if (auth === 'token' && adminToken === undefined && !problems.some((p) => p.startsWith(envName('adminToken')))) {
    problems.push(
      `${settingName('adminToken')}: is required with ${envName('auth')}=token ` +
        `(a secret of at least ${ADMIN_TOKEN_MIN} characters; its holder is the admin)`,
    );
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  return Object.freeze(config as Config);
}

/** Every setting at its default: the one source of the defaults, for code built without `loadConfig`. */
export const DEFAULT_CONFIG: Config = loadConfig({}, []);
