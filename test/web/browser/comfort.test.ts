/**
 * The web app's everyday comforts in a real browser: notifications that arrive live and are read, the activity feeds,
 * the keyboard shortcuts with their help and the command palette, and the theme switch.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  boardLoaded,
  eventually,
  LIVE_MS,
  noBrowser,
  noSeriousViolations,
  openPage,
  startServer,
  TEST_TIMEOUT,
  titled,
} from './helpers.ts';

const options = { timeout: TEST_TIMEOUT, skip: noBrowser() };

test(
  'a notification arrives live in the header, opens its task, and is read one by one or all at once',
  options,
  async (t) => {
    const server = await startServer(t);
    const project = await server.project('Noticed');
    const { page } = await openPage(t, server, { path: `/projects/${project.id}`, name: 'dana' });
    await boardLoaded(page);
    const bell = page.getByRole('button', { name: /^Notifications, \d+ unread$/ });
    assert.equal(await bell.getAttribute('aria-label'), 'Notifications, 0 unread');

    // Two tasks assigned to dana by someone else: the count follows without a reload.
    const first = await server.task(project.id, 'Read the brief', { assignee: 'dana' });
    await server.task(project.id, 'Sign the contract', { assignee: 'dana' });
    await page.getByRole('button', { name: 'Notifications, 2 unread' }).waitFor({ timeout: LIVE_MS });

    await bell.click();
    const panel = page.getByRole('dialog', { name: 'Notifications' });
    await panel.waitFor();
    await noSeriousViolations(page, 'the notifications panel');
    // Newest first.
    const items = panel.getByRole('listitem');
    assert.match((await items.first().innerText()) ?? '', /Sign the contract/);
    // Opening one goes to its task and marks it read.
    await panel.getByRole('button', { name: /^tester assigned you .*Read the brief/ }).click();
    await page.getByRole('heading', { name: 'Read the brief', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/tasks/${first.id}`);
    await page.getByRole('button', { name: 'Notifications, 1 unread' }).waitFor();
    const stored = await server.api('GET', '/api/notifications?username=dana&read=false');
    assert.equal(stored.body.data.length, 1);

    // Mark all read, on the full list.
    await page.keyboard.press('g');
    await page.keyboard.press('n');
    await titled(page, 'Notifications');
    await page.getByRole('button', { name: 'Mark all read' }).click();
    await page.getByRole('button', { name: 'Notifications, 0 unread' }).waitFor();
    assert.equal((await server.api('GET', '/api/notifications?username=dana&read=false')).body.data.length, 0);
    await noSeriousViolations(page, 'the notifications page');
  },
);

test(
  'the activity feed shows who did what, takes filters in the address, and adds new entries live',
  options,
  async (t) => {
    const server = await startServer(t);
    const project = await server.project('Watched');
    const task = await server.task(project.id, 'First move');
    const { page } = await openPage(t, server, { path: '/activity', name: 'alice' });
    await titled(page, 'Activity');
    const feed = page.locator('.activity-list');
    await feed.getByText(`Created task 'First move'`, { exact: false }).waitFor();
    await noSeriousViolations(page, 'the activity feed');

    // Made elsewhere: shown without a reload, at the top.
    await server.api('PATCH', `/api/tasks/${task.id}`, { title: 'Renamed live' }, { 'x-actor': 'bob' });
    await eventually(async () =>
      assert.match(await feed.getByRole('listitem').first().innerText(), /bob.*Renamed live/s),
    );

    // A filter narrows the feed and is kept in the address.
    await page.getByRole('textbox', { name: 'Who' }).fill('bob');
    await page.getByRole('textbox', { name: 'Who' }).press('Tab');
    await eventually(async () => assert.equal(new URL(page.url()).searchParams.get('actor'), 'bob'));
    await eventually(async () => {
      const texts = await feed.getByRole('listitem').allInnerTexts();
      assert.ok(texts.length > 0 && texts.every((text) => text.startsWith('bob')), texts.join(' | '));
    });

    // An entry opens its record.
    await feed
      .getByRole('button', { name: /Renamed live/ })
      .first()
      .click();
    await page.getByRole('heading', { name: 'Renamed live', level: 1 }).waitFor();

    // A project's feed holds its own and its tasks' entries, not another project's.
    const other = await server.project('Elsewhere');
    await server.task(other.id, 'Not in Watched');
    await page.goto(`${server.base}/projects/${project.id}/activity`);
    await feed.getByText('Renamed live', { exact: false }).first().waitFor();
    await feed
      .getByText(`Created project 'Watched'`, { exact: false })
      .or(feed.getByText('Created project Watched'))
      .first()
      .waitFor();
    assert.equal(await feed.getByText('Not in Watched', { exact: false }).count(), 0);
    await noSeriousViolations(page, "a project's activity");
  },
);

test(
  'shortcuts: ? lists them, g goes to a section, / and c act on the board, none while typing',
  options,
  async (t) => {
    const server = await startServer(t);
    const project = await server.project('Keys');
    await server.task(project.id, 'Only card');
    const { page } = await openPage(t, server, { path: `/projects/${project.id}`, name: 'alice' });
    await boardLoaded(page);

    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    assert.match(await help.innerText(), /Ctrl\+K/);
    await noSeriousViolations(page, 'the shortcuts dialog');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'hidden' });

    // `/` finds the board's search; typing there is text, not shortcuts.
    await page.keyboard.press('/');
    const search = page.getByRole('searchbox', { name: 'Search titles' });
    assert.ok(await search.evaluate((el) => el === el.ownerDocument.activeElement));
    await page.keyboard.type('g?c');
    assert.equal(await search.inputValue(), 'g?c');
    assert.equal(await page.getByRole('dialog').count(), 0);
    assert.equal(new URL(page.url()).pathname, `/projects/${project.id}`);
    await search.fill('');
    await page.locator('body').click({ position: { x: 5, y: 400 } });

    // `c` opens To do's Add task box.
    await page.keyboard.press('c');
    const box = page.getByRole('textbox', { name: 'Title of the new task in To do' });
    await box.waitFor();
    await box.press('Escape');

    await page.keyboard.press('g');
    await page.keyboard.press('t');
    await eventually(async () => assert.equal(new URL(page.url()).pathname, '/teams'));
    await page.keyboard.press('g');
    await page.keyboard.press('p');
    await titled(page, 'Projects');
  },
);

test('Ctrl+K finds a task by the words of its title and opens it', options, async (t) => {
  const server = await startServer(t);
  const project = await server.project('Palette');
  await server.task(project.id, 'Renew the TLS certificates');
  const { page } = await openPage(t, server, { path: '/projects', name: 'alice' });
  await titled(page, 'Projects');
  await page.keyboard.press('Control+k');
  const palette = page.getByRole('dialog', { name: 'Go to a project or task' });
  await palette.waitFor();
  await page.getByRole('combobox', { name: 'Find by name' }).fill('tls renew');
  await palette.getByRole('option', { name: /Renew the TLS certificates/ }).waitFor();
  await noSeriousViolations(page, 'the command palette');
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Renew the TLS certificates', level: 1 }).waitFor();
});

test('the theme follows the system, and a chosen one is kept in this browser', options, async (t) => {
  const server = await startServer(t);
  const { page } = await openPage(t, server, { path: '/projects', name: 'alice', colorScheme: 'dark' });
  await titled(page, 'Projects');
  const background = () =>
    page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor);
  assert.equal(await background(), 'rgb(20, 23, 28)', 'dark, as the system prefers');
  const theme = page.getByRole('combobox', { name: 'Theme' });
  await theme.selectOption('light');
  assert.equal(await background(), 'rgb(246, 247, 249)');
  await page.reload();
  await titled(page, 'Projects');
  assert.equal(await background(), 'rgb(246, 247, 249)', 'kept across a reload');
  await noSeriousViolations(page, 'the projects, light chosen on a dark system');
  await theme.selectOption('system');
  assert.equal(await background(), 'rgb(20, 23, 28)');
});

test(
  'the whole activity log pages 50 at a time: Load more follows the cursor the service sends',
  options,
  async (t) => {
    const server = await startServer(t);
    const project = await server.project('Busy');
    for (let i = 0; i < 55; i++) await server.task(project.id, `Paged ${String(i).padStart(2, '0')}`);
    const { page } = await openPage(t, server, { path: '/activity', name: 'alice' });
    const feed = page.locator('.activity-list');
    await feed.getByText(`Created task 'Paged 54'`).waitFor();
    assert.equal(await feed.getByRole('listitem').count(), 50);
    const asked: string[] = [];
    page.on('request', (request) => asked.push(request.url()));
    await page.getByRole('button', { name: 'Load more' }).click();
    await eventually(async () => assert.ok((await feed.getByRole('listitem').count()) > 50));
    assert.ok(
      asked.some((url) => new URL(url).pathname === '/api/activity-log' && new URL(url).searchParams.has('cursor')),
      asked.join('\n'),
    );
    // Every entry once: the seeded ten, the project and the 55 tasks.
    const texts = await feed.getByRole('listitem').allInnerTexts();
    assert.equal(new Set(texts).size, texts.length);
    await feed.getByText(`Created task 'Paged 00'`).waitFor();
  },
);
