import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testApp } from '../helpers/app.ts';
import { errorOf } from '../helpers/app.ts';

test('/docs is a swagger-ui page whose every asset is served by this server', async (t) => {
  const { api } = await testApp(t);
  const page = await api.get('/docs');
  assert.equal(page.status, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assert.doesNotMatch(page.text, /https?:\/\/|\/\/[a-z]/i, 'no absolute or protocol-relative URL in the page');
  const csp = String(page.headers['content-security-policy']);
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /connect-src 'self'/);

  const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  assert.ok(
    assets.some((a) => a.endsWith('swagger-ui-bundle.js')),
    assets.join(' '),
  );
  for (const asset of assets) {
    const res = await api.get(new URL(asset, 'http://x/docs').pathname);
    assert.equal(res.status, 200, asset);
  }
  // The page's own script: the document from this server, no call to the public swagger.io validator.
  const init = await api.get('/docs/static/swagger-initializer.js');
  assert.match(init.text, /validatorUrl: null/);
  assert.match(init.text, /"urls":\[\{"url":"\/api\/openapi\.json","name":"pm-service API"\}\]/);
  assert.doesNotMatch(init.text.replace(/^\s*\/\/.*$/gm, ''), /https?:\/\//, 'no URL outside comments');
});

test('the document has one URL, /api/openapi.json: the copies under /docs answer 404', async (t) => {
  const { api } = await testApp(t);
  assert.equal((await api.get('/api/openapi.json')).status, 200);
  assert.equal((await api.get('/api/openapi.json/')).status, 200);
  for (const url of ['/docs/json', '/docs/yaml', '/docs/json/', '/docs/json?x=1']) {
    const res = await api.get(url);
    assert.equal(res.status, 404, url);
    assert.equal(errorOf(res).code, 'NOT_FOUND', url);
  }
});

test('GET / points the way: links to the docs page and the document, in the body and a Link header', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/');
  assert.equal(res.status, 200);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.deepEqual(res.body.links, { docs: '/docs', openapi: '/api/openapi.json' });
  assert.equal(res.body.name, 'pm-service API');
  assert.equal(res.headers.link, '</docs>; rel="service-doc", </api/openapi.json>; rel="service-desc"');
  for (const url of Object.values(res.body.links as Record<string, string>)) {
    assert.equal((await api.get(url)).status, 200, url);
  }
  assert.equal((await api.request({ method: 'HEAD', url: '/' })).status, 200);
});

test('the documentation routes keep the JSON error answers', async (t) => {
  const { api } = await testApp(t);
  const post = await api.post('/api/openapi.json', {});
  assert.equal(post.status, 405);
  assert.equal(errorOf(post).code, 'METHOD_NOT_ALLOWED');
  assert.equal(post.headers.allow, 'GET, HEAD');

  // The file server refuses a path out of its folder, or with a NUL, as a 403: no file there either.
  const refused = ['/docs/static/../../../../etc/passwd', '/docs/static/%00', '/docs/static/a%00.js'];
  for (const url of ['/docs/static/nope.js', '/docs/nope', '/api/openapi.yaml', ...refused]) {
    const res = await api.get(url);
    assert.equal(res.status, 404, url);
    assert.equal(errorOf(res).code, 'NOT_FOUND', url);
  }
  const postDocs = await api.post('/docs', {});
  assert.equal(postDocs.status, 404);
  assert.equal(errorOf(postDocs).code, 'NOT_FOUND');
});
