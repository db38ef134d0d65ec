/**
 * The web app's board in a real browser against the real server: a project created from the projects view, tasks
 * added inline, cards moved by drag and drop, by the keyboard and through their menu (on a phone-sized screen too),
 * changes made elsewhere shown live, and a title that looks like markup shown as text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  card,
  column,
  eventually,
  hasFocus,
  gotoBoard,
  LIVE_MS,
  noBrowser,
  openPage,
  startServer,
  TEST_TIMEOUT,
  titled,
  type Server,
} from './helpers.ts';

const skip = noBrowser();
const options = { timeout: TEST_TIMEOUT, skip };

/** The task's status as the service has it. */
async function statusOf(server: Server, id: string): Promise<string> {
  const res = await server.api('GET', `/api/tasks/${id}`);
  assert.equal(res.status, 200);
  return res.body.data.status as string;
}

/** Waits for the service to have the task in `status` (a move is stored once its PATCH is answered). */
async function storedAs(server: Server, id: string, status: string): Promise<void> {
  await eventually(async () => assert.equal(await statusOf(server, id), status));
}

test('a project created in its dialog (name, status, team) opens on its empty board', options, async (t) => {
  const server = await startServer(t);
  const { page } = await openPage(t, server, { name: 'alice' });
  await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'New project' }).click();
  const dialog = page.getByRole('dialog', { name: 'New project' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Launch plan');
  await dialog.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Active' });
  await dialog.getByRole('combobox', { name: 'Team' }).selectOption({ label: 'Platform' });
  await dialog.getByRole('button', { name: 'Create project' }).click();

  await page.getByRole('heading', { name: 'Launch plan', level: 1 }).waitFor();
  assert.match(new URL(page.url()).pathname, /^\/projects\/[^/]+$/);
  for (const label of ['To do', 'In progress', 'Done'] as const) {
    await column(page, label).waitFor({ state: 'attached' });
    assert.equal(await column(page, label).getByRole('listitem').count(), 0);
  }
  await titled(page, 'Launch plan board');

  const id = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
  const stored = (await server.api('GET', `/api/projects/${id}`)).body.data;
  assert.equal(stored.name, 'Launch plan');
  assert.equal(stored.status, 'active');
  assert.equal(stored.teamId, 'team_001');
});

test('"Add task" opens a box with the focus; Enter adds and keeps it open; Escape closes it', options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Inline');
  const { page } = await openPage(t, server, { name: 'alice' });
  await gotoBoard(page, server, project.id);

  const todo = page.locator('section.column').filter({ has: column(page, 'To do') });
  const add = todo.getByRole('button', { name: 'Add task' });
  await add.click();
  const box = todo.getByRole('textbox');
  await box.waitFor();
  assert.ok(await hasFocus(box), 'the box has the focus');
  assert.equal(await add.getAttribute('aria-expanded'), 'true');

  await box.fill('First inline task');
  await box.press('Enter');
  await card(column(page, 'To do'), 'First inline task').waitFor();
  assert.equal(await box.inputValue(), '', 'the box is emptied');
  assert.ok(await box.isVisible(), 'the box stays open');
  await box.fill('Second inline task');
  await box.press('Enter');
  await card(column(page, 'To do'), 'Second inline task').waitFor();
  assert.ok(await hasFocus(box), 'the box keeps the focus');

  await box.press('Escape');
  await box.waitFor({ state: 'detached' });
  await eventually(async () => assert.ok(await hasFocus(add)), 2_000);
  assert.equal(await add.getAttribute('aria-expanded'), 'false');

  const tasks = (await server.api('GET', `/api/tasks?projectId=${project.id}`)).body.data as { title: string }[];
  assert.deepEqual(tasks.map((task) => task.title).sort(), ['First inline task', 'Second inline task']);
});

test('a card dragged between columns moves there, and the service has its new status', options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Dragging');
  const task = await server.task(project.id, 'Drag me');
  await server.task(project.id, 'Already going', { status: 'in_progress' });
  const { page } = await openPage(t, server, { name: 'alice' });
  await gotoBoard(page, server, project.id);

  // From the list "To do" onto the list "In progress".
  await card(column(page, 'To do'), 'Drag me').dragTo(column(page, 'In progress'));
  await card(column(page, 'In progress'), 'Drag me').waitFor();
  assert.equal(await card(column(page, 'To do'), 'Drag me').count(), 0);
  await storedAs(server, task.id, 'in_progress');

  // Onto an empty column (its list has no height yet: the column takes the drop).
  const done = page.locator('section.column').filter({ has: column(page, 'Done') });
  await card(column(page, 'In progress'), 'Drag me').dragTo(done);
  await card(column(page, 'Done'), 'Drag me').waitFor();
  await storedAs(server, task.id, 'done');
  assert.equal(await card(column(page, 'In progress'), 'Already going').count(), 1);
});

test('Shift+ArrowRight moves the focused card one column right, and the service stores it', options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Keys');
  const task = await server.task(project.id, 'Keyboard card');
  const { page } = await openPage(t, server, { name: 'alice' });
  await gotoBoard(page, server, project.id);

  const todoCard = card(column(page, 'To do'), 'Keyboard card');
  await todoCard.focus();
  await page.keyboard.press('Shift+ArrowRight');
  const moved = card(column(page, 'In progress'), 'Keyboard card');
  await moved.waitFor();
  await storedAs(server, task.id, 'in_progress');
  // The card keeps the focus in its new column, so that it can go on.
  await eventually(async () => assert.ok(await hasFocus(moved)), 2_000);
  await page.keyboard.press('Shift+ArrowRight');
  await card(column(page, 'Done'), 'Keyboard card').waitFor();
  await storedAs(server, task.id, 'done');
});

test(
  'the keyboard: arrows go from card to card, M opens the menu (Escape gives the focus back), Enter opens',
  options,
  async (t) => {
    const server = await startServer(t);
    const project = await server.project('Keyboard only');
    await server.task(project.id, 'Older card');
    const newer = await server.task(project.id, 'Newer card');
    await server.task(project.id, 'Going card', { status: 'in_progress' });
    const { page } = await openPage(t, server, { name: 'alice' });
    await gotoBoard(page, server, project.id);

    // The newest first; one tab stop per column.
    const todo = column(page, 'To do');
    assert.deepEqual(
      (await todo.getByRole('listitem').allTextContents()).map((text) => text.split(/Medium|Low|High/)[0]),
      ['Newer card', 'Older card'],
    );
    await card(todo, 'Newer card').focus();
    await page.keyboard.press('ArrowDown');
    await eventually(async () => assert.ok(await hasFocus(card(todo, 'Older card'))), 2_000);
    await page.keyboard.press('ArrowRight');
    await eventually(async () => assert.ok(await hasFocus(card(column(page, 'In progress'), 'Going card'))), 2_000);
    await page.keyboard.press('ArrowLeft');
    await eventually(async () => assert.ok(await hasFocus(card(todo, 'Newer card'))), 2_000);

    await page.keyboard.press('m');
    const menu = page.getByRole('dialog', { name: 'Newer card' });
    await menu.waitFor();
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    await eventually(async () => assert.ok(await hasFocus(card(todo, 'Newer card'))), 2_000);

    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Newer card', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/tasks/${newer.id}`);
    // Back to the board with the browser's own history.
    await page.goBack();
    await card(todo, 'Newer card').waitFor();
  },
);

test('"Add task" with no title shows the service\'s refusal beside the box, and adds nothing', options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Empty titles');
  const browsing = await openPage(t, server, { name: 'alice' });
  const { page } = browsing;
  // The empty title is refused (400): the browser notes the failed load; the page says why.
  browsing.allowStatus(400);
  await gotoBoard(page, server, project.id);
  const todo = page.locator('section.column').filter({ has: column(page, 'To do') });
  await todo.getByRole('button', { name: 'Add task' }).click();
  const box = todo.getByRole('textbox');
  await box.press('Enter');
  await todo.getByRole('alert').filter({ hasText: /title/i }).waitFor();
  assert.ok(await hasFocus(box), 'the box keeps the focus');
  assert.equal(await column(page, 'To do').getByRole('listitem').count(), 0);
  await box.fill('Now with a title');
  await box.press('Enter');
  await card(column(page, 'To do'), 'Now with a title').waitFor();
  assert.equal(await todo.getByRole('alert').filter({ hasText: /\S/ }).count(), 0, 'the error is gone');
});

test('a card moved through its menu ("Actions for …", then "Done")', options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Menus');
  const task = await server.task(project.id, 'Menu card');
  const { page } = await openPage(t, server, { name: 'alice' });
  await gotoBoard(page, server, project.id);

  await page.getByRole('button', { name: 'Actions for Menu card' }).click();
  const dialog = page.getByRole('dialog', { name: 'Menu card' });
  await dialog.getByRole('button', { name: 'Done', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  await card(column(page, 'Done'), 'Menu card').waitFor();
  assert.equal(await card(column(page, 'To do'), 'Menu card').count(), 0);
  await storedAs(server, task.id, 'done');
});

test('on a 375-px-wide screen the board is usable: a card moves through its menu', options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Phone');
  const task = await server.task(project.id, 'Small screen card');
  const { page } = await openPage(t, server, { name: 'alice', viewport: { width: 375, height: 740 } });
  await gotoBoard(page, server, project.id);

  // Nothing sticks out sideways but what scrolls on purpose.
  const overflow = await page.evaluate(() => {
    const { document, innerWidth } = globalThis as any;
    return (document.documentElement.scrollWidth as number) - (innerWidth as number);
  });
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
  const actions = page.getByRole('button', { name: 'Actions for Small screen card' });
  await actions.scrollIntoViewIfNeeded();
  await actions.click();
  const dialog = page.getByRole('dialog', { name: 'Small screen card' });
  const box = await dialog.boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= 375, `the dialog fits the screen: ${JSON.stringify(box)}`);
  await dialog.getByRole('button', { name: 'In progress', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  await card(column(page, 'In progress'), 'Small screen card').waitFor();
  await storedAs(server, task.id, 'in_progress');
});

test('another browser sees cards created, moved and deleted, live, without reloading', options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Together');
  const first = await openPage(t, server, { name: 'alice' });
  const second = await openPage(t, server, { name: 'bob' });
  await gotoBoard(first.page, server, project.id);
  await gotoBoard(second.page, server, project.id);
  const seen = { timeout: LIVE_MS };
  // The second page must not reload: a mark on its window would be gone.
  await second.page.evaluate(() => ((globalThis as any).mark = 42));

  // Created through the API.
  const task = await server.task(project.id, 'Made elsewhere');
  await card(column(second.page, 'To do'), 'Made elsewhere').waitFor(seen);

  // Moved in the other browser.
  await first.page.getByRole('button', { name: 'Actions for Made elsewhere' }).click();
  await first.page.getByRole('dialog').getByRole('button', { name: 'In progress', exact: true }).click();
  await card(column(second.page, 'In progress'), 'Made elsewhere').waitFor(seen);
  await card(column(second.page, 'To do'), 'Made elsewhere').waitFor({ state: 'detached', ...seen });

  // Moved through the API.
  assert.equal((await server.api('PATCH', `/api/tasks/${task.id}`, { status: 'done' })).status, 200);
  await card(column(second.page, 'Done'), 'Made elsewhere').waitFor(seen);

  // Deleted in the other browser.
  await first.page.getByRole('button', { name: 'Actions for Made elsewhere' }).click();
  const menu = first.page.getByRole('dialog');
  await menu.getByRole('button', { name: 'Delete task' }).click();
  await menu.getByRole('button', { name: /^Yes, delete it/ }).click();
  await card(second.page, 'Made elsewhere').waitFor({ state: 'detached', ...seen });
  assert.equal((await server.api('GET', `/api/tasks/${task.id}`)).status, 404);

  assert.equal(await second.page.evaluate(() => (globalThis as any).mark), 42, 'no reload');

  // The project deleted through the API: the board says it was deleted while open.
  assert.equal((await server.api('DELETE', `/api/projects/${project.id}`)).status, 200);
  await second.page.getByRole('heading', { name: 'Deleted', level: 1 }).waitFor(seen);
  await second.page.getByText('This project was deleted while you had it open').waitFor();
  await titled(second.page, 'Deleted');
});

test('a title that looks like markup is shown as text, never run', options, async (t) => {
  const server = await startServer(t);
  const title = '<img src=x onerror=alert(1)>';
  const project = await server.project(`Markup ${title}`);
  const task = await server.task(project.id, title);
  const comment = await server.api('POST', '/api/comments', {
    targetType: 'task',
    targetId: task.id,
    author: '<b>bob</b>',
    body: `${title}<script>alert(2)</script>`,
  });
  assert.equal(comment.status, 201);
  const { page } = await openPage(t, server, { name: 'alice' });
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await gotoBoard(page, server, project.id);

  const shown = card(column(page, 'To do'), title);
  await shown.waitFor();
  assert.equal(await shown.locator('.card-title').textContent(), title);
  // Added through the page too, and opened in its own view.
  const todo = page.locator('section.column').filter({ has: column(page, 'To do') });
  await todo.getByRole('button', { name: 'Add task' }).click();
  await todo.getByRole('textbox').fill(`${title} again`);
  await todo.getByRole('textbox').press('Enter');
  await card(column(page, 'To do'), `${title} again`).waitFor();
  await page.goto(`${server.base}/tasks/${task.id}`);
  await page.getByRole('heading', { name: title, level: 1 }).waitFor();
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), title);
  await titled(page, title);
  await page.getByText(`${title}<script>alert(2)</script>`, { exact: true }).waitFor();
  await page.getByText('<b>bob</b>', { exact: true }).waitFor();
  assert.equal(await page.locator('.comments b, .comments script').count(), 0);
  await page.goto(`${server.base}/projects`);
  await page.getByRole('link', { name: `Markup ${title}`, exact: true }).waitFor();
  assert.equal(await page.locator('img').count(), 0, 'no img element');

  assert.equal(await page.locator('img').count(), 0, 'no img element');
  await gotoBoard(page, server, project.id);
  await card(column(page, 'To do'), `${title} again`).waitFor();
  assert.equal(await page.locator('img').count(), 0, 'no img element');
  assert.deepEqual(dialogs, []);
});
