import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { prefersHtml } from '../../src/web/accept.ts';
import { testApp } from '../helpers/app.ts';
import { authApp, AS_ADMIN } from '../helpers/auth.ts';

/** What Chromium sends when it navigates to a page. */
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('prefersHtml: text/html over application/json by q-value', () => {
  test('a browser navigation prefers HTML', () => {
    assert.equal(prefersHtml(BROWSER), true);
    assert.equal(prefersHtml('text/html'), true);
    assert.equal(prefersHtml('application/json;q=0.5, text/html'), true);
    assert.equal(prefersHtml('text/*;q=0.9, application/json;q=0.1'), true);
  });

  test('a tie, */*, JSON first, no header or nonsense: JSON', () => {
    for (const accept of [
      undefined,
      '',
      '*/*',
      'application/json',
      'text/html, application/json',
      'application/json, text/html',
      'text/html;q=0.5, application/json;q=0.5',
      'text/html;q=0, */*',
      'text/html;q=abc, application/json;q=0.1',
      'garbage',
      '*/*;q=0.8, application/*',
    ])
      assert.equal(prefersHtml(accept), false, String(accept));
  });

  test('the most specific range sets a type’s quality', () => {
    // text/html is named at 0.2: the text/* and */* ranges do not lift it.
    assert.equal(prefersHtml('text/html;q=0.2, text/*, application/json;q=0.5'), false);
    assert.equal(prefersHtml('application/json;q=0.1, */*'), true);
  });
});

describe('the web app is served to browsers, JSON to everyone else', () => {
  test('GET / answers the page to a browser: CSP without inline script, not cached, lang and a title', async (t) => {
    const { app } = await testApp(t);
    const res = await app.inject({ url: '/', headers: { accept: BROWSER } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.match(String(res.headers.vary), /Accept/);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /style-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(res.body, /<html lang="en">/);
    assert.match(res.body, /<title>[^<]+<\/title>/);
    assert.match(res.body, /<meta name="pm-auth" content="none">/);
    // Every script is a file of the service's; none inline.
    assert.deepEqual(res.body.match(/<script[^>]*>/g), [
      res.body
        .match(/<script type="module" src="\/assets\/main-[A-Z0-9]+\.js"><\/script>/)![0]
        .replace('</script>', ''),
    ]);
    assert.doesNotMatch(res.body, /<script[^>]*>[^<]+<\/script>/);
  });

  test('GET / answers JSON as before to curl, scripts and a tie', async (t) => {
    const { app } = await testApp(t);
    for (const accept of [undefined, '*/*', 'application/json', 'text/html, application/json']) {
      const res = await app.inject({ url: '/', headers: accept === undefined ? {} : { accept } });
      assert.equal(res.statusCode, 200, String(accept));
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(res.json().links.docs, '/docs');
      assert.match(String(res.headers.vary), /Accept/);
    }
  });

  test('deep links answer the page to a browser and a JSON 404 to others', async (t) => {
    const { app } = await testApp(t);
    for (const url of ['/projects', '/projects/proj_001', '/tasks/task_003', '/tasks/task_003/', '/sign-in']) {
      const page = await app.inject({ url, headers: { accept: BROWSER } });
      assert.equal(page.statusCode, 200, url);
      assert.match(page.body, /<div id="app">/);
      const json = await app.inject({ url });
      assert.equal(json.statusCode, 404, url);
      assert.equal(json.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(json.json().error.code, 'NOT_FOUND');
    }
  });

  test('/api and /docs are untouched: a browser gets JSON from the API and the docs page from /docs', async (t) => {
    const { app } = await testApp(t);
    const tasks = await app.inject({ url: '/api/tasks', headers: { accept: BROWSER } });
    assert.equal(tasks.statusCode, 200);
    assert.equal(tasks.headers['content-type'], 'application/json; charset=utf-8');
    const unknown = await app.inject({ url: '/api/nothing', headers: { accept: BROWSER } });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.code, 'NOT_FOUND');
    const elsewhere = await app.inject({ url: '/somewhere/else', headers: { accept: BROWSER } });
    assert.equal(elsewhere.statusCode, 404);
    assert.equal(elsewhere.headers['content-type'], 'application/json; charset=utf-8');
    const docs = await app.inject({ url: '/docs/', headers: { accept: BROWSER } });
    assert.equal(docs.statusCode, 200);
    assert.match(docs.body, /swagger/i);
    assert.doesNotMatch(docs.body, /pm-auth/);
  });

  test('assets: compressed as the client takes them, cached a year; an unknown one is a JSON 404', async (t) => {
    const { app } = await testApp(t);
    const page = await app.inject({ url: '/', headers: { accept: BROWSER } });
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(page.body)![1]!;
    const style = /href="(\/assets\/[^"]+\.css)"/.exec(page.body)![1]!;
    const plain = await app.inject({ url: script });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(plain.headers.vary), /Accept-Encoding/);
    const gzip = await app.inject({ url: script, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gzip.rawPayload).toString(), plain.body);
    const br = await app.inject({ url: style, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers['content-type'], 'text/css; charset=utf-8');
    assert.ok(brotliDecompressSync(br.rawPayload).toString().includes('light-dark('));
    const refused = await app.inject({ url: script, headers: { 'accept-encoding': 'br;q=0, gzip;q=0' } });
    assert.equal(refused.headers['content-encoding'], undefined);
    const missing = await app.inject({ url: '/assets/main-NOPE.js' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error.code, 'NOT_FOUND');
  });

  test('with AUTH=token the page needs no token and tells the app the mode', async (t) => {
    const { app } = await authApp(t);
    const res = await app.inject({ url: '/projects/proj_001', headers: { accept: BROWSER } });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<meta name="pm-auth" content="token">/);
    // The API itself still needs one.
    assert.equal((await app.inject({ url: '/api/projects', headers: { accept: BROWSER } })).statusCode, 401);
  });

  test('not built: the page answers 503 in the error shape, saying how to build it; the API works', async (t) => {
    const empty = mkdtempSync(join(tmpdir(), 'pm-web-'));
    t.after(() => rmSync(empty, { recursive: true, force: true }));
    const { app } = await testApp(t, { webDist: empty });
    const page = await app.inject({ url: '/projects', headers: { accept: BROWSER } });
    assert.equal(page.statusCode, 503);
    assert.equal(page.headers['content-type'], 'application/json; charset=utf-8');
    assert.match(page.json().error.message, /npm run build:web/);
    assert.equal((await app.inject({ url: '/' })).json().links.docs, '/docs');
    assert.equal((await app.inject({ url: '/api/tasks/task_001' })).statusCode, 200);
  });
});

describe('GET /api/session', () => {
  test('without AUTH=token: mode none, no username, every scope', async (t) => {
    const { api } = await testApp(t);
    const res = await api.get('/api/session');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { data: { auth: 'none', username: null, scopes: ['read', 'write', 'admin'] } });
  });

  test('with AUTH=token: the token’s username and scopes; no token is a 401', async (t) => {
    const test = await authApp(t);
    const { token } = await test.issue({ username: 'wall', scopes: ['read'] });
    const res = await test.api.get('/api/session', { authorization: `Bearer ${token}` });
    assert.deepEqual(res.body, { data: { auth: 'token', username: 'wall', scopes: ['read'] } });
    const admin = await test.api.get('/api/session', AS_ADMIN);
    assert.equal(admin.body.data.username, 'admin');
    assert.equal((await test.api.get('/api/session')).status, 401);
  });
});

test('buildApp serves the page from the build the repository makes (web/dist)', async (t) => {
  const app = await buildApp({ config: { logLevel: 'silent' } });
  t.after(() => app.close());
  const res = await app.inject({ url: '/', headers: { accept: BROWSER } });
  assert.equal(res.statusCode, 200, 'run npm run build:web first: ' + res.body.slice(0, 200));
});
