import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { AccessLog, loggerOptions, redactUrl } from '../../src/http/logging.ts';
import { MemoryStore } from '../../src/store/memory/store.ts';
import { ADMIN_TOKEN } from '../helpers/auth.ts';

test('redactUrl replaces the value of every access_token parameter, however its name is encoded', () => {
  const same = ['/api/tasks', '/api/tasks?status=done', '/api/tasks?x=%20', '/api/stream?access=1&token=2'];
  for (const url of same) assert.equal(redactUrl(url), url);
  assert.equal(redactUrl('/api/stream?access_token=pmt_abc'), '/api/stream?access_token=[Redacted]');
  assert.equal(
    redactUrl('/api/stream?since=1&access_token=pmt_abc&x=2&access_token=pmt_def'),
    '/api/stream?since=1&access_token=[Redacted]&x=2&access_token=[Redacted]',
  );
  assert.equal(redactUrl('/api/stream?access%5Ftoken=pmt_abc'), '/api/stream?access%5Ftoken=[Redacted]');
  assert.equal(redactUrl('/api/stream?%61ccess_token=pmt_abc'), '/api/stream?%61ccess_token=[Redacted]');
  assert.equal(redactUrl('/api/stream?%zz=1&access_token=p'), '/api/stream?%zz=1&access_token=[Redacted]');
  // Names a token may be sent under by mistake: not read as one, kept out of the logs all the same.
  for (const name of ['ACCESS_TOKEN', 'Access_Token', 'access_token[]', 'access_token%5B0%5D', 'access_token%00']) {
    assert.equal(redactUrl(`/api/stream?${name}=pmt_abc`), `/api/stream?${name}=[Redacted]`, name);
  }
  assert.equal(redactUrl('/api/stream?access_tokens=1'), '/api/stream?access_tokens=1');
});

test("the access line (the service's own formatter) shows the URL with its token redacted", () => {
  const lines: string[] = [];
  const request = {
    id: 'r1',
    method: 'GET',
    url: '/api/stream?access_token=pmt_secret123',
    server: { log: { level: 'info' } },
  } as unknown as FastifyRequest;
  new AccessLog({ write: (l) => lines.push(l) }).requestCompleted(null, request, {
    statusCode: 200,
    elapsedTime: 1,
  } as unknown as FastifyReply);
  assert.equal(lines.length, 1);
  assert.equal(JSON.parse(lines[0]!).url, '/api/stream?access_token=[Redacted]');
  assert.doesNotMatch(lines[0]!, /pmt_secret123/);
});

test("the service's logger redacts Authorization, X-API-Key and access_token wherever an entry carries them", () => {
  const out: string[] = [];
  const { stream: _stream, ...options } = loggerOptions('info');
  const log = pino(options, { write: (s: string) => out.push(s) });
  log.error({
    req: { headers: { authorization: 'Bearer pmt_a1', 'x-api-key': 'pmt_a2' }, query: { access_token: 'pmt_a3' } },
  });
  log.error({ headers: { authorization: 'Bearer pmt_a4', 'x-api-key': 'pmt_a5' } });
  assert.equal(out.length, 2);
  assert.doesNotMatch(out.join(''), /pmt_a/);
});

test('AUTH=token: no credential reaches the logs, access lines and error entries included', async (t) => {
  const out: string[] = [];
  const { stream: _stream, ...options } = loggerOptions('info');
  const logger = pino(options, { write: (s: string) => out.push(s) });
  const store = new MemoryStore();
  const app = await buildApp({
    logger,
    store,
    config: { auth: 'token', adminToken: ADMIN_TOKEN, rateLimit: { max: 100, windowMs: 60_000 } },
  });
  t.after(() => app.close());
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-api-key': 'pmt_keysecret' };
  assert.equal((await app.inject({ url: '/api/tasks?access_token=pmt_querysecret', headers })).statusCode, 200);
  assert.equal((await app.inject({ url: '/api/tasks', headers: { 'x-api-key': 'pmt_badsecret' } })).statusCode, 401);
  store.tasks.list = async () => {
    throw new Error('the disk is on fire');
  };
  assert.equal((await app.inject({ url: '/api/tasks?access_token=pmt_querysecret', headers })).statusCode, 500);
  const text = out.join('');
  assert.match(text, /the disk is on fire/, 'the error was logged');
  assert.match(text, /access_token=\[Redacted\]/);
  for (const secret of [ADMIN_TOKEN, 'pmt_keysecret', 'pmt_querysecret', 'pmt_badsecret']) {
    assert.ok(!text.includes(secret), `${secret} is in the logs`);
  }
});
