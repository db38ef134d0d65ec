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
  /** How long in-flight requests may take to finish after SIGINT/SIGTERM, in milliseconds. */
  shutdownGraceMs: Type.Integer({ minimum: 0, default: 10_000 }),
});
export type Config = Readonly<Static<typeof ConfigSchema>>;

const ENV: Record<keyof Config, string> = {
  host: 'HOST',
  port: 'PORT',
  logLevel: 'LOG_LEVEL',
  bodyLimit: 'BODY_LIMIT',
  shutdownGraceMs: 'SHUTDOWN_GRACE_MS',
};
const FLAGS: Record<keyof Config, string> = {
  host: 'host',
  port: 'port',
  logLevel: 'log-level',
  bodyLimit: 'body-limit',
  shutdownGraceMs: 'shutdown-grace-ms',
};
const INTEGER_KEYS = new Set<keyof Config>(['port', 'bodyLimit', 'shutdownGraceMs']);
const validator = Compile(ConfigSchema);

export class ConfigError extends Error {}

/** Reads, validates and freezes the configuration. Throws `ConfigError` naming every bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv.slice(2)): Config {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(Object.values(FLAGS).map((f) => [f, { type: 'string' as const }])),
    strict: true,
  });
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ENV) as (keyof Config)[]) {
    const text = (values[FLAGS[key]] as string | undefined) ?? env[ENV[key]];
    if (text === undefined || text === '') {
      raw[key] = (ConfigSchema.properties[key] as unknown as { default: unknown }).default;
    } else {
      raw[key] = INTEGER_KEYS.has(key) && /^-?\d+$/.test(text.trim()) ? Number(text) : text.trim();
    }
  }
  if (!validator.Check(raw)) {
    const problems = [...validator.Errors(raw)].map((e) => {
      const key = e.instancePath.slice(1) as keyof Config;
      return `${ENV[key] ?? key} (--${FLAGS[key] ?? key}): ${e.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return Object.freeze(raw as Config);
}
