/**
 * The web app with AUTH=token in a real browser against the real server: the sign-in form (a wrong token refused,
 * the admin token accepted), a read-only token that sees the board but cannot change it, and a revoked token that
 * signs its user out at the next action.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  boardLoaded,
  card,
  column,
  header,
  noBrowser,
  openPage,
  startServer,
  TEST_TIMEOUT,
  titled,
  type Server,
} from './helpers.ts';

const options = { timeout: TEST_TIMEOUT, skip: noBrowser() };

/** Types `token` in the sign-in form and sends it. */
async function signInWith(page: Page, token: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'API token' });
  await box.fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A new token for `username` with `scopes`, issued by the admin: its id and value. */
async function issue(server: Server, username: string, scopes: string[]): Promise<{ id: string; token: string }> {
  const res = await server.api('POST', '/api/tokens', { username, scopes });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { id: res.body.data.id, token: res.body.data.token };
}

test('AUTH=token: the sign-in form refuses a wrong token, saying so, and takes the admin token', options, async (t) => {
  const server = await startServer(t, { auth: 'token' });
  const browsing = await openPage(t, server);
  const { page } = browsing;
  // The wrong token's check answers 401: the browser notes the failed load.
  browsing.allowStatus(401);

  await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
  await titled(page, 'Sign in');
  // No username box in this mode.
  assert.equal(await page.getByRole('combobox', { name: 'Username' }).count(), 0);

  await signInWith(page, 'pmt_0000000000000000000000000000000000000000');
  const error = page.locator('#token-error');
  await error.filter({ hasText: /\S/ }).waitFor();
  assert.equal(await error.getAttribute('role'), 'alert');
  assert.ok(await page.getByRole('textbox', { name: 'API token' }).isVisible(), 'still asked for a token');

  await signInWith(page, server.adminToken!);
  await header(page).getByText('admin', { exact: true }).waitFor();
  await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
  await page.getByRole('link', { name: 'Website Redesign' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'New project' }).isDisabled(), false);
});

test(
  'AUTH=token: a read-only token sees the board, cannot add or move; revoked, its user is signed out',
  options,
  async (t) => {
    const server = await startServer(t, { auth: 'token' });
    const project = await server.project('Read only');
    const task = await server.task(project.id, 'Look, do not touch');
    const reader = await issue(server, 'reader', ['read']);
    const browsing = await openPage(t, server);
    const { page } = browsing;
    await signInWith(page, reader.token);
    await header(page).getByText('reader', { exact: true }).waitFor();
    assert.ok(await page.getByRole('button', { name: 'New project' }).isDisabled());

    await page.getByRole('link', { name: 'Read only' }).click();
    await boardLoaded(page);
    const cardInTodo = card(column(page, 'To do'), 'Look, do not touch');
    await cardInTodo.waitFor();
    const adds = page.getByRole('button', { name: 'Add task' });
    assert.equal(await adds.count(), 3);
    for (const add of await adds.all()) assert.ok(await add.isDisabled(), 'Add task is disabled');

    await cardInTodo.focus();
    await page.keyboard.press('Shift+ArrowRight');
    await page.waitForTimeout(500);
    assert.equal(await cardInTodo.count(), 1, 'the card stays');
    assert.equal(await card(column(page, 'In progress'), 'Look, do not touch').count(), 0);
    assert.equal((await server.api('GET', `/api/tasks/${task.id}`)).body.data.status, 'todo');
    // Its menu offers no move either.
    await page.getByRole('button', { name: 'Actions for Look, do not touch' }).click();
    const menu = page.getByRole('dialog', { name: 'Look, do not touch' });
    assert.ok(await menu.getByRole('button', { name: 'Done', exact: true }).isDisabled());
    await menu.getByRole('button', { name: 'Close' }).click();
    await menu.waitFor({ state: 'detached' });

    // Revoked: the next request the page makes is refused (401), and the user is asked to sign in again.
    assert.equal((await server.api('DELETE', `/api/tokens/${reader.id}`)).status, 200);
    browsing.allowStatus(401);
    await header(page).getByRole('link', { name: 'Projects' }).click();
    await page.getByRole('textbox', { name: 'API token' }).waitFor();
    await page
      .getByRole('alert')
      .filter({ hasText: /revoked or expired/ })
      .waitFor();
    assert.equal(await header(page).getByText('reader', { exact: true }).count(), 0);
    assert.equal(await page.evaluate(() => (globalThis as any).sessionStorage.length as number), 0, 'no token kept');
  },
);
