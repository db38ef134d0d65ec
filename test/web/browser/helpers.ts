/**
 * The web app's end-to-end tests' set-up: Debian's Chromium driven through playwright-core against the real server
 * (`buildApp` on the store `TEST_STORE` names, listening on a loopback port). One browser per test file, a fresh
 * context (storage, cookies) per page. Every page fails its test on an uncaught error, a `console.error` (the app's
 * own unhandled rejections included) or a request to another host; a test allows the browser's "Failed to load
 * resource" line only for a status it provoked itself (`allowStatus`).
 */
import assert from 'node:assert/strict';
import { after, type TestContext } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { buildApp } from '../../../src/app.ts';
import type { Config } from '../../../src/config.ts';
import { launchChromium, noChromium } from '../../helpers/chromium.ts';
import { testStore } from '../../helpers/store.ts';

/** How long a change made elsewhere may take to show on a page. */
export const LIVE_MS = 5_000;
/** A test's time: a server, one or two pages, their steps. */
export const TEST_TIMEOUT = 120_000;

/** Why the browser tests cannot run here, or undefined when they can. */
export const noBrowser = noChromium;

let launched: Promise<Browser> | undefined;
// Registered at load, so that it belongs to the file's run: the file's one browser is closed when its tests end.
after(async () => {
  if (launched) await (await launched).close();
});

/** The file's browser, launched at the first call. */
export function browser(): Promise<Browser> {
  launched ??= launchChromium();
  return launched;
}

/** What a test does when it ends, last registered first (pages close before the server they talk to). */
class Cleanup {
  private readonly steps: (() => Promise<void>)[] = [];
  constructor(t: TestContext) {
    t.after(async () => {
      let first: unknown;
      for (const step of this.steps.splice(0).reverse()) {
        try {
          await step();
        } catch (err) {
          first ??= err;
        }
      }
      if (first !== undefined) throw first;
    });
  }
  add(step: () => Promise<void>): void {
    this.steps.push(step);
  }
}
const cleanups = new WeakMap<TestContext, Cleanup>();
function cleanupOf(t: TestContext): Cleanup {
  let cleanup = cleanups.get(t);
  if (!cleanup) cleanups.set(t, (cleanup = new Cleanup(t)));
  return cleanup;
}

export interface Answer {
  readonly status: number;
  readonly body: any;
  readonly headers: Record<string, unknown>;
}

export interface Server {
  readonly app: FastifyInstance;
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  /** The admin token when the service runs with `auth: 'token'`. */
  readonly adminToken?: string;
  /**
   * A request through `app.inject`: as `tester` (X-Actor) with AUTH=none, as the admin with AUTH=token, unless
   * `headers` say otherwise. JSON in, parsed JSON out.
   */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** A new task in `projectId` through the API; its record. */
  task(projectId: string, title: string, fields?: Record<string, unknown>): Promise<any>;
  /** A new project through the API; its record. */
  project(name: string): Promise<any>;
}

export const ADMIN_TOKEN = 'web-e2e-admin-token-0123456789abcdefghijklmnop';

/**
 * The real service on the test's store, seeded, listening on a loopback port; closed when the test ends.
 * `config`: settings beyond the test defaults (`auth: 'token'` gets {@link ADMIN_TOKEN} unless given one).
 */
export async function startServer(t: TestContext, config: Partial<Config> = {}): Promise<Server> {
  const token = config.auth === 'token';
  const settings = {
    logLevel: 'silent',
    ...(token ? { adminToken: ADMIN_TOKEN } : {}),
    ...config,
  } as Partial<Config>;
  const store = await testStore();
  const app = await buildApp({ store, config: settings }).catch(async (err: unknown) => {
    await store.close();
    throw err;
  });
  cleanupOf(t).add(() => app.close());
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const adminToken = token ? (settings.adminToken as string) : undefined;
  const api: Server['api'] = async (method, path, body, headers = {}) => {
    const who: Record<string, string> = adminToken
      ? { authorization: `Bearer ${adminToken}` }
      : { 'x-actor': 'tester' };
    const res = await app.inject({
      method: method as 'GET',
      url: path,
      headers: { ...who, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    let parsed: any;
    try {
      parsed = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      parsed = res.body;
    }
    return { status: res.statusCode, body: parsed, headers: res.headers };
  };
  const created = async (path: string, body: unknown) => {
    const res = await api('POST', path, body);
    if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  return {
    app,
    base,
    adminToken,
    api,
    task: (projectId, title, fields = {}) => created('/api/tasks', { projectId, title, ...fields }),
    project: (name) => created('/api/projects', { name }),
  };
}

export interface Browsing {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Allows the browser's "Failed to load resource" line for a response of this status (one the test provokes). */
  allowStatus(status: number): void;
  /** What went wrong on the page so far (errors, console errors, requests to other hosts). */
  readonly problems: readonly string[];
}

const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]']);
const FAILED_LOAD = /^Failed to load resource: the server responded with a status of (\d{3})\b/;

/**
 * A page in a fresh context of the file's browser, at `path` of `server`. With `name` (AUTH=none), it answers the
 * app's first question, the `Username` box, and waits for the name in the header. The page's problems fail the test
 * when it ends (and `expectNoProblems` checks them earlier).
 */
export async function openPage(
  t: TestContext,
  server: Server,
  options: {
    path?: string;
    name?: string;
    viewport?: { width: number; height: number };
    colorScheme?: 'light' | 'dark';
  } = {},
): Promise<Browsing> {
  const context = await (
    await browser()
  ).newContext({
    viewport: options.viewport ?? { width: 1280, height: 900 },
    colorScheme: options.colorScheme ?? 'light',
  });
  const problems: string[] = [];
  const allowed = new Set<number>();
  const cleanup = cleanupOf(t);
  cleanup.add(() => context.close());
  cleanup.add(async () => {
    if (problems.length > 0) throw new Error(`the page went wrong:\n  ${problems.join('\n  ')}`);
  });
  context.on('request', (request) => {
    const url = new URL(request.url());
    if (['data:', 'blob:', 'about:'].includes(url.protocol)) return;
    if (!LOCAL.has(url.hostname)) problems.push(`request to another host: ${request.method()} ${request.url()}`);
  });
  // The app shows an unhandled rejection in a banner rather than let it reach the console: said there too.
  await context.addInitScript(() => {
    (globalThis as any).document.addEventListener('app-error', (event: { detail: unknown }) => {
      console.error(`app-error: ${String(event.detail)}`);
    });
  });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  page.on('pageerror', (err) => problems.push(`uncaught: ${err.stack ?? err.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    const status = FAILED_LOAD.exec(text)?.[1];
    if (status !== undefined && allowed.has(Number(status))) return;
    problems.push(`console.error: ${text} (${message.location().url})`);
  });
  await page.goto(`${server.base}${options.path ?? '/'}`);
  if (options.name !== undefined) await signIn(page, options.name);
  return {
    context,
    page,
    problems,
    allowStatus: (status) => void allowed.add(status),
  };
}

/** Answers the app's `Username` question (AUTH=none) and waits for the name in the header. */
export async function signIn(page: Page, name: string): Promise<void> {
  const box = page.getByRole('combobox', { name: 'Username' });
  await box.fill(name);
  await box.press('Enter');
  await header(page).getByText(name, { exact: true }).waitFor();
}

/** The page's header (the banner landmark). */
export const header = (page: Page): Locator => page.getByRole('banner');

/** A board column: the list named by its status's label. */
export const column = (page: Page, label: 'To do' | 'In progress' | 'Done'): Locator =>
  page.getByRole('list', { name: label, exact: true });

/** A card: the list item whose name begins with the title. */
export const card = (scope: Page | Locator, title: string): Locator =>
  scope.getByRole('listitem', { name: new RegExp(`^${escapeRegExp(title)}`) });

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether the element has the focus. */
export function hasFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate((el: any) => el === el.ownerDocument.activeElement);
}

/** Waits for the document's title to be `view` and the app's name (a view sets it once it has drawn). */
export async function titled(page: Page, view: string): Promise<void> {
  const want = `${view} · pm-service`;
  await eventually(async () => assert.equal(await page.title(), want), 5_000);
}

/** Waits until `check` passes (it throws while it does not), up to `ms`. */
export async function eventually<T>(check: () => Promise<T>, ms = LIVE_MS): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The board of `projectId`, its tasks loaded (the page must be signed in). */
export async function gotoBoard(page: Page, server: Server, projectId: string): Promise<void> {
  await page.goto(`${server.base}/projects/${encodeURIComponent(projectId)}`);
  await boardLoaded(page);
}

/** Waits for the board's columns, its tasks loaded. */
export async function boardLoaded(page: Page): Promise<void> {
  // An empty column's list has no height: attached, not visible.
  await column(page, 'To do').waitFor({ state: 'attached' });
  await page.locator('.board-view[aria-busy="false"]').waitFor({ state: 'attached' });
}

/** Runs axe on the page as it is; fails on a serious or critical violation, naming each and where it is. */
export async function noSeriousViolations(page: Page, view: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  assert.ok(results.passes.length > 10, `axe ran its rules on ${view}`);
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const described = serious.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help}\n      ${v.nodes
        .slice(0, 5)
        .map((n) => `${n.target.join(' ')} — ${n.failureSummary?.replaceAll('\n', ' ')}`)
        .join('\n      ')}`,
  );
  assert.deepEqual(described, [], `axe on ${view}:\n  ${described.join('\n  ')}`);
}
