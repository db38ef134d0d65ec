/**
 * The event stream under load (`npm run bench:stream`): N clients connected to `GET /api/stream`, changes made at
 * a steady rate, and
 * 1. the delay from each change to each client (the event's `timestamp`, taken as the change is made, to the moment
 *    a client has read it): p50, p99, max over every (event, client) of `--sample` clients (default 50; the others
 *    read and drop what they get);
 * 2. the write path's speed (task creates, as fast as `connections` clients can make them) with N clients
 *    connected, against none: the ratio.
 * The service runs in a child process (`node --import tsx src/server.ts`, NODE_ENV=production, memory store,
 * LOG_LEVEL=info); the clients and the writers are this process. Targets: p99 ≤ 100 ms at 500 clients and 1,000
 * changes/s; the ratio ≥ 0.8.
 *
 *   npm run bench:stream                                        # 500 clients, 1,000 changes/s, 10 s
 *   npm run bench:stream -- --clients 50 --rate 200 --seconds 3 # a smoke run
 *   npm run bench:stream -- --parse-all                         # the write path's clients parse every event too
 *   npm run bench:stream -- --identity                          # clients that do not accept gzip
 *   npm run bench:stream -- --sample 500                        # every client measures the delay
 *   npm run bench:stream -- --write-path                        # only the write path's ratio
 *   npm run bench:stream -- --dist dist-before                  # a saved build (node <dir>/server.js), not src/
 *   npm run bench:stream -- --node-arg=--perf-basic-prof        # an option for the service's node (repeatable)
 *
 * The clients send `Accept-Encoding: gzip`, as a browser's EventSource does, and get gzip streams (the delay's clients
 * decompress them as they arrive); with `--identity` they send none and get the text as it is. The delay is measured
 * on a sample because 500 clients decompressing and parsing in this one process (tens of thousands of zlib calls a
 * second, each through the thread pool) saturate it, and then the delay is this process's; every client gets its
 * bytes from the service in the same loop, so the sample's delay is the service's.
 * Also printed: the streams the service cut (too slow to keep up: a measurement with some is not fair), the
 * service's CPU time per request in the write path (from /proc), which other work on the machine changes least, and
 * the reads per client a second there (about the service's flushes a second).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { createGunzip } from 'node:zlib';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '500' },
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' },
    // The write path's clients parse every event too (as before 2026-11-23): the bench's own cost then weighs.
    'parse-all': { type: 'boolean', default: false },
    identity: { type: 'boolean', default: false },
    sample: { type: 'string', default: '50' },
    // Only the write path with and without clients (part 2), not the delay.
    'write-path': { type: 'boolean', default: false },
    // Run this build of the service (`node <dir>/server.js`, e.g. a saved earlier build) instead of src/ through tsx.
    dist: { type: 'string' },
    // Options for the service's node (a profiler's, say); its pid is printed with each measurement.
    'node-arg': { type: 'string', multiple: true, default: [] },
  },
});
const CLIENTS = Number(values.clients);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const PARSE_ALL = values['parse-all'];
const SAMPLE = Math.min(Number(values.sample), CLIENTS);
const STREAM_HEADERS: http.OutgoingHttpHeaders = values.identity ? {} : { 'accept-encoding': 'gzip' };
const TASK = JSON.stringify({ projectId: 'proj_001', title: 'bench' });

async function startService(): Promise<{ child: ChildProcess; url: string }> {
  const entry = values.dist ? [`${values.dist}/server.js`] : ['--import', 'tsx', 'src/server.ts'];
  const child = spawn(process.execPath, [...values['node-arg']!, ...entry, '--port', '0'], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      STREAM_MAX_CLIENTS: String(CLIENTS + 10),
      MAX_CONNECTIONS: String(CLIENTS + 1000),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    const onData = (d: string) => {
      out += d;
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        child.stdout!.off('data', onData);
        child.stdout!.resume(); // access lines go nowhere
        resolve({ child, url: m[1]! });
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', () => reject(new Error(`service exited:\n${out}`)));
  });
}

/** Streams the service ended (a client too slow to keep up is disconnected): a measurement with some is not fair. */
let cut = 0;
/** Bytes the write path's clients received, as sent (compressed, on gzip streams). */
let received = 0;
/**
 * Reads by the write path's clients: about the service's writes to each (one a flush), fewer if a client fell behind
 * and the kernel joined some.
 */
let reads = 0;

/**
 * A client that reads the stream and notes, for each event, how long after its timestamp it arrived; with no
 * `delays`, one that reads everything and looks at none of it (the write path's measurement: parsing millions of
 * events a second would take this process's core, on the machine the service shares, from the service).
 */
function connect(url: string, delays: number[] | null): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const options = { agent: false, headers: STREAM_HEADERS };
    const req = http.get(`${url}/api/stream?types=task.created`, options, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.on('close', () => {
        if (!req.destroyed) cut++;
      });
      res.on('error', () => {});
      if (delays === null) {
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          reads++;
        });
        return resolve(req);
      }
      let body: Readable = res;
      if (res.headers['content-encoding'] === 'gzip') {
        const gunzip = createGunzip();
        pipeline(res, gunzip, () => {});
        body = gunzip;
      }
      body.setEncoding('utf8');
      let tail = '';
      body.on('data', (chunk: string) => {
        const now = Date.now();
        const text = tail + chunk;
        const re = /"timestamp":"([^"]+)"/g;
        let m: RegExpExecArray | null;
        let last = 0;
        while ((m = re.exec(text))) {
          delays.push(now - Date.parse(m[1]!));
          last = re.lastIndex;
        }
        tail = text.slice(Math.max(last, text.length - 64));
      });
      resolve(req);
    });
    req.on('error', reject);
  });
}

const post = (url: string) =>
  new Promise<void>((resolve, reject) => {
    const req = http.request(
      `${url}/api/tasks`,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 201 ? resolve() : reject(new Error(`POST answered ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(TASK);
  });

/** Changes at `rate` per second for `seconds`: a tick every 10 ms makes the changes due by then. */
async function steadyWrites(url: string, rate: number, seconds: number): Promise<number> {
  const start = Date.now();
  let made = 0;
  const inFlight = new Set<Promise<void>>();
  while (Date.now() - start < seconds * 1000) {
    const due = Math.floor(((Date.now() - start) / 1000) * rate);
    while (made < due && inFlight.size < 200) {
      const p = post(url).finally(() => inFlight.delete(p));
      inFlight.add(p);
      made++;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  await Promise.all(inFlight);
  return made;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** The CPU time a process has used (user + system), in ms; undefined where /proc is not. */
function cpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms
  } catch {
    return undefined;
  }
}

async function writeSpeed(url: string): Promise<{ rps: number; total: number }> {
  const result = await autocannon({
    url: `${url}/api/tasks`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: TASK,
    connections: CONNECTIONS,
    duration: SECONDS,
  });
  return { rps: result.requests.average, total: result.requests.total };
}

async function main(): Promise<void> {
  const mode = values.identity ? 'identity (no Accept-Encoding)' : 'gzip (Accept-Encoding: gzip)';
  process.stdout.write(`event stream bench: ${CLIENTS} clients, ${RATE} changes/s, ${SECONDS} s; streams ${mode}\n`);
  // 1. Delay from change to client.
  if (!values['write-path']) {
    const { child, url } = await startService();
    try {
      const delays: number[] = [];
      const clients: http.ClientRequest[] = [];
      for (let i = 0; i < CLIENTS; i++) clients.push(await connect(url, i < SAMPLE ? delays : null));
      await steadyWrites(url, Math.min(RATE, 50), 1); // warm-up
      await new Promise((r) => setTimeout(r, 500));
      delays.length = 0;
      const made = await steadyWrites(url, RATE, SECONDS);
      await new Promise((r) => setTimeout(r, 500));
      const sorted = delays.sort((a, b) => a - b);
      process.stdout.write(
        `change → client (${SAMPLE} of ${CLIENTS} clients measuring): ${made} changes, ` +
          `${sorted.length} deliveries (expected ${made * SAMPLE}); ` +
          `p50 ${pct(sorted, 50)} ms, p99 ${pct(sorted, 99)} ms, max ${sorted.at(-1)} ms (${cut} streams cut)\n`,
      );
      clients.forEach((c) => c.destroy());
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  }
  // 2. The write path with and without clients (a fresh service each).
  const speeds: number[] = [];
  for (const n of [0, CLIENTS]) {
    cut = 0;
    const { child, url } = await startService();
    try {
      const clients: http.ClientRequest[] = [];
      for (let i = 0; i < n; i++) clients.push(await connect(url, PARSE_ALL ? [] : null));
      const before = cpuMs(child.pid!);
      received = 0;
      reads = 0;
      const started = Date.now();
      const { rps, total } = await writeSpeed(url);
      const after = cpuMs(child.pid!);
      const elapsedS = (Date.now() - started) / 1000;
      // Each client takes every create's event: the bytes on the wire per event and client, and the reads a second
      // (about the service's flushes a second).
      const perEvent =
        n === 0 || PARSE_ALL
          ? ''
          : `, ${(received / (total * n)).toFixed(0)} B per event and client, ` +
            `${(reads / n / elapsedS).toFixed(0)} reads per client a second`;
      speeds.push(rps);
      // The service's own CPU time per request: what other work on the machine changes least.
      const cpu =
        before === undefined || after === undefined
          ? ''
          : `, ${(((after - before) * 1000) / total).toFixed(0)} µs CPU each`;
      process.stdout.write(
        `POST /api/tasks with ${n} stream clients: ${rps.toFixed(0)} req/s${cpu}${perEvent} (${cut} streams cut; ` +
          `service pid ${child.pid})\n`,
      );
      clients.forEach((c) => c.destroy());
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  }
  process.stdout.write(`write path with ${CLIENTS} clients / with none: ${(speeds[1]! / speeds[0]!).toFixed(2)}\n`);
}

await main();
