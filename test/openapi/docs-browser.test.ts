import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { launchChromium, noChromium } from '../helpers/chromium.ts';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

// The docs page as a user meets it: a real browser, the real server, "Try it out" against the same origin.
test(
  'the /docs page lists the operations and runs one against this server, loading nothing from elsewhere',
  { timeout: 120_000 },
  async (t) => {
    const missing = noChromium();
    if (missing) {
      t.skip(missing);
      return;
    }
    const app = await buildApp({ config: { logLevel: 'silent' } });
    t.after(() => app.close());
    const base = await app.listen({ host: '127.0.0.1', port: 0 });

    const browser = await launchChromium();
    t.after(() => browser.close());
    const page = await browser.newPage();
    page.setDefaultTimeout(30_000);
    const requested: string[] = [];
    const consoleErrors: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (msg) => msg.type() === 'error' && consoleErrors.push(msg.text()));
    page.on('pageerror', (err) => consoleErrors.push(err.message));

    await page.goto(`${base}/docs`);
    await page.getByText('listTasks', { exact: true }).waitFor();
    await page.getByText('Create a task', { exact: true }).waitFor();

    const operation = page.locator('#operations-Tasks-getTask');
    await operation.locator('.opblock-summary').first().click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    // The path parameter comes filled with the document's example, a seeded task.
    const id = operation.locator('input[placeholder="id"]');
    if ((await id.inputValue()) === '') await id.fill('task_001');
    assert.equal(await id.inputValue(), 'task_001');
    const answered = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/tasks/task_001');
    await operation.getByRole('button', { name: 'Execute' }).click();
    assert.equal((await answered).status(), 200);

    const body = operation.locator('.live-responses-table .response-col_description pre').first();
    await body.filter({ hasText: 'Design the new homepage' }).waitFor();
    assert.match(await body.innerText(), /"id": "task_001"/);

    const outside = requested.filter((url) => {
      const u = new URL(url);
      return !['data:', 'blob:'].includes(u.protocol) && !LOOPBACK.has(u.hostname);
    });
    assert.deepEqual(outside, [], 'requests to other hosts');
    assert.ok(
      requested.some((url) => url.endsWith('/api/openapi.json')),
      requested.join('\n'),
    );
    assert.deepEqual(consoleErrors, []);
  },
);

// With AUTH=token: the page's "Authorize" button takes a token, and "Try it out" then sends it.
test(
  'with AUTH=token, "Authorize" on the /docs page takes a token that "Try it out" then sends',
  { timeout: 120_000 },
  async (t) => {
    const missing = noChromium();
    if (missing) {
      t.skip(missing);
      return;
    }
    const adminToken = 'docs-admin-token-0123456789abcdefghijklmnop';
    const app = await buildApp({ config: { logLevel: 'silent', auth: 'token', adminToken } });
    t.after(() => app.close());
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const issued = await app.inject({
      method: 'POST',
      url: '/api/tokens',
      headers: { authorization: `Bearer ${adminToken}` },
      payload: { username: 'reader', scopes: ['read'] },
    });
    const token = issued.json().data.token as string;

    const browser = await launchChromium();
    t.after(() => browser.close());
    const page = await browser.newPage();
    page.setDefaultTimeout(30_000);
    const consoleErrors: string[] = [];
    page.on('pageerror', (err) => consoleErrors.push(err.message));
    await page.goto(`${base}/docs`);
    await page.getByText('listTasks', { exact: true }).waitFor();

    const operation = page.locator('#operations-Tasks-getTask');
    await operation.locator('.opblock-summary').first().click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    const id = operation.locator('input[placeholder="id"]');
    if ((await id.inputValue()) === '') await id.fill('task_001');
    const execute = async () => {
      const answered = page.waitForResponse((res) => new URL(res.url()).pathname === '/api/tasks/task_001');
      await operation.getByRole('button', { name: 'Execute' }).click();
      return answered;
    };
    // Before authorizing: refused.
    assert.equal((await execute()).status(), 401);

    await page.locator('.auth-wrapper .authorize').first().click();
    const modal = page.locator('.modal-ux');
    const bearer = modal.locator('form').filter({ hasText: 'bearerAuth' });
    await bearer.locator('input').first().fill(token);
    await bearer.getByRole('button', { name: 'Apply credentials' }).click();
    await bearer.getByRole('button', { name: 'Remove authorization' }).waitFor();
    await bearer.getByRole('button', { name: 'Close' }).click();
    await modal.waitFor({ state: 'detached' });

    const response = await execute();
    assert.equal(response.status(), 200);
    assert.equal(await response.request().headerValue('authorization'), `Bearer ${token}`);
    const body = operation.locator('.live-responses-table .response-col_description pre').first();
    await body.filter({ hasText: 'Design the new homepage' }).waitFor();
    assert.deepEqual(consoleErrors, []);
  },
);
