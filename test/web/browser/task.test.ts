/**
 * The web app's task view in a real browser against the real server: an edit saved, comments added, edited and
 * deleted, and an edit that meets someone else's (the service's 412) shown with the current values and applied
 * again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LIVE_MS, noBrowser, openPage, startServer, TEST_TIMEOUT, titled } from './helpers.ts';

const options = { timeout: TEST_TIMEOUT, skip: noBrowser() };

test("a task's title edited in its view is saved, and its heading and the page title follow", options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Editing');
  const task = await server.task(project.id, 'Old title');
  // A deep link: the app asks for the name first, then shows the task.
  const { page } = await openPage(t, server, { path: `/tasks/${task.id}`, name: 'alice' });

  await page.getByRole('heading', { name: 'Old title', level: 1 }).waitFor();
  await titled(page, 'Old title');
  const save = page.getByRole('button', { name: 'Save changes' });
  assert.ok(await save.isDisabled(), 'nothing to save yet');
  const title = page.getByRole('textbox', { name: 'Title' });
  await title.fill('New title');
  await save.click();

  await page.getByRole('heading', { name: 'New title', level: 1 }).waitFor();
  await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
  assert.equal(await title.inputValue(), 'New title');
  await titled(page, 'New title');
  const stored = await server.api('GET', `/api/tasks/${task.id}`);
  assert.equal(stored.body.data.title, 'New title');
  // The history says who changed it.
  await page.getByRole('region', { name: 'History' }).getByText('alice', { exact: true }).first().waitFor();
});

test('a comment is added, then edited and deleted by its author', options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Talking');
  const task = await server.task(project.id, 'Discuss me');
  // Someone else's comment: it offers its author's buttons to no one else.
  const theirs = await server.api('POST', '/api/comments', {
    targetType: 'task',
    targetId: task.id,
    author: 'bob',
    body: 'From bob',
  });
  assert.equal(theirs.status, 201);
  const { page } = await openPage(t, server, { name: 'alice' });
  await page.goto(`${server.base}/tasks/${task.id}`);
  const comments = page.getByRole('region', { name: /^Comments/ });
  await comments.getByText('From bob', { exact: true }).waitFor();
  assert.equal(await comments.getByRole('button', { name: 'Edit your comment' }).count(), 0);

  await page.getByRole('textbox', { name: 'Comment', exact: true }).fill('First thoughts');
  await page.getByRole('button', { name: 'Add comment' }).click();
  await comments.getByText('First thoughts', { exact: true }).waitFor();
  // The author's name heads each comment (its text is in a form while it is edited).
  const mine = comments.getByRole('listitem').filter({ has: page.getByText('alice', { exact: true }) });
  assert.equal(await mine.count(), 1);
  assert.equal(await page.getByRole('textbox', { name: 'Comment', exact: true }).inputValue(), '');

  await mine.getByRole('button', { name: 'Edit your comment' }).click();
  const edit = mine.getByRole('textbox', { name: 'Edit your comment' });
  await edit.fill('Second thoughts');
  await mine.getByRole('button', { name: 'Save comment' }).click();
  const edited = comments.getByRole('listitem').filter({ hasText: 'Second thoughts' });
  await edited.waitFor();
  await edited.getByText('(edited)').waitFor();
  let stored = (await server.api('GET', `/api/comments?targetType=task&targetId=${task.id}`)).body.data as {
    author: string;
    body: string;
  }[];
  assert.deepEqual(stored.map((c) => `${c.author}: ${c.body}`).sort(), ['alice: Second thoughts', 'bob: From bob']);

  await edited.getByRole('button', { name: 'Delete your comment' }).click();
  await edited.waitFor({ state: 'detached' });
  await comments.getByText('From bob', { exact: true }).waitFor();
  stored = (await server.api('GET', `/api/comments?targetType=task&targetId=${task.id}`)).body.data;
  assert.deepEqual(
    stored.map((c) => c.body),
    ['From bob'],
  );
});

test('an edit that meets a change made meanwhile shows the current values, then applies again', options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Conflicts');
  const task = await server.task(project.id, 'Shared title');
  const browsing = await openPage(t, server, { name: 'alice' });
  const { page } = browsing;
  // The save this test provokes answers 412: the browser notes the failed load.
  browsing.allowStatus(412);
  await page.goto(`${server.base}/tasks/${task.id}`);
  await page.getByRole('heading', { name: 'Shared title', level: 1 }).waitFor();

  const title = page.getByRole('textbox', { name: 'Title' });
  await title.fill('Mine');
  // Meanwhile, someone else changes it. The page, being edited, keeps the user's draft.
  const theirs = await server.api('PATCH', `/api/tasks/${task.id}`, { title: 'Theirs', priority: 'high' });
  assert.equal(theirs.status, 200);
  await page.waitForTimeout(500);
  assert.equal(await title.inputValue(), 'Mine');
  await page.getByRole('button', { name: 'Save changes' }).click();

  const conflict = page.getByRole('alert').filter({ hasText: 'Someone else changed this task' });
  await conflict.waitFor();
  const row = conflict.getByRole('row', { name: /^Title/ });
  assert.deepEqual(await row.getByRole('cell').allTextContents(), ['Theirs', 'Mine']);
  assert.equal((await server.api('GET', `/api/tasks/${task.id}`)).body.data.title, 'Theirs');

  await conflict.getByRole('button', { name: 'Apply my changes again' }).click();
  await conflict.waitFor({ state: 'detached' });
  await page.getByRole('heading', { name: 'Mine', level: 1 }).waitFor();
  const stored = (await server.api('GET', `/api/tasks/${task.id}`)).body.data;
  assert.equal(stored.title, 'Mine');
  // Only the user's field was applied: the other change stays.
  assert.equal(stored.priority, 'high');
});

test('the task view shows changes and comments made elsewhere, live', options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Watching');
  const task = await server.task(project.id, 'Watched task');
  const { page, allowStatus } = await openPage(t, server, { path: `/tasks/${task.id}`, name: 'alice' });
  await page.getByRole('heading', { name: 'Watched task', level: 1 }).waitFor();
  await page.getByText('No comments yet.').waitFor();
  const seen = { timeout: LIVE_MS };

  assert.equal((await server.api('PATCH', `/api/tasks/${task.id}`, { title: 'Renamed elsewhere' })).status, 200);
  await page.getByRole('heading', { name: 'Renamed elsewhere', level: 1 }).waitFor(seen);
  assert.equal(await page.getByRole('textbox', { name: 'Title' }).inputValue(), 'Renamed elsewhere');

  const comment = await server.api('POST', '/api/comments', {
    targetType: 'task',
    targetId: task.id,
    author: 'bob',
    body: 'Said elsewhere',
  });
  assert.equal(comment.status, 201);
  const comments = page.getByRole('region', { name: /^Comments/ });
  await comments.getByText('Said elsewhere', { exact: true }).waitFor(seen);
  assert.equal((await server.api('DELETE', `/api/comments/${comment.body.data.id}`)).status, 200);
  await comments.getByText('Said elsewhere', { exact: true }).waitFor({ state: 'detached', ...seen });

  // Deleted elsewhere: the view says the task was deleted while open; a reload says it is not found.
  const deleted = await server.api('DELETE', `/api/tasks/${task.id}`);
  assert.equal(deleted.status, 200);
  await page.getByRole('heading', { name: 'Deleted', level: 1 }).waitFor(seen);
  await page.getByText('This task was deleted while you had it open').waitFor();
  await titled(page, 'Deleted');
  allowStatus(404);
  await page.reload();
  await page.getByRole('heading', { name: 'Not found', level: 1 }).waitFor();
  await titled(page, 'Not found');
});
