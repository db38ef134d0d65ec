import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorCode } from '../errors.ts';
import { toDetails } from './validation.ts';
import type { RouteTable } from './route-table.ts';

/** Fastify's own error codes, mapped onto the service's. */
const FRAMEWORK_ERRORS: Record<string, (e: FastifyError) => AppError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: () => new AppError(400, 'INVALID_JSON', 'The request body is not valid JSON'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new AppError(400, 'INVALID_JSON', 'The request body is empty'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new AppError(413, 'PAYLOAD_TOO_LARGE', 'The request body is too large'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be JSON (Content-Type: application/json)'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new AppError(400, 'VALIDATION_ERROR', 'The Content-Length header does not match the body'),
  FST_ERR_BAD_URL: () => new AppError(400, 'VALIDATION_ERROR', 'The request path is not a valid URL'),
  FST_ERR_BAD_STATUS_CODE: () => new AppError(500, 'INTERNAL_ERROR', 'Internal error'),
};

export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  const e = error as FastifyError & { validationContext?: string; type?: string };
  if (e?.validation) {
    const details = toDetails(e.validation as never, e.validationContext);
    const where = e.validationContext === 'querystring' ? 'query string' : e.validationContext;
    const message =
      details.length === 1 ? `${details[0]!.field}: ${details[0]!.message}` : `The ${where ?? 'request'} is invalid`;
    return new AppError(400, 'VALIDATION_ERROR', message, details);
  }
  if (e?.code && FRAMEWORK_ERRORS[e.code]) return FRAMEWORK_ERRORS[e.code]!(e);
  // Errors of the JSON parser and of raw-body reading that carry no Fastify code.
  if (e instanceof SyntaxError) return new AppError(400, 'INVALID_JSON', 'The request body is not valid JSON');
  if (e?.type === 'entity.too.large') return new AppError(413, 'PAYLOAD_TOO_LARGE', 'The request body is too large');
  return undefined;
}

export function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  if (err.headers) reply.headers(err.headers);
  return reply.code(err.statusCode).type('application/json; charset=utf-8').send(err.toBody());
}

/**
 * Errors Fastify raises before routing (a malformed URL): answered in the service's shape too. No hook runs
 * for these requests, so the headers every response carries (request id, CORS) are set here.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  reply.header('access-control-allow-origin', '*');
  void sendError(reply, toAppError(error) ?? new AppError(400, 'VALIDATION_ERROR', 'The request is invalid'));
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
      // A client error Fastify raised that has no mapping above: keep its status, hide its internals.
      request.log.info({ err: error }, 'client error');
      return sendError(reply, new AppError(status, 'VALIDATION_ERROR', 'The request could not be processed'));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, new AppError(500, 'INTERNAL_ERROR', 'Internal error'));
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?', 1)[0]!;
    const allowed = routes.methodsFor(path);
    if (allowed.length > 0) {
      return sendError(
        reply,
        new AppError(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`, undefined, {
          allow: allowed.join(', '),
        }),
      );
    }
    return sendError(reply, new AppError(404, 'NOT_FOUND', `No route for ${request.method} ${path}`));
  });
}

/** What the HTTP parser refuses before there is a request: the status and the service's code and message for it. */
function clientErrorOf(err: Error & { code?: string }): [number, ErrorCode, string] {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'REQUEST_TIMEOUT', 'The request was not received in time'];
  if (err.code === 'HPE_HEADER_OVERFLOW') return [431, 'HEADERS_TOO_LARGE', 'The request headers are too large'];
  return [400, 'VALIDATION_ERROR', 'The request is not valid HTTP'];
}

/**
 * The server's `clientError` handler (Fastify's `clientErrorHandler`): a request that is too slow (headers or
 * body past their timeouts), whose headers are too large, or that is not HTTP gets its status in the service's
 * error shape, then the connection is closed. Nothing is logged above debug: these are the client's problems.
 */
export function clientErrors(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] = clientErrorOf(err);
  this.log.debug({ err: { code: err.code, message: err.message } }, 'client error');
  // As Node itself does: answer only when no response on this connection has begun (never corrupt one in flight).
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify({ error: { code, message } });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${randomUUID()}\r\naccess-control-allow-origin: *\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};
