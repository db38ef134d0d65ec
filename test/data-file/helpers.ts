import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

/** The hand-written fixture of ten tasks (with their team, projects, a milestone, a comment, time and a webhook). */
export const TEN_TASKS = new URL('../fixtures/data-files/ten-tasks.json', import.meta.url);

/** The fixture as an object, a fresh copy each time, to change before writing it out. */
export const tenTasks = (): Record<string, any> => JSON.parse(readFileSync(TEN_TASKS, 'utf8'));

/** A folder for the test's files, removed when it ends. */
export function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'pm-data-file-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `content` (text as it is, anything else as JSON) to `<dir>/<name>`; answers the path. */
export function writeFile(dir: string, content: unknown, name = 'fixtures.json'): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}
