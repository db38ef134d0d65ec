import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult, type IFlattenedRuleSet } from 'dependency-cruiser';

/** The rules `npm run lint` applies (.dependency-cruiser.cjs). */
const rules = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as {
  forbidden: IFlattenedRuleSet['forbidden'];
};

/** The violations the rules find when `importer` imports `imported` (a path from the importer's folder). */
async function violationsOf(importer: string, imported: string): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  const target = join(dirname(importer), imported).replaceAll('\\', '/');
  try {
    for (const [path, source] of [
      [importer, `import { x } from '${imported}';\nexport const y = x;\n`],
      [target, 'export const x = 1;\n'],
    ] as const) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), source);
    }
    const { output } = await cruise(['src'], {
      baseDir: root,
      validate: true,
      ruleSet: { forbidden: rules.forbidden },
    });
    return (output as ICruiseResult).summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test('the settings are the entry’s: only server.ts, app.ts and config.ts import them', async () => {
  for (const importer of ['src/stream/index.ts', 'src/webhooks/options.ts', 'src/core/rules.ts', 'src/web/index.ts']) {
    for (const settings of ['config.ts', 'config-schema.ts']) {
      const imported = `${importer.split('/').length > 2 ? '../' : './'}${settings}`;
      const found = await violationsOf(importer, imported);
      assert.ok(
        found.some((v) => v.startsWith('settings-read-by-the-entry: ')),
        `${importer} → ${settings}: ${found.join('; ')}`,
      );
    }
  }
  assert.deepEqual(await violationsOf('src/app.ts', './config.ts'), []);
  assert.deepEqual(await violationsOf('src/config.ts', './config-schema.ts'), []);
  assert.deepEqual(await violationsOf('src/config-schema.ts', './webhooks/options.ts'), []);
});

test('src/web is an edge beside http; delivery reads no event; http names no web app', async () => {
  const cases: [string, string, string][] = [
    ['src/web/index.ts', '../resources/tasks/schema.ts', 'web-beside-http'],
    ['src/web/index.ts', '../stream/hub.ts', 'web-beside-http'],
    ['src/webhooks/dispatcher.ts', '../events/bus.ts', 'delivery-imports-store-and-model'],
    ['src/http/auth.ts', '../web/index.ts', 'http-names-no-resource'],
    ['src/resources/index.ts', '../web/index.ts', 'resources-beside-stream'],
  ];
  for (const [importer, imported, rule] of cases) {
    const found = await violationsOf(importer, imported);
    assert.ok(
      found.some((v) => v.startsWith(`${rule}: `)),
      `${importer} → ${imported}: ${found.join('; ')}`,
    );
  }
  assert.deepEqual(await violationsOf('src/web/index.ts', '../http/accept-encoding.ts'), []);
});

test('src/data-file is an edge that reads the resources; no resource, store or stream imports it', async () => {
  const cases: [string, string, string][] = [
    ['src/data-file/load.ts', '../stream/hub.ts', 'data-file-at-the-edge'],
    ['src/data-file/load.ts', '../config.ts', 'settings-read-by-the-entry'],
    ['src/resources/index.ts', '../data-file/load.ts', 'resources-beside-stream'],
    ['src/store/seed.ts', '../data-file/load.ts', 'store-imports-model'],
    ['src/stream/index.ts', '../data-file/format.ts', 'stream-beside-resources'],
  ];
  for (const [importer, imported, rule] of cases) {
    const found = await violationsOf(importer, imported);
    assert.ok(
      found.some((v) => v.startsWith(`${rule}: `)),
      `${importer} → ${imported}: ${found.join('; ')}`,
    );
  }
  assert.deepEqual(await violationsOf('src/data-file/check.ts', '../resources/webhooks/rules.ts'), []);
  assert.deepEqual(await violationsOf('src/app.ts', './data-file/routes.ts'), []);
});
