/**
 * The embedded store's folder (`DATA_DIR`): made readable by its user alone, refused when it holds something else,
 * and, when PostgreSQL cannot open it, refused with PostgreSQL's own reason.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgliteDriver } from '../../src/store/sql/pglite.ts';

function parent(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'pm-data-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const mode = (path: string) => statSync(path).mode & 0o777;

test('a new folder, and one that exists, are made readable by their user alone; what they held is kept', async (t) => {
  const fresh = join(parent(t), 'a', 'data');
  const existing = join(parent(t), 'data');
  mkdirSync(existing, { mode: 0o755 });
  writeFileSync(join(existing, '.gitkeep'), '');
  for (const dir of [fresh, existing]) {
    const driver = await PgliteDriver.open(dir);
    await driver.exec('CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)');
    await driver.close();
    assert.equal(mode(dir), 0o700, dir);
    const again = await PgliteDriver.open(dir);
    assert.deepEqual(await again.query('SELECT n FROM kept'), [{ n: 7 }]);
    await again.close();
  }
});

test('a folder holding files that are not a database is refused, naming some, and left as it was', async (t) => {
  const dir = parent(t);
  writeFileSync(join(dir, 'notes.txt'), 'mine');
  mkdirSync(join(dir, 'src'));
  const before = mode(dir);
  await assert.rejects(PgliteDriver.open(dir), /holds files that are not a database \(notes\.txt, src\)/);
  assert.equal(mode(dir), before, 'its mode unchanged');
  assert.deepEqual(readdirSync(dir).sort(), ['notes.txt', 'src'], 'nothing was written into it');
});

test("a damaged database is refused with PostgreSQL's reason, naming the folder", async (t) => {
  const dir = join(parent(t), 'data');
  await (await PgliteDriver.open(dir)).close();
  truncateSync(join(dir, 'global', 'pg_control'), 0);
  await assert.rejects(
    PgliteDriver.open(dir),
    /could not be opened as a database: PANIC: could not read file "global\/pg_control"/,
  );
  writeFileSync(join(dir, 'PG_VERSION'), 'garbage\n');
  await assert.rejects(
    PgliteDriver.open(dir),
    (error: Error) =>
      error.message.includes(`"${dir}" is not a valid data directory`) && /PG_VERSION/.test(error.message),
  );
});
