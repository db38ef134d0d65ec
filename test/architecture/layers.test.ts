import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult, type IFlattenedRuleSet } from 'dependency-cruiser';

/** The rules `npm run lint` applies (.dependency-cruiser.cjs). */
const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as {
  forbidden: IFlattenedRuleSet['forbidden'];
  options: { tsPreCompilationDeps: boolean };
};

/** The violations the rules find in a tree of files (path → source), laid out in a folder of its own. */
async function violationsOf(files: Record<string, string>): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  try {
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), source);
    }
    const { output } = await cruise(['src'], {
      baseDir: root,
      validate: true,
      ruleSet: { forbidden: config.forbidden },
      tsPreCompilationDeps: config.options.tsPreCompilationDeps,
    });
    return (output as ICruiseResult).summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const leaf = 'export const x = 1;\n';
const importing = (...paths: string[]) => paths.map((p, i) => `import { x as x${i} } from '${p}';\n`).join('') + leaf;

test('a wrong-way import is refused, each layer by its own rule', async () => {
  const cases: [string, string, string][] = [
    // [importer, what it imports (from the importer's folder), the rule that refuses it]
    ['src/store/bad.ts', '../resources/tasks/schema.ts', 'store-imports-model'],
    ['src/store/sql/bad.ts', '../../http/list.ts', 'store-imports-model'],
    ['src/store/bad-core.ts', '../core/runtime.ts', 'store-imports-model'],
    ['src/model/bad.ts', '../store/types.ts', 'model-imports-nothing'],
    ['src/model/bad-errors.ts', '../errors.ts', 'model-imports-nothing'],
    ['src/core/bad.ts', '../http/list.ts', 'domain-below-edge'],
    ['src/events/bad.ts', '../resources/tasks/schema.ts', 'domain-below-edge'],
    ['src/http/bad.ts', '../resources/tokens/service.ts', 'http-names-no-resource'],
    ['src/http/bad-stream.ts', '../stream/hub.ts', 'http-names-no-resource'],
    ['src/resources/bad.ts', '../stream/hub.ts', 'resources-beside-stream'],
    ['src/stream/bad.ts', '../resources/tokens/service.ts', 'stream-beside-resources'],
    ['src/webhooks/bad.ts', '../core/rules.ts', 'delivery-imports-store-and-model'],
    ['src/schemas/bad.ts', '../core/rules.ts', 'shared-below-domain'],
    ['src/http/bad-entry.ts', '../app.ts', 'nothing-imports-the-entry'],
  ];
  for (const [importer, imported, rule] of cases) {
    const target = join(dirname(importer), imported).replaceAll('\\', '/');
    const found = await violationsOf({ [importer]: importing(imported), [target]: leaf });
    assert.ok(found.includes(`${rule}: ${importer} → ${target}`), `${importer} → ${target}: ${found.join('; ')}`);
  }
});

test('an import cycle is refused, a type-only one too', async () => {
  const found = await violationsOf({
    'src/core/a.ts': `import type { B } from './b.ts';\nexport type A = { b?: B };\n`,
    'src/core/b.ts': `import type { A } from './a.ts';\nexport type B = { a?: A };\n`,
  });
  assert.ok(found.includes('no-cycles: src/core/a.ts → src/core/b.ts'), found.join('; '));
});

test('imports downwards pass: the entry, the edge, the domain and the store each reach the layers below', async () => {
  const found = await violationsOf({
    'src/server.ts': importing('./app.ts'),
    'src/app.ts': importing('./http/auth.ts', './resources/index.ts', './stream/index.ts', './webhooks/dispatcher.ts'),
    'src/http/auth.ts': importing('../core/rules.ts', '../model/token.ts', '../errors.ts'),
    'src/resources/index.ts': importing('../http/auth.ts', '../core/rules.ts', '../store/store.ts'),
    'src/stream/index.ts': importing('../http/auth.ts', '../events/bus.ts', '../store/store.ts'),
    'src/core/rules.ts': importing('../events/bus.ts', '../store/store.ts', '../schemas/common.ts'),
    'src/events/bus.ts': importing('../store/store.ts', '../model/list.ts'),
    'src/schemas/common.ts': importing('../errors.ts', '../model/schema.ts'),
    'src/errors.ts': leaf,
    'src/store/store.ts': importing('../model/list.ts'),
    'src/webhooks/dispatcher.ts': importing('../store/store.ts', '../model/time.ts'),
    'src/model/list.ts': importing('./time.ts'),
    'src/model/token.ts': leaf,
    'src/model/schema.ts': leaf,
    'src/model/time.ts': leaf,
  });
  assert.deepEqual(found, []);
});
