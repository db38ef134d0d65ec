/**
 * `npm run screenshots`: the web app's pictures in docs/screenshots/, made from the service as `npm start` runs it
 * (memory store, the sample records) in headless Chromium: the board and a task, wide and light, at phone width and
 * dark. Run it again after a change to how the app looks, and commit the pictures.
 */
import { mkdirSync } from 'node:fs';
import type { BrowserContext } from 'playwright-core';
import { launchChromium } from '../test/helpers/chromium.ts';
import { killAll, startServer } from '../test/helpers/server-process.ts';

const OUT = 'docs/screenshots';

const server = await startServer([], { LOG_LEVEL: 'info' });
const browser = await launchChromium(['--hide-scrollbars']);
mkdirSync(OUT, { recursive: true });

async function shoot(
  context: BrowserContext,
  path: string,
  file: string,
  ready: (page: import('playwright-core').Page) => Promise<void>,
) {
  const page = await context.newPage();
  await page.goto(`${server.baseUrl}${path}`);
  await ready(page);
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${OUT}/${file}` });
  await page.close();
  console.log(`${OUT}/${file}`);
}

try {
  for (const [width, height, scheme, suffix] of [
    [1280, 760, 'light', ''],
    [375, 740, 'dark', '-phone-dark'],
  ] as const) {
    const context = await browser.newContext({ viewport: { width, height }, colorScheme: scheme });
    await context.addInitScript({ content: `localStorage.setItem('pm-service.username', 'alice')` });
    await shoot(context, '/projects', `projects${suffix}.png`, (page) =>
      page.getByRole('link', { name: 'Website Redesign' }).waitFor(),
    );
    await shoot(context, '/projects/proj_001', `board${suffix}.png`, (page) =>
      page.getByRole('list', { name: 'To do' }).getByRole('listitem').first().waitFor(),
    );
    await shoot(context, '/tasks/task_002', `task${suffix}.png`, (page) =>
      page.getByRole('heading', { name: 'History' }).waitFor(),
    );
    await context.close();
  }
} finally {
  await browser.close();
  killAll(server.child);
}
