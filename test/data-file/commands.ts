import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `npm run <name> -- …` as npm does (package.json: `tsx scripts/<name>.ts`), on the node running the tests,
 * without the store settings of the environment: only the arguments name the store.
 */
export function run(name: 'export' | 'import', args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const clean = { ...process.env, ...env };
  if (!('DATABASE_URL' in env)) delete clean.DATABASE_URL;
  if (!('DATA_DIR' in env)) delete clean.DATA_DIR;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', `scripts/${name}.ts`, ...args],
      { cwd: root, env: clean, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A data file's text without the instant it was written: what two exports of the same records share. */
export const withoutTime = (text: string) => text.replace(/"exportedAt":"[^"]*"/, '"exportedAt":"…"');
