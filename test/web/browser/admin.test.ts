/**
 * The web app's webhooks and tokens in a real browser against the real server: a webhook created with two event types
 * and its secret shown once (never in the list, not after a reload), a ping and its attempt in the delivery log,
 * redeliveries, switching off, deleting; with AUTH=token a token issued (its value shown once, and working) and
 * revoked, and a `write` token that is offered neither view and is told why when it opens them; axe on every view.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { eventually, header, noBrowser, openPage, startServer, TEST_TIMEOUT, titled } from './helpers.ts';

const options = { timeout: TEST_TIMEOUT, skip: noBrowser() };

async function noSeriousViolations(page: Page, view: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  assert.ok(results.passes.length > 10, `axe ran its rules on ${view}`);
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  assert.deepEqual(serious, [], `axe on ${view}`);
}

async function signInWith(page: Page, token: string): Promise<void> {
  await page.getByRole('textbox', { name: 'API token' }).fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const URL_ = 'https://receiver.example.com/pm-events';

test(
  'a webhook created with two events, its secret shown once; a ping and redeliveries in its log',
  options,
  async (t) => {
    const server = await startServer(t);
    const browsing = await openPage(t, server, { path: '/webhooks', name: 'alice' });
    const { page, context } = browsing;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await titled(page, 'Webhooks');
    // AUTH=none: webhooks offered, tokens not.
    await header(page).getByRole('link', { name: 'Webhooks' }).waitFor();
    assert.equal(await header(page).getByRole('link', { name: 'Tokens' }).count(), 0);
    const list = page.getByRole('list', { name: 'Webhooks' });
    await list.getByRole('link', { name: 'https://chat.example.net/pm' }).waitFor();
    const chat = list.getByRole('listitem').filter({ hasText: 'https://chat.example.net/pm' });
    assert.match(await chat.innerText(), /All events/);
    await noSeriousViolations(page, 'the webhooks');

    await page.getByRole('button', { name: 'New webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook' });
    await dialog.getByRole('checkbox', { name: 'task.created' }).waitFor();
    const events = dialog.getByRole('group', { name: 'Events' });
    assert.equal(await events.getByRole('checkbox').count(), 13, 'the twelve types and All events');
    await events.getByRole('checkbox', { name: 'All events' }).waitFor();
    await noSeriousViolations(page, 'the new webhook dialog');
    await dialog.getByRole('textbox', { name: 'URL' }).fill(URL_);
    await dialog.getByRole('textbox', { name: 'Description' }).fill('Two events');
    await dialog.getByRole('checkbox', { name: 'task.created' }).check();
    await dialog.getByRole('checkbox', { name: 'milestone.reached' }).check();
    await dialog.getByRole('button', { name: 'Create webhook' }).click();

    const created = page.getByRole('dialog', { name: 'Webhook created' });
    const box = created.getByRole('textbox', { name: 'Signing secret' });
    await box.waitFor();
    const secret = await box.inputValue();
    assert.match(secret, /^whsec_[A-Za-z0-9]{12}$/);
    await created.getByText('will not be shown again').waitFor();
    await noSeriousViolations(page, "a new webhook's secret");
    await created.getByRole('button', { name: 'Copy' }).click();
    await created.getByRole('status').filter({ hasText: 'Copied to the clipboard' }).waitFor();
    assert.equal(
      await page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>),
      secret,
    );
    await created.getByRole('button', { name: 'Done' }).click();
    await created.waitFor({ state: 'detached' });

    const row = list.getByRole('listitem').filter({ hasText: URL_ });
    await row.waitFor();
    assert.match(await row.innerText(), /task\.created, milestone\.reached/);
    assert.ok(!(await page.content()).includes(secret), 'the secret is not in the list');
    const stored = (await server.api('GET', '/api/webhooks')).body.data.find((h: any) => h.url === URL_);
    assert.deepEqual(stored.events, ['task.created', 'milestone.reached']);
    assert.equal(stored.description, 'Two events');

    await page.reload();
    await row.waitFor();
    assert.ok(!(await page.content()).includes(secret), 'nor after a reload');

    // Switched off and on from the list.
    await page.getByRole('button', { name: `Switch off ${URL_}` }).click();
    await page.getByRole('button', { name: `Switch on ${URL_}` }).waitFor();
    assert.equal((await server.api('GET', `/api/webhooks/${stored.id}`)).body.data.active, false);
    await page.getByRole('button', { name: `Switch on ${URL_}` }).click();
    await page.getByRole('button', { name: `Switch off ${URL_}` }).waitFor();

    // Its page: a ping, its attempt in the log (the reserved host fails at once).
    await list.getByRole('link', { name: URL_ }).click();
    await page.getByRole('heading', { name: URL_, level: 1 }).waitFor();
    assert.ok(!(await page.content()).includes(secret), 'nor on its page');
    await page.getByText('No attempts.').waitFor();
    await page.getByRole('button', { name: 'Send a ping' }).click();
    await page.getByRole('status').filter({ hasText: 'Ping sent' }).waitFor();
    const log = page.getByRole('table', { name: 'Delivery attempts, newest first' });
    const pingRow = log.getByRole('row').filter({ hasText: 'webhook.ping' });
    await eventually(async () => assert.match(await pingRow.first().innerText(), /Failed/));
    assert.match(await pingRow.first().innerText(), /undeliverable/);
    await noSeriousViolations(page, "a webhook's page");

    // Redelivered: a second attempt of the same event.
    await page
      .getByRole('button', { name: /^Redeliver webhook\.ping/ })
      .first()
      .click();
    await page.getByRole('status').filter({ hasText: 'webhook.ping sent again' }).waitFor();
    await eventually(async () => assert.equal(await pingRow.count(), 2));
    // A task created: a failed task.created delivery; then every failed event since an hour ago, once each.
    await server.task('proj_001', 'Delivered somewhere');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await log.getByRole('row').filter({ hasText: 'task.created' }).waitFor();
    const since = page.getByLabel('Redeliver failed since');
    const hourAgo = new Date(Date.now() - 3_600_000 - new Date().getTimezoneOffset() * 60_000);
    await since.fill(hourAgo.toISOString().slice(0, 16));
    await page.getByRole('button', { name: 'Redeliver failed' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^2 events whose delivery failed since/ })
      .waitFor();
    await eventually(async () =>
      assert.equal(await log.getByRole('row').filter({ hasText: 'task.created' }).count(), 2),
    );

    // The status filter, and pages of 20 with "Load more".
    for (let i = 0; i < 20; i++) await server.api('POST', `/api/webhooks/${stored.id}/ping`);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('button', { name: 'Load more' }).waitFor();
    assert.equal(await log.getByRole('row').count(), 21, 'the first 20 and the head');
    await page.getByRole('button', { name: 'Load more' }).click();
    await eventually(async () => assert.equal(await log.getByRole('row').count(), 26));
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0);
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Succeeded' });
    await page.getByText('No attempts succeeded.').waitFor();

    // Deleted after its confirmation.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this webhook?' });
    await confirm.getByText(URL_).waitFor();
    await confirm.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    assert.equal((await server.api('GET', `/api/webhooks/${stored.id}`)).status, 404);

    // Tokens without AUTH=token: said to matter only with it, and still issued.
    await page.goto(`${server.base}/tokens`);
    await page.getByText('Tokens matter only when the service runs with').waitFor();
    await noSeriousViolations(page, 'the tokens without AUTH=token');
  },
);

test(
  'AUTH=token: a token issued (shown once, working) and revoked; a write token has no admin views',
  options,
  async (t) => {
    const server = await startServer(t, { auth: 'token' });
    const browsing = await openPage(t, server, { path: '/tokens' });
    const { page } = browsing;
    await signInWith(page, server.adminToken!);
    await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
    await titled(page, 'Tokens');
    await header(page).getByRole('link', { name: 'Tokens' }).waitFor();
    await header(page).getByRole('link', { name: 'Webhooks' }).waitFor();
    assert.equal(await page.getByText('Tokens matter only').count(), 0);
    await page.getByText('No tokens issued yet.').waitFor();
    await noSeriousViolations(page, 'the tokens');

    await page.getByRole('button', { name: 'New token' }).click();
    const dialog = page.getByRole('dialog', { name: 'New token' });
    await noSeriousViolations(page, 'the new token dialog');
    await dialog.getByRole('textbox', { name: 'Username' }).fill('writer');
    await dialog.getByRole('checkbox', { name: /^read/ }).uncheck();
    await dialog.getByRole('checkbox', { name: /^write/ }).check();
    await dialog.getByRole('textbox', { name: 'Description' }).fill('The write test');
    await dialog.getByLabel('Expires after (optional)').fill('2099-12-31');
    await dialog.getByRole('button', { name: 'Issue token' }).click();
    const issued = page.getByRole('dialog', { name: 'Token issued' });
    const value = await issued.getByRole('textbox', { name: 'API token' }).inputValue();
    assert.match(value, /^pmt_[A-Za-z0-9]{40}$/);
    await issued.getByText('will not be shown again').waitFor();
    await noSeriousViolations(page, "a new token's value");
    await issued.getByRole('button', { name: 'Done' }).click();
    const table = page.getByRole('table', { name: 'API tokens' });
    const row = table.getByRole('row').filter({ hasText: 'writer' });
    await row.waitFor();
    assert.match(await row.innerText(), /write\s+The write test\s+.*2099.*\s+Not yet/);
    assert.ok(!(await page.content()).includes(value), 'the value is not in the list');
    await page.reload();
    await row.waitFor();
    assert.ok(!(await page.content()).includes(value), 'nor after a reload');
    const session = await server.api('GET', '/api/session', undefined, { authorization: `Bearer ${value}` });
    assert.equal(session.status, 200);
    assert.deepEqual(session.body.data.scopes, ['write']);

    // The write token, in another browser: no Webhooks or Tokens, and told why at their paths.
    const other = await openPage(t, server, { path: '/' });
    await signInWith(other.page, value);
    await header(other.page).getByText('writer', { exact: true }).waitFor();
    await header(other.page).getByRole('link', { name: 'Teams' }).waitFor();
    assert.equal(await header(other.page).getByRole('link', { name: 'Webhooks' }).count(), 0);
    assert.equal(await header(other.page).getByRole('link', { name: 'Tokens' }).count(), 0);
    for (const [path, title] of [
      ['/webhooks', 'Webhooks'],
      ['/webhooks/wh_001', 'Webhook'],
      ['/tokens', 'Tokens'],
    ] as const) {
      await other.page.goto(`${server.base}${path}`);
      await other.page.getByRole('heading', { name: title, level: 1 }).waitFor();
      await other.page.getByText(/needs the admin scope/).waitFor();
      await noSeriousViolations(other.page, `${path} for a write token`);
    }

    // Revoked after its confirmation: gone from the list, refused by the service.
    await page.getByRole('button', { name: "Revoke writer's token (The write test)" }).click();
    const confirm = page.getByRole('dialog', { name: "Revoke writer's token?" });
    await confirm.getByText('stops working at once').waitFor();
    await noSeriousViolations(page, 'the revoke confirmation');
    await confirm.getByRole('button', { name: 'Revoke token' }).click();
    await row.waitFor({ state: 'detached' });
    const refused = await server.api('GET', '/api/session', undefined, { authorization: `Bearer ${value}` });
    assert.equal(refused.status, 401);
  },
);
