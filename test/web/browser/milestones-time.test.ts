/**
 * The web app's milestones and time in a real browser against the real server: a milestone created in its dialog and
 * marked reached (the service records it), an overdue one said so in words, one edited and one deleted after asking,
 * and changes made elsewhere shown live; time logged on a task with its total, edited and deleted by its author; a
 * project's time report by person and by task for a range, and its CSV file; axe on each of these views.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import {
  eventually,
  hasFocus,
  noBrowser,
  openPage,
  startServer,
  TEST_TIMEOUT,
  titled,
  type Server,
} from './helpers.ts';

const options = { timeout: TEST_TIMEOUT, skip: noBrowser() };

/** A day `days` before today in this machine's time zone (the browser's), `YYYY-MM-DD`. */
function daysAgo(days: number): string {
  const date = new Date();
  date.setDate(date.getDate() - days);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Runs axe on the page as it is; fails on a serious or critical violation, naming each and where it is. */
async function noSeriousViolations(page: Page, view: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  assert.ok(results.passes.length > 10, `axe ran its rules on ${view}`);
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const described = serious.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help}\n      ${v.nodes
        .slice(0, 5)
        .map((n) => `${n.target.join(' ')} — ${n.failureSummary?.replaceAll('\n', ' ')}`)
        .join('\n      ')}`,
  );
  assert.deepEqual(described, [], `axe on ${view}:\n  ${described.join('\n  ')}`);
}

async function created(server: Server, path: string, body: unknown): Promise<any> {
  const res = await server.api('POST', path, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

/** A milestone's row in the list: the list item whose heading is its title. */
const milestoneRow = (page: Page, title: string): Locator =>
  page
    .getByRole('list', { name: 'Milestones' })
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: title, exact: true }) });

/** The cells of a table's rows (body and foot), each row's texts trimmed. */
function tableRows(table: Locator): Promise<string[][]> {
  return table.evaluate((el: any) =>
    [...el.querySelectorAll('tbody tr, tfoot tr')].map((tr: any) =>
      [...tr.children].map((cell: any) => (cell.textContent as string).trim()),
    ),
  );
}

/** A milestone's status badge. */
const badge = (row: Locator, label: string): Locator =>
  row.locator('.badge').filter({ hasText: new RegExp(`^${label}$`) });

/** The task view's time section. */
const timeSection = (page: Page): Locator => page.getByRole('region', { name: /^Time/ });

test(
  'a milestone created in its dialog, then marked reached: the service records milestone.reached',
  options,
  async (t) => {
    const server = await startServer(t);
    const project = await server.project('Milestoned');
    const { page } = await openPage(t, server, { path: `/projects/${project.id}/milestones`, name: 'alice' });
    await page.getByRole('heading', { name: 'Milestoned', level: 1 }).waitFor();
    await titled(page, 'Milestoned milestones');
    assert.equal(await page.getByRole('link', { name: 'Milestones' }).getAttribute('aria-current'), 'page');
    await page.getByText('No milestones yet.').waitFor();

    await page.getByRole('button', { name: 'New milestone' }).click();
    const dialog = page.getByRole('dialog', { name: 'New milestone' });
    await dialog.getByRole('textbox', { name: 'Title' }).fill('Beta <b>out</b>');
    await dialog.getByRole('textbox', { name: 'Description' }).fill('For the first customers');
    await dialog.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'In progress' });
    await dialog.getByLabel('Due date').fill('2099-12-31');
    await dialog.getByRole('button', { name: 'Create milestone' }).click();
    await dialog.waitFor({ state: 'detached' });

    const row = milestoneRow(page, 'Beta <b>out</b>');
    await row.waitFor();
    await badge(row, 'In progress').waitFor();
    await row.locator('time[datetime="2099-12-31"]').waitFor();
    assert.equal(await row.getByText('Overdue').count(), 0, 'a milestone due later is not overdue');
    const list = await server.api('GET', `/api/milestones?projectId=${project.id}`);
    assert.equal(list.body.count, 1);
    const milestone = list.body.data[0];
    assert.equal(milestone.title, 'Beta <b>out</b>');
    assert.equal(milestone.status, 'in_progress');
    assert.equal(milestone.dueDate, '2099-12-31');
    assert.equal(milestone.description, 'For the first customers');

    await row.getByRole('button', { name: 'Mark Beta <b>out</b> reached' }).click();
    await badge(row, 'Reached').waitFor();
    await row.getByRole('button', { name: /^Mark .* reached$/ }).waitFor({ state: 'detached' });
    // The button is gone: the focus is on the row's next action.
    await eventually(async () => assert.ok(await hasFocus(row.getByRole('button', { name: 'Edit Beta <b>out</b>' }))));
    const stored = (await server.api('GET', `/api/milestones/${milestone.id}`)).body.data;
    assert.equal(stored.status, 'reached');
    assert.ok(stored.reachedAt, 'reachedAt is set');
    await row.locator(`time[datetime="${stored.reachedAt}"]`).waitFor();
    const log = await server.api('GET', `/api/activity-log?resourceId=${milestone.id}&action=milestone.reached`);
    assert.equal(log.body.count, 1);
    assert.equal(log.body.data[0].actor, 'alice');
    assert.equal(log.body.data[0].metadata.projectId, project.id);
  },
);

test(
  'an overdue milestone says so in words; one edited, one deleted after asking, others shown live',
  options,
  async (t) => {
    const server = await startServer(t);
    const project = await server.project('Late');
    const late = await created(server, '/api/milestones', {
      projectId: project.id,
      title: 'Late one',
      dueDate: daysAgo(1),
    });
    await created(server, '/api/milestones', {
      projectId: project.id,
      title: 'Reached late',
      dueDate: daysAgo(3),
      status: 'reached',
    });
    await created(server, '/api/milestones', { projectId: project.id, title: 'Due today', dueDate: daysAgo(0) });
    await created(server, '/api/milestones', { projectId: project.id, title: 'Whenever' });
    const { page, allowStatus } = await openPage(t, server, {
      path: `/projects/${project.id}/milestones`,
      name: 'bob',
    });

    const overdue = milestoneRow(page, 'Late one');
    await overdue.getByText('Overdue', { exact: true }).waitFor();
    for (const title of ['Reached late', 'Due today', 'Whenever']) {
      await milestoneRow(page, title).waitFor();
      assert.equal(await milestoneRow(page, title).getByText('Overdue').count(), 0, `${title} is not overdue`);
    }
    await page.getByText('4 milestones, 1 overdue').waitFor();
    // Soonest due first, those without a due date last.
    assert.deepEqual(await page.getByRole('list', { name: 'Milestones' }).getByRole('heading').allTextContents(), [
      'Reached late',
      'Late one',
      'Due today',
      'Whenever',
    ]);

    // Edited: pushed back to next year, no longer overdue.
    await overdue.getByRole('button', { name: 'Edit Late one' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit Late one' });
    await dialog.getByRole('textbox', { name: 'Title' }).fill('Moved one');
    await dialog.getByLabel('Due date').fill('2099-01-15');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const moved = milestoneRow(page, 'Moved one');
    await moved.locator('time[datetime="2099-01-15"]').waitFor();
    assert.equal(await moved.getByText('Overdue').count(), 0);
    const edited = (await server.api('GET', `/api/milestones/${late.id}`)).body.data;
    assert.equal(edited.title, 'Moved one');
    assert.equal(edited.dueDate, '2099-01-15');

    // Deleted, after the question; Cancel first keeps it.
    await milestoneRow(page, 'Whenever').getByRole('button', { name: 'Delete Whenever' }).click();
    let ask = page.getByRole('dialog', { name: 'Delete Whenever?' });
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'detached' });
    await milestoneRow(page, 'Whenever').getByRole('button', { name: 'Delete Whenever' }).click();
    ask = page.getByRole('dialog', { name: 'Delete Whenever?' });
    await ask.getByRole('button', { name: 'Delete milestone' }).click();
    await milestoneRow(page, 'Whenever').waitFor({ state: 'detached' });
    assert.equal((await server.api('GET', `/api/milestones?projectId=${project.id}`)).body.count, 3);

    // Made elsewhere: a new one, one reached, one deleted.
    const other = await created(server, '/api/milestones', { projectId: project.id, title: 'From elsewhere' });
    await milestoneRow(page, 'From elsewhere').waitFor();
    await server.api('PATCH', `/api/milestones/${other.id}`, { status: 'reached' });
    await badge(milestoneRow(page, 'From elsewhere'), 'Reached').waitFor();
    await server.api('DELETE', `/api/milestones/${other.id}`);
    await milestoneRow(page, 'From elsewhere').waitFor({ state: 'detached' });
    // Another project's milestones stay out.
    await created(server, '/api/milestones', { projectId: 'proj_002', title: 'Not ours' });
    await page.waitForTimeout(300);
    assert.equal(await milestoneRow(page, 'Not ours').count(), 0);

    // A refused change is said next to it: a blank title.
    allowStatus(400);
    await moved.getByRole('button', { name: 'Edit Moved one' }).click();
    const again = page.getByRole('dialog', { name: 'Edit Moved one' });
    await again.getByRole('textbox', { name: 'Title' }).fill('   ');
    await again.getByRole('button', { name: 'Save' }).click();
    await again.getByRole('alert').filter({ hasText: /title/ }).waitFor();
  },
);

test('time logged on a task shows with its total, and its author edits and deletes it', options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Timed');
  const task = await server.task(project.id, 'Track me');
  await created(server, '/api/time-entries', {
    taskId: task.id,
    username: 'bob',
    hours: 2,
    date: '2026-10-05',
    description: "bob's work",
  });
  const { page, allowStatus } = await openPage(t, server, { path: `/tasks/${task.id}`, name: 'alice' });
  const time = timeSection(page);
  await time.getByText("bob's work").waitFor();
  await time.getByText('Total: 2 hours in 1 entry').waitFor();
  // Someone else's entry offers its author's buttons to no one else.
  assert.equal(await time.getByRole('button', { name: /^Edit your entry/ }).count(), 0);

  // Logged: the day is today in the browser's time zone unless changed.
  const log = time.getByRole('form', { name: 'Log time' });
  assert.equal(await log.getByLabel('Date').inputValue(), daysAgo(0));
  await log.getByRole('spinbutton', { name: 'Hours' }).fill('1.5');
  await log.getByRole('textbox', { name: 'Note' }).fill('Planning, "part 1"');
  await log.getByRole('button', { name: 'Log time' }).click();
  await time.getByText('Planning, "part 1"').waitFor();
  await time.getByText('Total: 3.5 hours in 2 entries').waitFor();
  assert.equal(await log.getByRole('spinbutton', { name: 'Hours' }).inputValue(), '', 'the form is emptied');
  let mine = (await server.api('GET', `/api/time-entries?taskId=${task.id}&username=alice`)).body.data;
  assert.equal(mine.length, 1);
  assert.deepEqual(
    { hours: mine[0].hours, date: mine[0].date, description: mine[0].description },
    { hours: 1.5, date: daysAgo(0), description: 'Planning, "part 1"' },
  );

  // A refused entry: the service's message beside the form.
  allowStatus(400);
  await log.getByRole('spinbutton', { name: 'Hours' }).fill('30');
  await log.getByRole('button', { name: 'Log time' }).click();
  await log.getByRole('alert').filter({ hasText: /hours/ }).waitFor();
  await log.getByRole('spinbutton', { name: 'Hours' }).fill('');

  // Edited: other hours and day.
  await time.getByRole('button', { name: /^Edit your entry of 1\.5 h/ }).click();
  const edit = time.getByRole('form', { name: /^Edit your entry of 1\.5 h/ });
  await edit.getByRole('spinbutton', { name: 'Hours' }).fill('2.25');
  await edit.getByLabel('Date').fill('2026-10-06');
  await edit.getByRole('button', { name: 'Save entry' }).click();
  await time.getByText('Total: 4.25 hours in 2 entries').waitFor();
  const editMine = time.getByRole('button', { name: /^Edit your entry of 2\.25 h/ });
  await eventually(async () => assert.ok(await hasFocus(editMine), 'the focus is back on Edit'));
  // Escape closes the form, changing nothing.
  await editMine.press('Enter');
  await time
    .getByRole('form', { name: /^Edit your entry/ })
    .getByRole('spinbutton', { name: 'Hours' })
    .press('Escape');
  await time.getByRole('form', { name: /^Edit your entry/ }).waitFor({ state: 'detached' });
  mine = (await server.api('GET', `/api/time-entries?taskId=${task.id}&username=alice`)).body.data;
  assert.equal(mine[0].hours, 2.25);
  assert.equal(mine[0].date, '2026-10-06');

  // Logged elsewhere: shown live.
  const theirs = await created(server, '/api/time-entries', {
    taskId: task.id,
    username: 'carol',
    hours: 0.75,
    date: '2026-10-07',
  });
  await time.getByText('Total: 5 hours in 3 entries').waitFor();
  await server.api('DELETE', `/api/time-entries/${theirs.id}`);
  await time.getByText('Total: 4.25 hours in 2 entries').waitFor();

  // Deleted, after a second click.
  await time.getByRole('button', { name: /^Delete your entry of 2\.25 h/ }).click();
  await time.getByRole('button', { name: 'Keep it' }).click();
  await eventually(async () =>
    assert.ok(await hasFocus(time.getByRole('button', { name: /^Delete your entry of 2\.25 h/ }))),
  );
  await time.getByRole('button', { name: /^Delete your entry of 2\.25 h/ }).click();
  await time.getByRole('button', { name: /^Yes, delete your entry of 2\.25 h/ }).click();
  await time.getByText('Total: 2 hours in 1 entry').waitFor();
  assert.equal((await server.api('GET', `/api/time-entries?taskId=${task.id}&username=alice`)).body.count, 0);
});

test("a project's time report: hours by person and by task for a range, and its CSV file", options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Reported');
  const design = await server.task(project.id, 'Design, "first" pass');
  const build = await server.task(project.id, 'Build');
  const other = await server.task('proj_002', 'Another project');
  const entry = (taskId: string, username: string, hours: number, date: string, description = '') =>
    created(server, '/api/time-entries', { taskId, username, hours, date, description });
  await entry(design.id, 'alice', 2.5, '2026-10-02', 'Sketches, v1');
  await entry(design.id, 'bob', 1, '2026-10-03', '=1+1');
  await entry(build.id, 'alice', 3, '2026-10-10', 'Line one\nline two');
  await entry(build.id, 'bob', 0.25, '2026-10-31');
  await entry(build.id, 'alice', 8, '2026-09-30', 'Before the range');
  await entry(other.id, 'alice', 5, '2026-10-05', 'Not this project');

  const { page } = await openPage(t, server, { path: `/projects/${project.id}/time`, name: 'alice' });
  await titled(page, 'Reported time');
  // The default range: the last 30 days, today included.
  assert.equal(await page.getByLabel('From').inputValue(), daysAgo(29));
  assert.equal(await page.getByLabel('To').inputValue(), daysAgo(0));

  await page.goto(`${server.base}/projects/${project.id}/time?from=2026-10-01&to=2026-10-31`);
  const byPerson = page.getByRole('table', { name: 'Hours by person' });
  const byTask = page.getByRole('table', { name: 'Hours by task' });
  await byPerson.waitFor();
  assert.deepEqual(await tableRows(byPerson), [
    ['alice', '5.5', '2'],
    ['bob', '1.25', '2'],
    ['Total', '6.75', '4'],
  ]);
  assert.deepEqual(await tableRows(byTask), [
    ['Design, "first" pass', '3.5', '2'],
    ['Build', '3.25', '2'],
    ['Total', '6.75', '4'],
  ]);
  await page.getByText(/^6\.75 hours in 4 entries/).waitFor();

  // The CSV: one line per entry, oldest first, quoted where it must be, a formula kept as text.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  assert.equal(download.suggestedFilename(), `time-${project.id}-2026-10-01-to-2026-10-31.csv`);
  const csv = await readFile(await download.path(), 'utf8');
  assert.equal(
    csv,
    '\uFEFF' +
      [
        'person,task,date,hours,note',
        'alice,"Design, ""first"" pass",2026-10-02,2.5,"Sketches, v1"',
        `bob,"Design, ""first"" pass",2026-10-03,1,'=1+1`,
        'alice,Build,2026-10-10,3,"Line one\nline two"',
        'bob,Build,2026-10-31,0.25,',
      ].join('\r\n') +
      '\r\n',
  );

  // Another range, typed: the report follows (and the address keeps it).
  await page.getByLabel('From').fill('2026-09-01');
  await page.getByText(/^14\.75 hours in 5 entries/).waitFor();
  assert.match(page.url(), /from=2026-09-01/);
  await page.getByLabel('To').fill('2026-09-30');
  await page.getByText(/^8 hours in 1 entry/).waitFor();
  assert.deepEqual(await tableRows(byPerson), [
    ['alice', '8', '1'],
    ['Total', '8', '1'],
  ]);

  // Live: an entry logged in the range shows; one outside it does not.
  await entry(design.id, 'carol', 1, '2026-09-15');
  await entry(design.id, 'carol', 1, '2026-10-15');
  await page.getByText(/^9 hours in 2 entries/).waitFor();
  assert.deepEqual(await tableRows(byTask), [
    ['Build', '8', '1'],
    ['Design, "first" pass', '1', '1'],
    ['Total', '9', '2'],
  ]);

  // A range that ends before it begins is said, not asked.
  await page.getByLabel('From').fill('2026-10-05');
  await page.getByRole('alert').filter({ hasText: 'The first day must be on or before the last' }).waitFor();
  assert.ok(await page.getByRole('button', { name: 'Export CSV' }).isDisabled());
  assert.equal(await page.getByText('Loading the time entries…').count(), 0, 'nothing is being read');
  assert.equal(await page.getByRole('table').count(), 0);
  await page.getByRole('button', { name: 'Last 30 days' }).click();
  await eventually(async () => assert.equal(await page.getByLabel('From').inputValue(), daysAgo(29)));
});

test('axe finds nothing serious on the milestones, the time report and a task with its time', options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Checked');
  const task = await server.task(project.id, 'Checked task');
  await created(server, '/api/milestones', { projectId: project.id, title: 'Past due', dueDate: '2020-01-01' });
  await created(server, '/api/milestones', { projectId: project.id, title: 'Done', status: 'reached' });
  await created(server, '/api/time-entries', { taskId: task.id, username: 'alice', hours: 1, description: 'Mine' });
  await created(server, '/api/time-entries', { taskId: task.id, username: 'bob', hours: 2, date: daysAgo(2) });
  for (const [scheme, viewport] of [
    ['light', { width: 1280, height: 900 }],
    ['dark', { width: 375, height: 740 }],
  ] as const) {
    const view = `${scheme}, ${viewport.width} px`;
    const { page } = await openPage(t, server, {
      path: `/projects/${project.id}/milestones`,
      name: 'alice',
      colorScheme: scheme,
      viewport,
    });
    await milestoneRow(page, 'Past due').getByText('Overdue').waitFor();
    await noSeriousViolations(page, `the milestones (${view})`);
    await page.getByRole('button', { name: 'New milestone' }).click();
    await page.getByRole('dialog', { name: 'New milestone' }).waitFor();
    await noSeriousViolations(page, `the new milestone dialog (${view})`);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    await page.getByRole('link', { name: 'Time', exact: true }).click();
    await page.getByRole('table', { name: 'Hours by person' }).waitFor();
    await page.getByText('The entries (2)').click();
    await noSeriousViolations(page, `the time report (${view})`);

    await page.goto(`${server.base}/tasks/${task.id}`);
    const time = timeSection(page);
    await time.getByText('Total: 3 hours in 2 entries').waitFor();
    await noSeriousViolations(page, `a task with its time (${view})`);
    await time.getByRole('button', { name: /^Edit your entry/ }).click();
    await time.getByRole('form', { name: /^Edit your entry/ }).waitFor();
    await noSeriousViolations(page, `a time entry being edited (${view})`);
  }
});

test(
  'a read-only token sees the milestones, the time and the report, and is told why it cannot change them',
  options,
  async (t) => {
    const server = await startServer(t, { auth: 'token' });
    const issued = await server.api('POST', '/api/tokens', { username: 'reader', scopes: ['read'] });
    assert.equal(issued.status, 201);
    const { page } = await openPage(t, server, { path: '/projects/proj_001/milestones' });
    await page.getByRole('textbox', { name: 'API token' }).fill(issued.body.data.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('list', { name: 'Milestones' }).waitFor();
    assert.ok(await page.getByRole('button', { name: 'New milestone' }).isDisabled());
    for (const button of await page.getByRole('list', { name: 'Milestones' }).getByRole('button').all())
      assert.ok(await button.isDisabled(), `${await button.getAttribute('aria-label')} is disabled`);
    await page.getByText('Your token does not have the write scope: you can look, not change.').waitFor();

    await page.goto(`${server.base}/tasks/task_001`);
    const time = timeSection(page);
    await time.getByText('Homepage wireframes').waitFor();
    await time.getByText('Your token does not have the write scope: you cannot log time.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Log time' }).count(), 0);

    await page.goto(`${server.base}/projects/proj_001/time?from=2026-09-01&to=2026-10-31`);
    assert.deepEqual(await tableRows(page.getByRole('table', { name: 'Hours by person' })), [
      ['erin', '6.25', '2'],
      ['dana', '3.5', '1'],
      ['Total', '9.75', '3'],
    ]);
  },
);
