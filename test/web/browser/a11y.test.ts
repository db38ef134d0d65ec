/**
 * The web app's accessibility in a real browser against the real server: axe on every view (the sign-in forms of
 * both modes, the projects, a board, a task, a dialog open) finds nothing serious or critical, and the names the app
 * keeps as its accessibility contract are there: the columns, the cards, the task's heading, the user's name, the
 * page's language and a title naming each view.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  boardLoaded,
  card,
  column,
  eventually,
  gotoBoard,
  header,
  noBrowser,
  openPage,
  noSeriousViolations,
  startServer,
  TEST_TIMEOUT,
  titled,
} from './helpers.ts';

const options = { timeout: TEST_TIMEOUT, skip: noBrowser() };

/** The document's language and title. */
async function langAndTitle(page: Page): Promise<{ lang: string | null; title: string }> {
  return { lang: await page.locator('html').getAttribute('lang'), title: await page.title() };
}

test(
  'axe finds nothing serious on the sign-in form, the projects, a board, a task and a dialog',
  options,
  async (t) => {
    const server = await startServer(t);
    const project = await server.project('Accessible');
    const task = await server.task(project.id, 'Checked by axe', { description: 'Read by everyone' });
    await server.task(project.id, 'Under way', { status: 'in_progress', priority: 'high', assignee: 'bob' });
    await server.task(project.id, 'Finished', { status: 'done', priority: 'low' });
    await server.api('POST', '/api/comments', { targetType: 'task', targetId: task.id, author: 'bob', body: 'A note' });
    const browsing = await openPage(t, server);
    const { page } = browsing;

    await page.getByRole('combobox', { name: 'Username' }).waitFor();
    await noSeriousViolations(page, 'the name form (AUTH=none)');
    await page.getByRole('combobox', { name: 'Username' }).fill('alice');
    await page.getByRole('combobox', { name: 'Username' }).press('Enter');

    await page.getByRole('link', { name: 'Accessible' }).waitFor();
    await noSeriousViolations(page, 'the projects');
    await page.getByRole('button', { name: 'New project' }).click();
    await page.getByRole('dialog', { name: 'New project' }).waitFor();
    await noSeriousViolations(page, 'the new project dialog');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });

    await gotoBoard(page, server, project.id);
    await card(column(page, 'Done'), 'Finished').waitFor();
    await noSeriousViolations(page, 'a board');
    await page.getByRole('button', { name: 'Actions for Under way' }).click();
    await page.getByRole('dialog', { name: 'Under way' }).waitFor();
    await noSeriousViolations(page, "a card's menu");
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    const todo = page.locator('section.column').filter({ has: column(page, 'To do') });
    await todo.getByRole('button', { name: 'Add task' }).click();
    await todo.getByRole('textbox').waitFor();
    await noSeriousViolations(page, 'a board with "Add task" open');

    await page.goto(`${server.base}/tasks/${task.id}`);
    await page.getByRole('heading', { name: 'Checked by axe', level: 1 }).waitFor();
    await page.getByText('A note', { exact: true }).waitFor();
    await noSeriousViolations(page, 'a task');

    // A task that does not exist: the app says so (the browser notes the 404 it answered).
    browsing.allowStatus(404);
    await page.goto(`${server.base}/tasks/task_missing`);
    await page.getByRole('heading', { name: 'Not found', level: 1 }).waitFor();
    await titled(page, 'Not found');
    await noSeriousViolations(page, 'a task that does not exist');
  },
);

test(
  'axe finds nothing serious on the token sign-in form, nor on the views of a read-only token',
  options,
  async (t) => {
    const server = await startServer(t, { auth: 'token' });
    const issued = await server.api('POST', '/api/tokens', { username: 'reader', scopes: ['read'] });
    const { page } = await openPage(t, server, { path: '/projects/proj_001' });
    await page.getByRole('textbox', { name: 'API token' }).waitFor();
    await noSeriousViolations(page, 'the token form (AUTH=token)');

    await page.getByRole('textbox', { name: 'API token' }).fill(issued.body.data.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await boardLoaded(page);
    await card(column(page, 'To do'), 'Accessibility audit').waitFor();
    await noSeriousViolations(page, 'a board, read only');
    await page.goto(`${server.base}/tasks/task_001`);
    await page.getByRole('heading', { name: 'Design the new homepage', level: 1 }).waitFor();
    await noSeriousViolations(page, 'a task, read only');
  },
);

test('axe finds nothing serious in the dark colour scheme, nor on a 375-px-wide screen', options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('In the dark');
  const task = await server.task(project.id, 'Dark card', { priority: 'high', assignee: 'bob' });
  await server.task(project.id, 'Dark and done', { status: 'done', priority: 'low' });
  for (const [scheme, viewport] of [
    ['dark', { width: 1280, height: 900 }],
    ['light', { width: 375, height: 740 }],
    ['dark', { width: 375, height: 740 }],
  ] as const) {
    const view = `${scheme}, ${viewport.width} px`;
    const { page } = await openPage(t, server, { colorScheme: scheme, viewport });
    await page.getByRole('combobox', { name: 'Username' }).waitFor();
    await noSeriousViolations(page, `the name form (${view})`);
    await page.getByRole('combobox', { name: 'Username' }).fill('alice');
    await page.getByRole('combobox', { name: 'Username' }).press('Enter');
    await page.getByRole('link', { name: 'In the dark' }).waitFor();
    await noSeriousViolations(page, `the projects (${view})`);
    await gotoBoard(page, server, project.id);
    await card(column(page, 'Done'), 'Dark and done').waitFor({ state: 'attached' });
    await noSeriousViolations(page, `a board (${view})`);
    await page.getByRole('button', { name: 'Actions for Dark card' }).click();
    await page.getByRole('dialog', { name: 'Dark card' }).waitFor();
    await noSeriousViolations(page, `a card's menu (${view})`);
    await page.goto(`${server.base}/tasks/${task.id}`);
    await page.getByRole('heading', { name: 'Dark card', level: 1 }).waitFor();
    await noSeriousViolations(page, `a task (${view})`);
  }
});

test(
  'the names the app keeps: columns, cards, the task heading, the user, the language and titles',
  options,
  async (t) => {
    const server = await startServer(t);
    const project = await server.project('Named');
    const task = await server.task(project.id, 'A named card', { priority: 'high', assignee: 'carol' });
    const { page } = await openPage(t, server);

    await eventually(async () =>
      assert.deepEqual(await langAndTitle(page), { lang: 'en', title: 'Who are you? · pm-service' }),
    );
    await page.getByRole('combobox', { name: 'Username' }).fill('dana');
    await page.getByRole('combobox', { name: 'Username' }).press('Enter');
    await header(page).getByText('dana', { exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    await eventually(async () =>
      assert.deepEqual(await langAndTitle(page), { lang: 'en', title: 'Projects · pm-service' }),
    );

    await gotoBoard(page, server, project.id);
    await page.getByRole('heading', { name: 'Named', level: 1 }).waitFor();
    await eventually(async () =>
      assert.deepEqual(await langAndTitle(page), { lang: 'en', title: 'Named board · pm-service' }),
    );
    const lists = await page
      .locator('[role="list"], ul, ol')
      .evaluateAll((els: any[]) =>
        els.filter((el) => el.closest('.board')).map((el) => el.getAttribute('aria-label') as string),
      );
    assert.deepEqual(lists, ['To do', 'In progress', 'Done']);
    for (const label of ['To do', 'In progress', 'Done'] as const) {
      assert.equal(await column(page, label).count(), 1, `one list named ${label}`);
      await page.getByRole('heading', { name: new RegExp(`^${label}`), level: 2 }).waitFor();
    }
    assert.equal(await page.getByRole('button', { name: 'Add task' }).count(), 3, 'an "Add task" per column');
    const named = card(column(page, 'To do'), 'A named card');
    await named.waitFor();
    assert.equal(await column(page, 'To do').getByRole('listitem').count(), 1);
    assert.equal(await page.getByRole('listitem', { name: 'A named card', exact: true }).count(), 1);
    // The card's description says the rest.
    const describedBy = await named.getAttribute('aria-describedby');
    assert.match((await page.locator(`[id="${describedBy}"]`).textContent()) ?? '', /High.*carol/);

    await page.goto(`${server.base}/tasks/${task.id}`);
    await page.getByRole('heading', { name: 'A named card', level: 1 }).waitFor();
    await eventually(async () =>
      assert.deepEqual(await langAndTitle(page), { lang: 'en', title: 'A named card · pm-service' }),
    );
    await page.getByRole('textbox', { name: 'Title' }).waitFor();
    await page.getByRole('textbox', { name: 'Comment', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Add comment' }).waitFor();
    await header(page).getByText('dana', { exact: true }).waitFor();
  },
);
