import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import pino from 'pino';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';

type Bindings = Record<string, unknown>;
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];

/** Where a request's credentials could appear in a log entry: replaced by `[Redacted]`. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.query.access_token',
  'headers.authorization',
  'headers["x-api-key"]',
];

/**
 * A URL with the value of every `access_token` query parameter replaced by `[Redacted]` (the parameter a route
 * may take its token from), whatever way its name is encoded or cased, bracketed or not. Most URLs have none and
 * are returned as they are.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1 || !/access|%/i.test(url.slice(q))) return url;
  const pairs = url.slice(q + 1).split('&');
  let changed = false;
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    const eq = pair.indexOf('=');
    if (eq !== -1 && isTokenKey(keyOf(pair.slice(0, eq)))) {
      pairs[i] = `${pair.slice(0, eq)}=[Redacted]`;
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q)}?${pairs.join('&')}` : url;
}

/**
 * `access_token`, and the names a client may send one under by mistake (`ACCESS_TOKEN`, `access_token[]`, a NUL
 * after it): the service reads none of these as a token, but their value is likely one, and stays out of the logs.
 */
function isTokenKey(key: string): boolean {
  return /^access_token(?:\[|\0|$)/i.test(key);
}

function keyOf(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return raw;
  }
}

/** Fastify's request serializer, with the URL's token redacted; anything else logged as `req` is left as it is. */
function requestSerializer(req: FastifyRequest): Record<string, unknown> {
  // Whatever else was logged as `req` is passed on as it came, as pino does without a serializer.
  if (typeof req?.url !== 'string' || typeof req.method !== 'string') return req as unknown as Record<string, unknown>;
  return {
    method: req.method,
    url: redactUrl(req.url),
    version: req.headers?.['accept-version'] as string | undefined,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** How log entries are written: JSON lines, or lines for people (`LOG_FORMAT`). */
export type LogFormat = 'json' | 'pretty';

/** The format when none is set: for people at a terminal, JSON for anything else (a file, a pipe, a collector). */
export function defaultLogFormat(stdout: { isTTY?: boolean } = process.stdout): LogFormat {
  return stdout.isTTY ? 'pretty' : 'json';
}

/**
 * Fastify's pino logger at `level`: `json`, one JSON line per entry, on stdout through {@link stdoutPerTurn};
 * `pretty`, each line made readable by pino-pretty (loaded only then), on `destination` (default stdout).
 */
export function loggerOptions(level: string, format: LogFormat = 'json', destination?: NodeJS.WritableStream) {
  return {
    level,
    redact: REDACTED_PATHS,
    serializers: { req: requestSerializer },
    stream: format === 'pretty' ? prettyLines(destination) : stdoutPerTurn(),
  };
}

/**
 * pino-pretty's formatting of each JSON line (`prettyFactory`, one line in, one out), written as the JSON lines are:
 * per turn of the event loop on stdout, or straight to `destination` (no colours there).
 */
function prettyLines(destination?: NodeJS.WritableStream): LineStream {
  const { prettyFactory } = require('pino-pretty') as typeof import('pino-pretty');
  const format = prettyFactory({
    colorize: destination === undefined && process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
  const out: { write(text: string): unknown } = destination ?? stdoutPerTurn();
  return {
    write: (lines) => {
      let text = '';
      for (const line of lines.split('\n')) if (line !== '') text += format(line);
      out.write(text);
    },
    flush: (done) => ('flush' in out ? (out as LineStream).flush(done) : done?.()),
  };
}
const require = createRequire(import.meta.url);

/** Where log lines go: each `write` is one or more whole lines. */
export interface LineStream {
  write(line: string): void;
  flush(done?: (err?: Error) => void): void;
}

/**
 * The service's stdout for log lines: the lines logged during one turn of the event loop are written together,
 * with one synchronous `write`, at the end of that turn (`setImmediate`); pino's sync destination (sonic-boom)
 * does the writing, retries included. A line is out microseconds after it was logged, whatever the traffic, and
 * what a turn logged is written before the process exits (`exit` runs for `process.exit` and uncaught errors).
 * Under load one turn answers many requests, so their access lines cost one `write` between them, instead of one
 * hand-off to libuv's thread pool per line (pino's default asynchronous stream); bench/HISTORY.md ("third round")
 * has the figures.
 * One for the process, shared by every app built in it (there is one stdout).
 */
export function stdoutPerTurn(): LineStream {
  return (shared ??= new LinesPerTurn(pino.destination({ dest: 1, sync: true })));
}
let shared: LinesPerTurn | undefined;

/** Gathers what is written during a turn of the event loop and hands it to `out` in one `write` at its end. */
export class LinesPerTurn implements LineStream {
  private pending = '';
  private scheduled = false;

  constructor(private readonly out: { write(text: string): unknown }) {
    process.on('exit', () => this.writeNow());
  }

  write(line: string): void {
    this.pending += line;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.writeNow);
    }
  }

  flush(done?: (err?: Error) => void): void {
    this.writeNow();
    done?.();
  }

  private readonly writeNow = (): void => {
    this.scheduled = false;
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    this.out.write(text);
  };
}

/**
 * Each request's logger (`request.log`), bound to its request id, made only when something is logged through
 * it. Most requests log nothing but their access line (written by {@link AccessLog} through the service's
 * logger, with the request id as a field), so they need no pino child of their own.
 */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  return new LazyChild(logger, bindings, options) as FastifyBaseLogger;
}

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** The logger methods live on the prototype: a request's logger is one small object, with no closures. */
class LazyChild {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }
  set level(level: string) {
    this.logger.level = level;
  }

  fatal(...args: unknown[]): void {
    this.call('fatal', args);
  }
  error(...args: unknown[]): void {
    this.call('error', args);
  }
  warn(...args: unknown[]): void {
    this.call('warn', args);
  }
  info(...args: unknown[]): void {
    this.call('info', args);
  }
  debug(...args: unknown[]): void {
    this.call('debug', args);
  }
  trace(...args: unknown[]): void {
    this.call('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }

  private call(method: Method, args: unknown[]): void {
    (this.logger[method] as (...a: unknown[]) => void)(...args);
  }
}

/**
 * One concise log line per request, when it completes (Fastify's default writes two, serializing the whole
 * request and its headers), at `info`, with the request id as a field. Failures are logged by Fastify
 * (`request errored`) and by the error handler, through the request's own logger.
 *
 * Given `lines` (the stream of the service's own logger, made by {@link loggerOptions}), the line is formatted
 * here, exactly as that logger would (pino's defaults: numeric level, epoch time, pid and hostname), and written
 * to it: the one line every request logs then skips pino's generic serializing of its fields (the same bytes; a
 * test compares them with pino's); bench/HISTORY.md ("fourth round") has what that saves.
 * Without `lines` (a logger of the caller's, whose format is its own), it goes through the service's logger.
 */
export class AccessLog extends LogController {
  /** `completed`: told of every request as it completes, before its line (the metrics time it there). */
  constructor(
    private readonly lines?: Pick<LineStream, 'write'>,
    private readonly completed?: (request: FastifyRequest, reply: FastifyReply) => void,
  ) {
    super();
  }

  override incomingRequest(): void {
    // The completion line below names the request.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    this.completed?.(request, reply);
    if (error) return super.requestCompleted(error, request, reply);
    const log = request.server.log;
    if (this.lines === undefined) {
      log.info(
        {
          reqId: request.id,
          method: request.method,
          url: redactUrl(request.url),
          statusCode: reply.statusCode,
          responseTime: reply.elapsedTime,
        },
        'request completed',
      );
    } else if ((pino.levels.values[log.level] ?? Infinity) <= INFO) {
      this.lines.write(
        `{"level":${INFO},"time":${Date.now()}${PROCESS_FIELDS},"reqId":${JSON.stringify(request.id)},"method":${JSON.stringify(request.method)},` +
          `"url":${JSON.stringify(redactUrl(request.url))},"statusCode":${reply.statusCode},"responseTime":${finite(reply.elapsedTime)},"msg":"request completed"}\n`,
      );
    }
  }
}

const INFO = pino.levels.values.info!;
const finite = (n: number): number | null => (Number.isFinite(n) ? n : null);

/** The fields pino's defaults add to every line (its `base`), in its order. */
const PROCESS_FIELDS = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;
