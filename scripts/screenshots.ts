/**
 * `npm run screenshots`: the web app's pictures in docs/screenshots/, made from the service as `npm start` runs it
 * (memory store, the sample records, signed in as `dana`) in headless Chromium: every view wide and light, the main
 * ones at phone width and dark. Run it again after a change to how the app looks, and commit the pictures.
 */
import { mkdirSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { killAll, startServer } from '../test/helpers/server-process.ts';
import { launchChromium } from '../test/helpers/chromium.ts';

const OUT = 'docs/screenshots';

const server = await startServer([], { LOG_LEVEL: 'info' });
const base = server.baseUrl;
const browser = await launchChromium(['--hide-scrollbars']);
mkdirSync(OUT, { recursive: true });

/** A task assigned to dana by someone else: a notification to show. */
await fetch(`${base}/api/tasks`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-actor': 'erin' },
  body: JSON.stringify({ projectId: 'proj_001', title: 'Review the launch copy', assignee: 'dana', priority: 'high' }),
});
await fetch(`${base}/api/time-entries`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-actor': 'dana' },
  body: JSON.stringify({ taskId: 'task_002', username: 'dana', hours: 2.5, description: 'Nav prototype' }),
});

interface Shot {
  readonly file: string;
  readonly path: string;
  readonly ready: (page: Page) => Promise<unknown>;
  /** What to do once it is ready (open a dialog), before the picture. */
  readonly then?: (page: Page) => Promise<unknown>;
}

const heading = (name: string) => (page: Page) => page.getByRole('heading', { name, level: 1 }).waitFor();
const firstCard = (page: Page) => page.getByRole('list', { name: 'To do' }).getByRole('listitem').first().waitFor();

const WIDE: Shot[] = [
  { file: 'projects', path: '/projects', ready: (p) => p.getByRole('link', { name: 'Website Redesign' }).waitFor() },
  { file: 'board', path: '/projects/proj_001', ready: firstCard },
  { file: 'task', path: '/tasks/task_002', ready: (p) => p.getByRole('heading', { name: 'History' }).waitFor() },
  { file: 'milestones', path: '/projects/proj_001/milestones', ready: heading('Website Redesign') },
  { file: 'time', path: '/projects/proj_001/time', ready: heading('Website Redesign') },
  { file: 'activity', path: '/activity', ready: heading('Activity') },
  {
    file: 'notifications',
    path: '/projects/proj_001',
    ready: firstCard,
    then: async (p) => {
      await p.getByRole('button', { name: /^Notifications, [1-9]/ }).click();
      await p.getByRole('dialog', { name: 'Notifications' }).getByRole('listitem').first().waitFor();
    },
  },
  { file: 'teams', path: '/teams', ready: heading('Teams') },
  { file: 'team', path: '/teams/team_001', ready: (p) => p.getByRole('heading', { level: 1 }).waitFor() },
  { file: 'webhooks', path: '/webhooks', ready: heading('Webhooks') },
  { file: 'webhook', path: '/webhooks/wh_001', ready: (p) => p.getByRole('heading', { level: 1 }).waitFor() },
  { file: 'tokens', path: '/tokens', ready: heading('Tokens') },
  {
    file: 'shortcuts',
    path: '/projects/proj_001',
    ready: firstCard,
    then: async (p) => {
      await p.keyboard.press('?');
      await p.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    },
  },
];
const PHONE = ['projects', 'board', 'task', 'notifications'];

async function shoot(context: BrowserContext, shot: Shot, file: string): Promise<void> {
  const page = await context.newPage();
  await page.goto(`${base}${shot.path}`);
  await shot.ready(page);
  await shot.then?.(page);
  await page.waitForTimeout(400);
  await page.screenshot({ path: `${OUT}/${file}.png` });
  await page.close();
  console.log(`${OUT}/${file}.png`);
}

try {
  for (const [width, height, scheme, suffix, shots] of [
    [1280, 760, 'light', '', WIDE],
    [375, 740, 'dark', '-phone-dark', WIDE.filter((s) => PHONE.includes(s.file))],
  ] as const) {
    const context = await browser.newContext({ viewport: { width, height }, colorScheme: scheme });
    await context.addInitScript({ content: `localStorage.setItem('pm-service.username', 'dana')` });
    for (const shot of shots) await shoot(context, shot, `${shot.file}${suffix}`);
    await context.close();
  }
} finally {
  await browser.close();
  killAll(server.child);
}
