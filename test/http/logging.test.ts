import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';
import { AccessLog, LinesPerTurn, loggerOptions } from '../../src/http/logging.ts';
import { startServer } from '../helpers/server-process.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('log lines written in one turn of the event loop reach stdout together, in one write, at the end of that turn', async () => {
  const writes: string[] = [];
  const out = new LinesPerTurn({ write: (text: string) => writes.push(text) });
  out.write('{"n":1}\n');
  out.write('{"n":2}\n');
  assert.deepEqual(writes, [], 'nothing is written during the turn');
  await nextTurn();
  assert.deepEqual(writes, ['{"n":1}\n{"n":2}\n']);
  await nextTurn();
  assert.equal(writes.length, 1, 'a turn that logged nothing writes nothing');
  out.write('{"n":3}\n');
  let flushed = false;
  out.flush(() => (flushed = true));
  assert.ok(flushed);
  assert.deepEqual(writes, ['{"n":1}\n{"n":2}\n', '{"n":3}\n'], 'flush writes at once');
});

test('lines logged just before the process exits are written (process.exit and an uncaught error)', () => {
  for (const [how, code] of [
    ['process.exit(3)', 3],
    ["throw new Error('boom')", 1],
  ] as const) {
    const script = `import { stdoutPerTurn } from './src/http/logging.ts'; const out = stdoutPerTurn(); out.write('{"last":1}\\n'); out.write('{"last":2}\\n'); ${how};`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.equal(child.status, code, child.stderr);
    assert.equal(child.stdout, '{"last":1}\n{"last":2}\n', how);
  }
});

test('over real HTTP, the access line of a request is on stdout by the time its answer has arrived and a turn passed', async (t) => {
  const server = await startServer();
  t.after(() => server.child.kill('SIGKILL'));
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${server.baseUrl}/api/tasks/task_001`, { headers: { 'x-request-id': `log-test-${i}` } });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    let line: string | undefined;
    for (let waited = 0; waited < 1_000 && !line; waited += 10) {
      line = server
        .output()
        .split('\n')
        .find((l) => l.includes(`"reqId":"log-test-${i}"`));
      if (!line) await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(line, `access line of request ${i}`);
    const entry = JSON.parse(line) as Record<string, unknown>;
    assert.equal(entry.msg, 'request completed');
    assert.equal(entry.statusCode, 200);
    assert.equal(entry.url, '/api/tasks/task_001');
    assert.deepEqual(Object.keys(entry), [
      'level',
      'time',
      'pid',
      'hostname',
      'reqId',
      'method',
      'url',
      'statusCode',
      'responseTime',
      'msg',
    ]);
    assert.equal(entry.pid, server.child.pid);
  }
});

test("the access line, formatted by the service itself, is the line its pino logger would write, at the logger's level only", () => {
  const made: string[] = [];
  const fromPino: string[] = [];
  const options = loggerOptions('info');
  const log = pino({ ...options }, { write: (l: string) => fromPino.push(l) });
  const access = new AccessLog({ write: (l) => made.push(l) });
  const urls = ['/api/tasks/task_001', '/api/tasks?title="quoted"\\back\u0001\u2028é😀', '/%7B%22a%22%7D'];
  for (const [i, url] of urls.entries()) {
    const request = { id: `req-${i}`, method: i === 1 ? 'PATCH' : 'GET', url, server: { log } };
    const reply = { statusCode: 200 + i, elapsedTime: 0.25 * (i + 1) };
    access.requestCompleted(null, request as unknown as FastifyRequest, reply as unknown as FastifyReply);
    log.info(
      { reqId: request.id, method: request.method, url, statusCode: reply.statusCode, responseTime: reply.elapsedTime },
      'request completed',
    );
  }
  const sameTime = (line: string) => line.replace(/"time":\d+/, '"time":0');
  assert.equal(made.length, urls.length);
  assert.deepEqual(made.map(sameTime), fromPino.map(sameTime));
  assert.deepEqual(
    made.map((l) => (JSON.parse(l) as { url: string }).url),
    urls,
  );

  made.length = 0;
  for (const [level, lines] of [
    ['warn', 0],
    ['silent', 0],
    ['debug', 1],
    ['info', 1],
  ] as const) {
    log.level = level;
    access.requestCompleted(
      null,
      { id: 'r', method: 'GET', url: '/', server: { log } } as unknown as FastifyRequest,
      { statusCode: 200, elapsedTime: 1 } as unknown as FastifyReply,
    );
    assert.equal(made.length, lines, level);
    made.length = 0;
  }
});
