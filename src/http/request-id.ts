import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';

const SAFE = /^[A-Za-z0-9._:@-]{1,128}$/;

/** The caller's `X-Request-Id` when it is a short, plain token (it is echoed and logged); otherwise a new UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && SAFE.test(sent) ? sent : randomUUID();
}
