import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One concise log line per request, when it completes (Fastify's default writes two, serializing the whole
 * request and its headers: under load that was a fifth of the service's CPU). Failures are logged as before,
 * by Fastify (`request errored`) and by the error handler, with the request id.
 */
export class AccessLog extends LogController {
  override incomingRequest(): void {
    // The completion line below names the request.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) return super.requestCompleted(error, request, reply);
    reply.log.info(
      { method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime },
      'request completed',
    );
  }
}
