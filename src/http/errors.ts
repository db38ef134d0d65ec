import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, codesOf, validationError } from '../errors.ts';
import { ConstraintViolationError, StoreUnavailableError, type UnavailableReason } from '../store/errors.ts';
import { CORS_ORIGIN } from './cors.ts';
import { redactUrl } from './logging.ts';
import { toDetails } from './validation.ts';
import type { RouteTable } from './route-table.ts';

/** Fastify's own error codes, mapped onto the service's. */
const FRAMEWORK_ERRORS: Record<string, (e: FastifyError) => AppError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => new AppError('INVALID_JSON'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new AppError('INVALID_JSON', 'The request body is empty'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new AppError('PAYLOAD_TOO_LARGE'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new AppError('UNSUPPORTED_MEDIA_TYPE'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new AppError('VALIDATION_ERROR', 'The Content-Length header does not match the body'),
  FST_ERR_BAD_URL: () => new AppError('VALIDATION_ERROR', 'The request path is not a valid URL'),
  // A path part past the router's `maxParamLength` (app.ts: longer than a request's head may be, so only a request
  // made in the process reaches it): longer than any id, so no record has it.
  FST_ERR_MAX_PARAM_LENGTH: () => new AppError('NOT_FOUND', 'Not found: a part of the path is longer than any id'),
  FST_ERR_BAD_STATUS_CODE: () => new AppError('INTERNAL_ERROR'),
};

/** How long a client is told to wait before trying again while the database is unavailable, in seconds. */
const RETRY_AFTER_S = '1';

/**
 * A store's refusal as the contract's answer: the database unavailable → 503; a write its schema refused (which
 * the services' own checks normally answer first) → 400 naming the field.
 */
function storeErrorOf(error: unknown): AppError | undefined {
  if (error instanceof StoreUnavailableError) {
    return new AppError('SERVICE_UNAVAILABLE', UNAVAILABLE[error.reason], undefined, { 'retry-after': RETRY_AFTER_S });
  }
  if (!(error instanceof ConstraintViolationError)) return undefined;
  return validationError([{ field: error.field ?? 'body', message: REFUSALS[error.kind] }]);
}

/** What a 503 tells the client, by why the database could not answer (the catalogue's message when unreachable). */
const UNAVAILABLE: Record<UnavailableReason, string | undefined> = {
  unreachable: undefined,
  timeout: 'The database did not answer in time; try again shortly',
  contention: 'The write kept colliding with concurrent changes to the same records; try again shortly',
  schema: undefined,
};

const REFUSALS: Record<ConstraintViolationError['kind'], string> = {
  reference: 'names a record that does not exist',
  invalid: 'is not allowed here',
  conflict: 'is taken by another record',
};

export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  const fromStore = storeErrorOf(error);
  if (fromStore) return fromStore;
  const e = error as FastifyError & { validationContext?: string; type?: string };
  if (e?.validation) {
    const details = toDetails(e.validation as never, e.validationContext);
    const where = e.validationContext === 'querystring' ? 'query string' : e.validationContext;
    const message =
      details.length === 1 ? `${details[0]!.field}: ${details[0]!.message}` : `The ${where ?? 'request'} is invalid`;
    return new AppError('VALIDATION_ERROR', message, details);
  }
  if (e?.code && FRAMEWORK_ERRORS[e.code]) return FRAMEWORK_ERRORS[e.code]!(e);
  // Errors of the JSON parser and of raw-body reading that carry no Fastify code.
  if (e instanceof SyntaxError) return new AppError('INVALID_JSON');
  if (e?.type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE');
  return undefined;
}

export function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  if (err.headers) reply.headers(err.headers);
  return reply.code(err.statusCode).type('application/json; charset=utf-8').send(err.toBody());
}

/**
 * The handler of errors Fastify raises before routing (a malformed URL, an id past `maxParamLength`): answered in
 * the service's shape too. No hook runs for these requests, nor Fastify's completion, so the headers every response
 * carries (request id, CORS) are set here, and `accessLine` writes the request's access line once it is answered.
 */
export function frameworkErrorsLoggedBy(
  accessLine: (request: FastifyRequest, reply: FastifyReply) => void,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    reply.header('x-request-id', request.id);
    reply.header('access-control-allow-origin', CORS_ORIGIN);
    reply.raw.once('finish', () => accessLine(request, reply));
    void sendError(reply, toAppError(error) ?? new AppError('VALIDATION_ERROR'));
  };
}

/** One error handler for the whole service, and the 404/405 answer for paths with no route. */
export function registerErrorHandling(app: FastifyInstance, routes: RouteTable): void {
  app.setErrorHandler((error, request, reply) => {
    const known = toAppError(error);
    if (known) {
      if (known.statusCode >= 500) request.log.error({ err: error }, 'request failed');
      return sendError(reply, known);
    }
    const status = (error as FastifyError).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      // A client error raised with no mapping above: the one code of its status if the catalogue has exactly one
      // (a 413 is PAYLOAD_TOO_LARGE), else a 400; its own message stays internal.
      request.log.info({ err: error }, 'client error');
      // A 403 not of the service's own is the docs page's file server refusing a path (`../`, a NUL): no file
      // there, as for any other unknown path. FORBIDDEN speaks of a token's scopes, which have no part in it.
      if (status === 403) return sendError(reply, noRoute(request));
      const codes = codesOf(status);
      return sendError(
        reply,
        codes.length === 1 ? new AppError(codes[0]!) : new AppError('VALIDATION_ERROR', UNPROCESSED),
      );
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, new AppError('INTERNAL_ERROR'));
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?', 1)[0]!;
    const allowed = routes.methodsFor(path);
    if (allowed.length > 0) {
      return sendError(
        reply,
        new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`, undefined, {
          allow: allowed.join(', '),
        }),
      );
    }
    return sendError(reply, noRoute(request));
  });
}

/** The answer to a path the service has no route (nor file) for. */
function noRoute(request: FastifyRequest): AppError {
  return new AppError('NOT_FOUND', `No route for ${request.method} ${request.url.split('?', 1)[0]!}`);
}

const UNPROCESSED = 'The request could not be processed';

/** What the HTTP parser refuses before there is a request, as the service's error. */
function clientErrorOf(err: Error & { code?: string }): AppError {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new AppError('REQUEST_TIMEOUT');
  if (err.code === 'HPE_HEADER_OVERFLOW') return new AppError('HEADERS_TOO_LARGE');
  return new AppError('VALIDATION_ERROR', 'The request is not valid HTTP');
}

/**
 * The server's `clientError` handler (Fastify's `clientErrorHandler`): a request that is too slow (headers or
 * body past their timeouts), whose headers are too large, or that is not HTTP gets its status in the service's
 * error shape, then the connection is closed. What is answered gets a line at `info`, as every request does (with
 * the request id sent and the parser's code; there is no method or URL to name); the parser's message at `debug`.
 */
export function clientErrors(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  this.log.debug({ err: { code: err.code, message: err.message } }, 'client error');
  // As Node itself does: answer only when no response on this connection has begun (never corrupt one in flight).
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (inFlight?.headersSent) return void socket.destroy();
  const error = clientErrorOf(err);
  const reqId = answerAndClose(socket, error);
  if (reqId !== undefined) this.log.info({ reqId, statusCode: error.statusCode, code: err.code }, 'request refused');
}

/**
 * Writes `error` on a connection no response has begun on, in the service's shape, then closes it. Returns the
 * request id the answer carries, or undefined when the connection could no longer be written to.
 */
function answerAndClose(socket: Socket, error: AppError): string | undefined {
  let reqId: string | undefined;
  if (socket.writable) {
    reqId = randomUUID();
    const body = JSON.stringify(error.toBody());
    const extra = Object.entries(error.headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(
      `HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${reqId}\r\n${extra.join('')}` +
        `access-control-allow-origin: ${CORS_ORIGIN}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
  return reqId;
}

/**
 * An HTTP/1.1 request without `Host` (RFC 9112 §3.2: a 400): Node's own check is off (`requireHostHeader`), and this
 * answers it, naming the header; true when it did (the request goes no further).
 */
export function refusedWithoutHost(request: FastifyRequest, reply: FastifyReply): boolean {
  if (request.headers.host !== undefined || request.raw.httpVersion !== '1.1') return false;
  void sendError(reply, validationError([{ field: 'host', message: 'is required in an HTTP/1.1 request' }]));
  return true;
}

/**
 * What Node's HTTP server answers by itself, with an empty body or none, answered in the service's shape instead
 * (a request without `Host`: {@link refusedWithoutHost}, called by the service's `onRequest` hook):
 * - `Expect` with a value other than `100-continue`: Node answers 417 with no body; the service, which has no
 *   expectation to meet, handles the request as if the header were absent (RFC 9110 §10.1.1 allows either);
 * - `CONNECT`: Node closes the connection without a word; the service is no proxy, and answers 405.
 */
export function registerProtocolAnswers(app: FastifyInstance): void {
  app.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
    app.server.emit('request', req, res),
  );
  app.server.on('connect', (req: IncomingMessage, socket: Socket) => {
    const reqId = answerAndClose(
      socket,
      new AppError('METHOD_NOT_ALLOWED', 'CONNECT is not allowed: the service is not a proxy', undefined, {
        allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
      }),
    );
    if (reqId !== undefined) {
      app.log.info({ reqId, method: 'CONNECT', url: redactUrl(req.url ?? ''), statusCode: 405 }, 'request refused');
    }
  });
}
