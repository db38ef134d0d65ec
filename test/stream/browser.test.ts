import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testApp } from '../helpers/app.ts';
import { launchChromium, noChromium } from '../helpers/chromium.ts';
import { listening } from './sse.ts';

// The stream as a page uses it: the browser's own EventSource, its own reconnection with Last-Event-ID.
test(
  "a page's EventSource receives a change, and after the server drops the connection resumes without a gap",
  { timeout: 120_000 },
  async (t) => {
    const missing = noChromium();
    if (missing) {
      t.skip(missing);
      return;
    }
    const { app, api } = await testApp(t);
    const base = await listening(app);
    const browser = await launchChromium();
    t.after(() => browser.close());
    const page = await browser.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${base}/api/health`);
    // The page's script, as a page would have it (run in the browser, so written as text here).
    await page.evaluate(`new Promise((resolve) => {
      window.got = [];
      window.opens = 0;
      const events = new EventSource('/api/stream?types=task.created');
      events.addEventListener('task.created', (e) => {
        window.got.push({ id: e.lastEventId, title: JSON.parse(e.data).data.title });
      });
      events.onopen = () => {
        window.opens++;
        resolve();
      };
    })`);
    const got = () => page.evaluate<{ id: string; title: string }[]>('window.got');

    await api.post('/api/tasks', { projectId: 'proj_001', title: 'first' });
    await page.waitForFunction('window.got.length === 1');

    // The server drops the stream; a change is made while the page is away. The browser comes back by itself
    // (after `retry:`) with Last-Event-ID, and gets what it missed, then what follows, once each.
    app.server.closeAllConnections();
    await api.post('/api/tasks', { projectId: 'proj_001', title: 'while away' });
    await page.waitForFunction('window.opens === 2');
    await api.post('/api/tasks', { projectId: 'proj_001', title: 'after' });
    await page.waitForFunction('window.got.length === 3');
    const events = await got();
    assert.deepEqual(
      events.map((e) => e.title),
      ['first', 'while away', 'after'],
    );
    assert.equal(new Set(events.map((e) => e.id)).size, 3);
  },
);
