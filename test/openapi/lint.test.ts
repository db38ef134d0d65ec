import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildApp } from '../../src/app.ts';
import { contract } from '../helpers/contract.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'node_modules/@redocly/cli/bin/cli.js');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

// Redocly's recommended rules as redocly.yaml configures them. Offline: with these two variables it sends no
// telemetry and does not look for a newer version, so it opens no connection at all.
test('the document passes `redocly lint`: no errors and no warnings', async (t) => {
  await lint(t, (await contract()).doc);
});

test('the document of a service with AUTH=token and RATE_LIMIT passes `redocly lint` too', async (t) => {
  const app = await buildApp({
    config: { logLevel: 'silent', auth: 'token', adminToken: 'x'.repeat(32), rateLimit: { max: 10, windowMs: 1000 } },
    seed: false,
  });
  t.after(() => app.close());
  await lint(t, (await app.inject({ url: '/api/openapi.json' })).json());
});

async function lint(t: TestContext, doc: unknown): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'pm-openapi-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'openapi.json');
  await writeFile(file, JSON.stringify(doc));

  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' };
  const run = await promisify(execFile)(process.execPath, [cli, 'lint', file, '--format=json'], {
    cwd: root,
    env,
  }).catch((err: { stdout: string; stderr: string; code: number }) => err);
  const report = JSON.parse(run.stdout) as LintReport;
  const problems = report.problems.map((p) => ({ ...p, where: `${p.ruleId} at ${p.location[0]?.pointer}` }));
  assert.deepEqual(
    problems.filter((p) => p.severity === 'error').map((p) => `${p.where}: ${p.message}`),
    [],
  );
  assert.equal(report.totals.errors, 0);
  assert.deepEqual(
    problems.map((p) => `${p.severity} ${p.where}: ${p.message}`),
    [],
  );
}
