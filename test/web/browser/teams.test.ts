/**
 * The web app's teams in a real browser against the real server: a team created in its dialog, a member added and
 * their role changed and removed, the delete confirmation naming the projects that lose their team, changes made
 * elsewhere shown live, and axe on both views and the dialogs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { eventually, noBrowser, openPage, startServer, TEST_TIMEOUT, titled } from './helpers.ts';

const options = { timeout: TEST_TIMEOUT, skip: noBrowser() };

async function noSeriousViolations(page: Page, view: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  assert.ok(results.passes.length > 10, `axe ran its rules on ${view}`);
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  assert.deepEqual(serious, [], `axe on ${view}`);
}

test(
  'a team created, a member added, their role changed, one removed; the delete names its projects',
  options,
  async (t) => {
    const server = await startServer(t);
    const { page } = await openPage(t, server, { path: '/teams', name: 'alice' });
    await page.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();
    await titled(page, 'Teams');
    const teams = page.getByRole('list', { name: 'Teams' });
    await teams.getByRole('link', { name: 'Platform' }).waitFor();
    const platform = teams.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Platform' }) });
    assert.match(await platform.innerText(), /Members\s*3/);
    await noSeriousViolations(page, 'the teams');

    await page.getByRole('button', { name: 'New team' }).click();
    const dialog = page.getByRole('dialog', { name: 'New team' });
    await noSeriousViolations(page, 'the new team dialog');
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Search');
    await dialog.getByRole('textbox', { name: 'Description' }).fill('Finding things');
    await dialog.getByRole('button', { name: 'Create team' }).click();

    await page.getByRole('heading', { name: 'Search', level: 1 }).waitFor();
    await titled(page, 'Search');
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
    assert.match(id, /^team_/);
    await page.getByText('No members yet.').waitFor();

    // Added (the form's Enter), then a second one.
    const add = page.getByRole('form', { name: 'Add a member' });
    await add.getByRole('combobox', { name: 'Username' }).fill('zoe');
    await add.getByRole('combobox', { name: 'Role' }).fill('engineer');
    await add.getByRole('combobox', { name: 'Role' }).press('Enter');
    await page.getByRole('rowheader', { name: 'zoe' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'zoe added as engineer' }).waitFor();
    await add.getByRole('combobox', { name: 'Username' }).fill('yan');
    await add.getByRole('combobox', { name: 'Role' }).fill('designer');
    await add.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('rowheader', { name: 'yan' }).waitFor();
    // A name already there is refused beside the form.
    await add.getByRole('combobox', { name: 'Username' }).fill('zoe');
    await add.getByRole('combobox', { name: 'Role' }).fill('lead');
    await add.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('alert').filter({ hasText: 'zoe is already a member' }).waitFor();

    // Her role changed.
    const role = page.getByRole('combobox', { name: 'Role of zoe' });
    await role.fill('lead');
    await page.getByRole('button', { name: 'Change the role of zoe' }).click();
    await page.getByRole('status').filter({ hasText: 'zoe is now lead' }).waitFor();
    const members = async () => (await server.api('GET', `/api/teams/${id}`)).body.data.members;
    await eventually(async () =>
      assert.deepEqual(await members(), [
        { username: 'zoe', role: 'lead' },
        { username: 'yan', role: 'designer' },
      ]),
    );
    await page.getByRole('button', { name: 'Remove yan' }).click();
    await page.getByRole('rowheader', { name: 'yan' }).waitFor({ state: 'detached' });
    assert.deepEqual(await members(), [{ username: 'zoe', role: 'lead' }]);
    await noSeriousViolations(page, "a team's page");

    // Its projects, listed on its page and named by the delete's confirmation.
    for (const name of ['Search index', 'Query parser']) {
      const res = await server.api('POST', '/api/projects', { name, teamId: id });
      assert.equal(res.status, 201);
    }
    const projects = page.getByRole('region', { name: /^Projects/ });
    await projects.getByRole('link', { name: 'Search index' }).waitFor();
    await projects.getByRole('link', { name: 'Query parser' }).waitFor();

    await page.getByRole('button', { name: 'Delete team' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Search?' });
    await confirm.getByText('These 2 projects lose their team').waitFor();
    await confirm.getByRole('listitem').filter({ hasText: 'Search index' }).waitFor();
    await confirm.getByRole('listitem').filter({ hasText: 'Query parser' }).waitFor();
    await noSeriousViolations(page, "a team's delete confirmation");
    await confirm.getByRole('button', { name: 'Delete team' }).click();
    await page.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/teams');
    assert.equal(await teams.getByRole('link', { name: 'Search' }).count(), 0);
    assert.equal((await server.api('GET', `/api/teams/${id}`)).status, 404);
    const left = (await server.api('GET', '/api/projects')).body.data.filter((p: any) =>
      ['Search index', 'Query parser'].includes(p.name),
    );
    assert.deepEqual(
      left.map((p: any) => p.teamId),
      [null, null],
    );
  },
);

test("a team's changes made elsewhere show live; its name edited; a deleted team is not found", options, async (t) => {
  const server = await startServer(t);
  const { page, allowStatus } = await openPage(t, server, { path: '/teams', name: 'dana' });
  const teams = page.getByRole('list', { name: 'Teams' });
  await teams.getByRole('link', { name: 'Mobile' }).waitFor();

  // A team created elsewhere appears in the list; its members counted.
  const made = await server.api('POST', '/api/teams', {
    name: 'Elsewhere',
    members: [
      { username: 'a', role: 'lead' },
      { username: 'b', role: 'engineer' },
    ],
  });
  assert.equal(made.status, 201);
  const row = teams.getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Elsewhere' }) });
  await eventually(async () => assert.match(await row.innerText(), /Members\s*2/));

  await teams.getByRole('link', { name: 'Product Design' }).click();
  await page.getByRole('heading', { name: 'Product Design', level: 1 }).waitFor();
  await page.getByRole('rowheader', { name: 'erin' }).waitFor();
  // A member added elsewhere shows, and a role changed elsewhere.
  await server.api('PATCH', '/api/teams/team_002', {
    members: [
      { username: 'dana', role: 'lead' },
      { username: 'erin', role: 'researcher' },
      { username: 'ivan', role: 'designer' },
    ],
  });
  await page.getByRole('rowheader', { name: 'ivan' }).waitFor();
  await eventually(async () =>
    assert.equal(await page.getByRole('combobox', { name: 'Role of erin' }).inputValue(), 'researcher'),
  );

  // Its name and description edited in the dialog.
  await page.getByRole('button', { name: 'Edit team' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit Product Design' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Design');
  await dialog.getByRole('textbox', { name: 'Description' }).fill('Pixels & <b>people</b>');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('heading', { name: 'Design', level: 1 }).waitFor();
  await page.getByText('Pixels & <b>people</b>', { exact: true }).waitFor();
  const stored = (await server.api('GET', '/api/teams/team_002')).body.data;
  assert.equal(stored.name, 'Design');
  assert.equal(stored.members.length, 3, 'the members are left as they were');

  // Deleted elsewhere: the page says it is not there. A read the page began for an earlier change (the edit's own
  // event, the projects losing their team) may reach the service after the delete: its 404 is the browser's line.
  allowStatus(404);
  await server.api('DELETE', '/api/teams/team_002');
  await page.getByRole('heading', { name: /^(Not found|Deleted)$/, level: 1 }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Edit team' }).count(), 0);
});
