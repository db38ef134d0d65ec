/**
 * The README's start command, `npm start`, run as a user or a process manager runs it: npm is the process
 * started and signalled. A bad setting or a busy port ends it with one line and no stack; SIGTERM stops the
 * service itself, not only npm.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { killAll, runUntilExit, startServer } from '../helpers/server-process.ts';

/** What the service wrote to stderr: npm's own lines (`npm warn …`) left out. */
const ownLines = (stderr: string) => stderr.split('\n').filter((l) => l !== '' && !l.startsWith('npm '));

/** A process that is gone (or a zombie no longer running) cannot be signalled. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('npm start with a bad setting, an unknown flag or a flag without a value: exit 2, one line, no stack', async () => {
  const cases: { args: string[]; env?: Record<string, string>; says: RegExp }[] = [
    {
      args: ['--port', '0'],
      env: { WEBHOOK_RETRY_SCHEDULE: '1000h' },
      says: /^invalid configuration: WEBHOOK_RETRY_SCHEDULE \(--webhook-retry-schedule\): step 1: "1000h" is longer/,
    },
    { args: [], env: { PORT: 'eighty' }, says: /^invalid configuration: PORT \(--port\): must be an integer from 0/ },
    {
      args: ['--port', '0', '--log-level', 'loud'],
      says: /^invalid configuration: LOG_LEVEL \(--log-level\): must be one of fatal/,
    },
    { args: ['--port', '0', '--bogus', '1'], says: /^invalid configuration: unknown flag --bogus$/ },
    { args: ['--port'], says: /^invalid configuration: PORT \(--port\): the flag needs a value$/ },
  ];
  const results = await Promise.all(cases.map((c) => runUntilExit(c.args, c.env, { npm: true })));
  for (const [i, { code, stdout, stderr }] of results.entries()) {
    const what = `${JSON.stringify(cases[i])}:\n${stderr}`;
    assert.equal(code, 2, what);
    const lines = ownLines(stderr);
    assert.equal(lines.length, 1, what);
    assert.match(lines[0]!, cases[i]!.says);
    assert.doesNotMatch(stderr + stdout, /^\s+at /m, what);
    assert.doesNotMatch(stdout, /Server listening/);
  }
});

test('npm start on a port in use: exit 1, one line naming the port, no stack', async (t) => {
  const holder = createServer();
  holder.listen(0, '127.0.0.1');
  await once(holder, 'listening');
  t.after(() => holder.close());
  const port = (holder.address() as AddressInfo).port;

  const { code, stdout, stderr } = await runUntilExit(['--port', String(port)], {}, { npm: true });
  assert.equal(code, 1, stderr);
  assert.deepEqual(ownLines(stderr), [
    `cannot listen on 127.0.0.1:${port}: port ${port} is already in use; choose another with PORT (--port)`,
  ]);
  assert.doesNotMatch(stderr + stdout, /^\s+at /m);
});

test('a HOST that does not resolve ends the start with one line naming it and exit code 1, no stack', async () => {
  const { code, stdout, stderr } = await runUntilExit(['--host', 'nonexistent.invalid', '--port', '0']);
  assert.equal(code, 1, stderr);
  assert.deepEqual(ownLines(stderr), [
    'cannot listen on nonexistent.invalid:0: HOST (--host) nonexistent.invalid does not resolve to an address (ENOTFOUND)',
  ]);
  assert.doesNotMatch(stderr + stdout, /^\s+at /m);
});

test('SIGTERM to the npm start process stops the service: port closed, exit 0, one line saying so', async (t) => {
  const server = await startServer(['--webhook-retry-schedule', 'none'], {}, { npm: true });
  const listening = JSON.parse(
    server
      .output()
      .split('\n')
      .find((l) => l.includes('Server listening'))!,
  ) as {
    pid: number;
  };
  t.after(() => {
    killAll(server.child);
    if (running(listening.pid)) process.kill(listening.pid, 'SIGKILL');
  });
  assert.notEqual(listening.pid, server.child.pid, 'the service runs under npm');
  assert.equal((await fetch(`${server.baseUrl}/api/health`)).status, 200);

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0, server.output() + server.errors());
  assert.match(server.output(), /"signal":"SIGTERM".*"msg":"stopped: every request answered, the process exits"/);
  assert.ok(!running(listening.pid), 'the node process under npm is gone');
  await assert.rejects(fetch(`${server.baseUrl}/api/health`));
});
