/**
 * Connection-level abuse against the real server process (src/server.ts on a free loopback port), over raw TCP:
 * slow headers, a body that never ends, oversized headers, a flood of idle connections, more connections than
 * allowed. In each case the offender gets its answer (or is disconnected) within the configured time, and a
 * normal client is served meanwhile. The timeouts are set short here by the same flags an operator would use.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { startServer, type ServerProcess } from '../helpers/server-process.ts';
import { openSocket, parseResponse, rawExchange, sleep, timedGet, type RawAnswer } from './raw.ts';

const HEADERS_MS = 1_000;
const REQUEST_MS = 1_500;
const KEEP_ALIVE_MS = 1_000;
/** The server checks its timeouts every HEADERS_MS / 4; allow that, and a loaded 2-core machine, on top. */
const SLACK_MS = HEADERS_MS / 4 + 750;
/** A normal request during the abuse: typically a few ms; the bound allows for a busy CI machine. */
const PROMPT_MS = 2_000;

let server: ServerProcess;
let port: number;
let base: string;

before(async () => {
  server = await startServer([
    '--headers-timeout-ms',
    String(HEADERS_MS),
    '--request-timeout-ms',
    String(REQUEST_MS),
    '--keep-alive-timeout-ms',
    String(KEEP_ALIVE_MS),
  ]);
  base = server.baseUrl;
  port = Number(new URL(base).port);
});
after(() => {
  server.child.kill('SIGKILL');
});

function assertErrorAnswer(res: RawAnswer, status: number, code: string): void {
  assert.equal(res.status, status, `answer: ${JSON.stringify(res)}`);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  assert.ok(res.headers['x-request-id']);
  const body = JSON.parse(res.body);
  assert.deepEqual(Object.keys(body), ['error']);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.ok(res.closedByServer, 'the server closes the connection');
}

/** While `abuse` runs, a normal client is served promptly, several times. */
async function servedMeanwhile(abuse: Promise<unknown>, path = '/api/health'): Promise<number[]> {
  const times: number[] = [];
  let done = false;
  void abuse.finally(() => (done = true));
  await sleep(200);
  for (let i = 0; i < 5 && !done; i++) {
    const res = await timedGet(`${base}${path}`);
    assert.equal(res.status, 200);
    times.push(Math.round(res.ms));
    await sleep(100);
  }
  assert.ok(times.length > 0, 'no request was made during the abuse');
  for (const ms of times) assert.ok(ms < PROMPT_MS, `a normal request took ${ms} ms during the abuse`);
  return times;
}

test('slow headers (one header line every 100 ms, never finished): 408 in the error shape and the connection closed after HEADERS_TIMEOUT_MS', async (t) => {
  const slow = rawExchange(port, ['GET /api/health HTTP/1.1\r\nHost: x\r\n'], {
    everyMs: 100,
    trickle: 'X-Slow: 1\r\n',
    giveUpMs: 8_000,
  });
  const times = await servedMeanwhile(slow);
  const res = await slow;
  assertErrorAnswer(res, 408, 'REQUEST_TIMEOUT');
  assert.ok(
    res.closedAfterMs >= HEADERS_MS - 50 && res.closedAfterMs <= HEADERS_MS + SLACK_MS,
    `closed after ${res.closedAfterMs} ms`,
  );
  t.diagnostic(
    `slow headers closed after ${Math.round(res.closedAfterMs)} ms; normal requests meanwhile: ${times.join(', ')} ms`,
  );
});

test('a body that never finishes (one byte every 200 ms of 100 announced): 408 after REQUEST_TIMEOUT_MS, and nothing is created', async (t) => {
  const before = (await timedGet(`${base}/api/projects`)).body.count;
  const head =
    'POST /api/projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"nev';
  const slow = rawExchange(port, [head], { everyMs: 200, trickle: 'e', giveUpMs: 8_000 });
  const times = await servedMeanwhile(slow, '/api/projects');
  const res = await slow;
  assertErrorAnswer(res, 408, 'REQUEST_TIMEOUT');
  assert.ok(
    res.closedAfterMs >= REQUEST_MS - 50 && res.closedAfterMs <= REQUEST_MS + SLACK_MS,
    `closed after ${res.closedAfterMs} ms`,
  );
  assert.equal((await timedGet(`${base}/api/projects`)).body.count, before);
  t.diagnostic(
    `endless body closed after ${Math.round(res.closedAfterMs)} ms; normal requests meanwhile: ${times.join(', ')} ms`,
  );
});

test('headers over MAX_HEADER_SIZE (16 KiB): one huge header or 1,000 headers get 431 in the error shape; 200 small ones are served', async () => {
  const request = (headers: string) => `GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${headers}\r\n`;
  const huge = await rawExchange(port, [request(`X-Big: ${'a'.repeat(20_000)}\r\n`)], { giveUpMs: 5_000 });
  assertErrorAnswer(huge, 431, 'HEADERS_TOO_LARGE');
  const many = Array.from({ length: 1_000 }, (_, i) => `X-H${i}: ${'v'.repeat(16)}\r\n`).join('');
  const tooMany = await rawExchange(port, [request(many)], { giveUpMs: 5_000 });
  assertErrorAnswer(tooMany, 431, 'HEADERS_TOO_LARGE');
  const fine = Array.from({ length: 200 }, (_, i) => `X-H${i}: ${'v'.repeat(40)}\r\n`).join(''); // ~10 KB
  const ok = await rawExchange(port, [request(fine)], { giveUpMs: 5_000 });
  assert.equal(ok.status, 200, ok.body);
  assert.equal((await timedGet(`${base}/api/health`)).status, 200);
});

test('bytes that are not HTTP (garbage, a bad header, a bad chunk size, two Content-Lengths): 400 in the error shape, connection closed', async () => {
  const cases = [
    'GARBAGE\r\n\r\n',
    'GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n',
    'POST /api/projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    'POST /api/projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    '\u0000\u0001\u0002\r\n\r\n',
  ];
  for (const raw of cases)
    assertErrorAnswer(await rawExchange(port, [raw], { giveUpMs: 5_000 }), 400, 'VALIDATION_ERROR');
  assert.equal((await timedGet(`${base}/api/projects`)).body.count, 5);
});

test('what Node answers by itself gets the error shape: no Host is 400, CONNECT is 405; an unknown Expect is ignored', async () => {
  const noHost = await rawExchange(port, ['GET /api/projects HTTP/1.1\r\nConnection: close\r\n\r\n'], {
    giveUpMs: 5_000,
  });
  assertErrorAnswer(noHost, 400, 'VALIDATION_ERROR');
  assert.deepEqual(JSON.parse(noHost.body).error.details, [
    { field: 'host', message: 'is required in an HTTP/1.1 request' },
  ]);
  assert.equal(noHost.headers['access-control-allow-origin'], '*', 'CORS headers as on every answer');
  // HTTP/1.0 has no Host requirement.
  const old = await rawExchange(port, ['GET /api/projects HTTP/1.0\r\n\r\n'], { giveUpMs: 5_000 });
  assert.equal(old.status, 200);
  assert.equal(JSON.parse(old.body).count, 5);

  const connect = await rawExchange(port, ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'], {
    giveUpMs: 5_000,
  });
  assertErrorAnswer(connect, 405, 'METHOD_NOT_ALLOWED');
  assert.ok(connect.headers.allow);

  const expect = await rawExchange(
    port,
    ['GET /api/projects HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nConnection: close\r\n\r\n'],
    { giveUpMs: 5_000 },
  );
  assert.equal(expect.status, 200, JSON.stringify(expect));
  assert.equal(JSON.parse(expect.body).count, 5);
});

test('every answer has its line at info with its request id, also those refused before routing or by the parser', async () => {
  const cases: [string, number, string | undefined][] = [
    ['GET /api/tasks/% HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400, '/api/tasks/%'],
    [`GET /api/tasks/${'x'.repeat(1_001)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 404, undefined],
    [`GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, undefined],
    ['GARBAGE\r\n\r\n', 400, undefined],
    ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405, 'example.com:443'],
  ];
  for (const [raw, status, url] of cases) {
    const res = await rawExchange(port, [raw], { giveUpMs: 5_000 });
    assert.equal(res.status, status, res.body);
    const id = res.headers['x-request-id']!;
    let line: Record<string, unknown> | undefined;
    for (let waited = 0; waited < 2_000 && !line; waited += 20) {
      const found = server
        .output()
        .split('\n')
        .find((l) => l.includes(`"reqId":"${id}"`));
      if (found) line = JSON.parse(found) as Record<string, unknown>;
      else await sleep(20);
    }
    assert.ok(line, `a line for ${raw.slice(0, 30)} (${status})`);
    assert.equal(line.level, 30, 'info');
    assert.equal(line.statusCode, status);
    if (url !== undefined) assert.equal(line.url, url);
  }
});

test('a flood of 500 idle connections (250 after a keep-alive request, 250 silent): others are served meanwhile, and the server closes every one after its timeout', async (t) => {
  const sockets: { socket: Socket; closed: Promise<number>; opened: number }[] = [];
  const track = (socket: Socket) => {
    const opened = performance.now();
    socket.on('error', () => {});
    socket.resume();
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - opened)));
    sockets.push({ socket, closed, opened });
  };
  try {
    for (let batch = 0; batch < 10; batch++) {
      const opened = await Promise.all(Array.from({ length: 50 }, () => openSocket(port)));
      for (const [i, socket] of opened.entries()) {
        track(socket);
        if (i % 2 === 0) socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n'); // answered, then kept alive and idle
      }
    }
    assert.equal(sockets.length, 500);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await timedGet(`${base}/api/projects`);
      assert.equal(res.status, 200);
      times.push(Math.round(res.ms));
    }
    for (const ms of times) assert.ok(ms < PROMPT_MS, `a normal request took ${ms} ms during the flood`);

    const deadline = Math.max(HEADERS_MS, KEEP_ALIVE_MS) + SLACK_MS + 1_000;
    const closedAfter = await Promise.race([
      Promise.all(sockets.map((s) => s.closed)),
      sleep(deadline + 2_000).then(() => undefined),
    ]);
    assert.ok(closedAfter, `not every idle connection was closed within ${deadline + 2_000} ms`);
    const slowest = Math.max(...closedAfter);
    assert.ok(slowest <= deadline, `the last idle connection was closed after ${slowest} ms`);
    assert.equal((await timedGet(`${base}/api/health`)).status, 200);
    t.diagnostic(
      `500 idle connections all closed by the server, the last after ${Math.round(slowest)} ms; normal requests meanwhile: ${times.join(', ')} ms`,
    );
  } finally {
    for (const s of sockets) s.socket.destroy();
  }
});

test(
  'a client still sending a body over the limit reads the whole 413, never a reset',
  { timeout: 30_000 },
  async () => {
    // The answer comes while the client is still sending. Closing the connection at once made the kernel reset it when
    // more bytes came, and the reset often destroyed the 413 before the client read it (a broken pipe, no answer).
    const body = JSON.stringify({ name: 'x', description: 'a'.repeat(5_000_000) });
    const statuses: (number | string)[] = [];
    for (let i = 0; i < 6; i++) {
      try {
        const res = await fetch(`${base}/api/projects`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        statuses.push(((await res.json()) as { error?: { code: string } }).error?.code ?? res.status);
      } catch (err) {
        statuses.push(String((err as { cause?: { code?: string } }).cause?.code ?? err));
      }
    }
    assert.deepEqual(statuses, Array(6).fill('PAYLOAD_TOO_LARGE'));

    // A bare socket that goes on writing after the answer reads the answer, then the end of the connection: the
    // service reads and drops what still comes, then closes its side.
    const socket = await openSocket(port);
    let received = '';
    socket.setEncoding('latin1').on('data', (d: string) => (received += d));
    const ended = new Promise<string>((resolve) => {
      socket.once('end', () => resolve('end'));
      socket.once('error', (err: NodeJS.ErrnoException) => resolve(String(err.code)));
    });
    let writing = true;
    void ended.then(() => (writing = false));
    socket.write('POST /api/projects HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n');
    socket.write('content-length: 50000000\r\n\r\n');
    const chunk = Buffer.alloc(64 * 1024, 'a');
    while (writing) {
      if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), ended]);
    }
    assert.equal(await ended, 'end');
    socket.destroy();
    assert.equal(parseResponse(received).status, 413);
    assert.equal(JSON.parse(parseResponse(received).body).error.code, 'PAYLOAD_TOO_LARGE');
  },
);

test('nothing above was logged as a server error', () => {
  const lines = server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'));
  const errors = lines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50);
  assert.deepEqual(errors, []);
});

test('connections beyond MAX_CONNECTIONS are closed at once; the accepted ones are served, and room frees up as they time out', async (t) => {
  const limited = await startServer([
    '--max-connections',
    '20',
    '--headers-timeout-ms',
    String(HEADERS_MS),
    '--keep-alive-timeout-ms',
    String(KEEP_ALIVE_MS),
  ]);
  t.after(() => limited.child.kill('SIGKILL'));
  const lport = Number(new URL(limited.baseUrl).port);
  const held = await Promise.all(Array.from({ length: 19 }, () => openSocket(lport)));
  try {
    for (const s of held) s.on('error', () => {});
    const served = await rawExchange(lport, ['GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'], {
      giveUpMs: 3_000,
    });
    assert.equal(served.status, 200, 'the 20th connection is served');
    // Hold the 20th slot again, then try a 21st.
    held.push(await openSocket(lport));
    held[held.length - 1]!.on('error', () => {});
    await sleep(100);
    const refused = await rawExchange(lport, ['GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n'], { giveUpMs: 3_000 });
    assert.equal(refused.status, undefined, 'no answer beyond the limit');
    assert.ok(refused.closedByServer && refused.closedAfterMs < 1_000, `closed after ${refused.closedAfterMs} ms`);
    // The held connections send nothing: the headers timeout frees their slots.
    await sleep(HEADERS_MS + SLACK_MS);
    assert.equal((await timedGet(`${limited.baseUrl}/api/health`)).status, 200);
  } finally {
    for (const s of held) s.destroy();
  }
});
