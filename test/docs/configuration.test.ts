/**
 * docs/configuration.md's table of settings is generated from the settings schema (`npm run docs:config`): a setting
 * added, removed or described anew in src/config.ts without running it fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CONFIGURATION_PAGE, settingsTable, TABLE_END, TABLE_START, withTable } from '../../scripts/docs-config.ts';
import { ConfigSchema } from '../../src/config-schema.ts';

/** A table's cells, row by row, without the padding a formatter may add (`|---|` and `| :--- |` alike). */
const cells = (table: string) =>
  table
    .trim()
    .split('\n')
    .map((row) => row.split(/(?<!\\)\|/).map((cell) => (/^\s*:?-+:?\s*$/.test(cell) ? '---' : cell.trim())));

test('docs/configuration.md holds the table the settings schema makes (npm run docs:config writes it)', () => {
  const page = readFileSync(CONFIGURATION_PAGE, 'utf8');
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  assert.ok(start >= 0 && end > start, 'the page has both markers, in order');
  const written = page.slice(start + TABLE_START.length, end);
  assert.deepEqual(cells(written), cells(settingsTable()), 'out of date with src/config.ts: run npm run docs:config');
});

test('the table has one row per setting of the schema, each with a description', () => {
  const rows = settingsTable().split('\n').slice(2);
  assert.equal(rows.length, Object.keys(ConfigSchema.properties).length);
  for (const row of rows) assert.match(row, /^\| `[A-Z_]+` \| `--[a-z-]+` \| (`[^`]*`|unset) \| \S.* \|$/);
});

test('only the text between the markers is replaced', () => {
  const page = `# Title\n\nBefore.\n\n${TABLE_START}\n\nold table\n\n${TABLE_END}\n\nAfter.\n`;
  assert.equal(withTable(page, '| a |'), `# Title\n\nBefore.\n\n${TABLE_START}\n\n| a |\n\n${TABLE_END}\n\nAfter.\n`);
  assert.throws(() => withTable('# No markers\n', '| a |'), /lacks the markers/);
});

test('the comparison reads the table as cells: padding a formatter adds does not matter, a changed cell does', () => {
  const table = settingsTable();
  const padded = table.replaceAll(' | ', '  |  ').replaceAll('| --- |', '| :------ |');
  assert.deepEqual(cells(padded), cells(table));
  assert.notDeepEqual(cells(table.replace('`3000`', '`8080`')), cells(table));
});
