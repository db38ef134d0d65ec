/** Raw TCP clients for connection-level abuse: bytes in, whatever the server answers (if anything) out. */
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  /** Status of the first response on the connection, if one came. */
  status: number | undefined;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from the connection opening to the server closing it. */
  closedAfterMs: number;
  /** Whether the server closed the connection (rather than this client giving up). */
  closedByServer: boolean;
}

export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Parses the first HTTP response in `raw` (headers lower-cased; body as far as it came). */
export function parseResponse(raw: string): Pick<RawAnswer, 'status' | 'headers' | 'body'> {
  const end = raw.indexOf('\r\n\r\n');
  if (!raw.startsWith('HTTP/1.1 ') || end < 0) return { status: undefined, headers: {}, body: raw };
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const length = Number(headers['content-length'] ?? NaN);
  const rest = raw.slice(end + 4);
  return {
    status: Number(statusLine!.split(' ')[1]),
    headers,
    body: Number.isNaN(length) ? rest : rest.slice(0, length),
  };
}

/**
 * Opens a connection, sends `chunks` one after the other `everyMs` apart (the last one is repeated while
 * `trickle` is set, until the server closes the connection), and collects what comes back.
 * Gives up after `giveUpMs` (then `closedByServer` is false).
 */
export async function rawExchange(
  port: number,
  chunks: (string | Buffer)[],
  { everyMs = 0, trickle, giveUpMs = 10_000 }: { everyMs?: number; trickle?: string; giveUpMs?: number } = {},
): Promise<RawAnswer> {
  const socket = await openSocket(port);
  const opened = performance.now();
  let data = '';
  socket.setEncoding('latin1').on('data', (d: string) => (data += d));
  socket.on('error', () => {});
  let closedByServer = false;
  const closed = new Promise<void>((resolve) => {
    socket.once('end', () => (closedByServer = true));
    socket.once('close', () => {
      closedByServer = true;
      resolve();
    });
  });
  const sender = (async () => {
    for (const chunk of chunks) {
      if (socket.destroyed) return;
      socket.write(chunk);
      if (everyMs > 0) await sleep(everyMs);
    }
    while (trickle !== undefined && !socket.destroyed && performance.now() - opened < giveUpMs) {
      socket.write(trickle);
      await sleep(everyMs || 100);
    }
  })();
  const gaveUp = sleep(giveUpMs).then(() => 'timeout' as const);
  const outcome = await Promise.race([closed.then(() => 'closed' as const), gaveUp]);
  const closedAfterMs = performance.now() - opened;
  if (outcome === 'timeout') {
    closedByServer = false;
    socket.destroy();
  }
  await sender.catch(() => {});
  return { ...parseResponse(data), closedAfterMs, closedByServer };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A normal client: a GET on a fresh connection (no pooling), with how long it took. */
export function timedGet(url: string, timeoutMs = 5_000): Promise<{ status: number; ms: number; body: any }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = get(url, { agent: false, timeout: timeoutMs }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          ms: performance.now() - started,
          body: text === '' ? undefined : JSON.parse(text),
        }),
      );
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}
