/**
 * docs/configuration.md's table of settings is generated from the settings schema (`npm run docs:config`): a setting
 * added, removed or described anew in src/config.ts without running it fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CONFIGURATION_PAGE, settingsTable, TABLE_END, TABLE_START, withTable } from '../../scripts/docs-config.ts';
import { ConfigSchema } from '../../src/config.ts';

test('docs/configuration.md holds the table the settings schema makes (npm run docs:config writes it)', () => {
  const page = readFileSync(CONFIGURATION_PAGE, 'utf8');
  assert.ok(page.includes(TABLE_START) && page.includes(TABLE_END), 'the page has both markers');
  assert.equal(page, withTable(page, settingsTable()), 'out of date with src/config.ts: run npm run docs:config');
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
