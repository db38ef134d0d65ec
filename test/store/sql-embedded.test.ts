import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../src/store/index.ts';
import type { SqlDriver } from '../../src/store/sql/driver.ts';
import { PgliteDriver } from '../../src/store/sql/pglite.ts';
import { sqlSuite } from './sql.ts';

/**
 * Starting PGlite (above all on a new folder) is the slow part, so few are started: one in-memory instance serves
 * every test that needs only an empty database, each in a schema of its own; the tests of opening a folder copy one
 * empty folder made once.
 */
const root = mkdtempSync(join(tmpdir(), 'pm-store-'));
let made = 0;
let folder: Promise<string> | undefined;
let shared: Promise<PgliteDriver> | undefined;

/** An empty database folder, made once (inside folders that do not exist yet), then copied. */
function emptyFolder(): Promise<string> {
  folder ??= (async () => {
    const dir = join(root, 'missing', 'template');
    await (await PgliteDriver.open(dir)).close();
    return dir;
  })();
  return folder;
}

/** A driver on the shared instance, in a new schema; closing it leaves the instance open. */
async function inNewSchema(): Promise<SqlDriver> {
  shared ??= PgliteDriver.open();
  const db = await shared;
  const schema = `test_${++made}`;
  await db.exec(`CREATE SCHEMA ${schema}; SET search_path TO ${schema}`);
  return {
    kind: db.kind,
    query: (text, params) => db.query(text, params),
    exec: (script) => db.exec(script),
    transaction: (work) => db.transaction(work),
    close: async () => {},
  };
}

test('DATA_DIR: a missing folder is created, parents included', async () => {
  assert.equal(existsSync(join(root, 'missing')), false);
  assert.equal(existsSync(join(await emptyFolder(), 'PG_VERSION')), true);
});

sqlSuite('embedded (PGlite)', {
  shared: false,
  async fresh() {
    return {
      driver: inNewSchema,
      async options() {
        const dataDir = join(root, `db${++made}`);
        cpSync(await emptyFolder(), dataDir, { recursive: true });
        return { dataDir };
      },
    };
  },
  async cleanUp() {
    await (await shared)?.close();
    rmSync(root, { recursive: true, force: true });
  },
});

test('openStore refuses both a folder and a server', async () => {
  await assert.rejects(openStore({ dataDir: 'x', databaseUrl: 'postgres://localhost/x' }), /not both/);
});
