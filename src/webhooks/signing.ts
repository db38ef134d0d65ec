import { createHmac } from 'node:crypto';

const PREFIX = 'whsec_';

/**
 * The HMAC key of a secret: the base64-decoded part after `whsec_`, as the Standard Webhooks
 * verifiers decode it. Our secrets are `whsec_` + 12 alphanumerics, which is valid base64 (9 bytes).
 */
export function signingKey(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  // Strict (whole 4-character groups), as the Standard Webhooks verifiers decode it.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0)
    throw new Error('webhook secret is not base64 after the whsec_ prefix');
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('webhook secret is empty');
  return key;
}

/**
 * The `webhook-signature` header value of one attempt (Standard Webhooks, v1):
 * `v1,` + base64 HMAC-SHA256 of `<msgId>.<timestampSeconds>.<body>`.
 */
export function sign(secret: string | Buffer, msgId: string, timestampSeconds: number, body: string): string {
  const key = typeof secret === 'string' ? signingKey(secret) : secret;
  const mac = createHmac('sha256', key).update(`${msgId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export const USER_AGENT = 'pm-service-webhooks/1';

/** The headers of one attempt: the event id stays the same on every attempt, the timestamp and signature do not. */
export function webhookHeaders(
  key: Buffer,
  eventId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': sign(key, eventId, timestampSeconds, body),
  };
}
