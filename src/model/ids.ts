import { randomBytes } from 'node:crypto';

/** Makes new record identifiers: `<prefix>_<suffix>`. Injected so tests can make them predictable. */
export type IdGenerator = (prefix: string) => string;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Random bytes are drawn from the cryptographic source a few kilobytes at a time (as `crypto.randomUUID`
 * does), since one change makes several ids (record, event, activity entries, deliveries). Each byte is
 * used once.
 */
const pool = { bytes: Buffer.alloc(0), next: 0 };

function randomByte(): number {
  if (pool.next === pool.bytes.length) {
    pool.bytes = randomBytes(4096);
    pool.next = 0;
  }
  return pool.bytes[pool.next++]!;
}

/**
 * `head` followed by `length` characters from a cryptographic source, alphanumeric only. Rejection sampling
 * keeps every character equally likely (256 is not a multiple of 62). Written into a buffer and read as one
 * flat string, since ids are kept as long as their records.
 */
function randomString(head: string, length: number): string {
  const buf = Buffer.allocUnsafe(head.length + length);
  buf.write(head, 'latin1');
  for (let i = head.length; i < buf.length;) {
    const byte = randomByte();
    if (byte < 248) buf[i++] = ALPHABET.charCodeAt(byte % 62);
  }
  return buf.toString('latin1');
}

/** `length` characters from a cryptographic source, alphanumeric only. */
export const randomAlphanumeric = (length: number): string => randomString('', length);

/** 16 random alphanumerics: about 95 bits, unguessable and collision-free in practice. */
export const randomIds: IdGenerator = (prefix) => randomString(`${prefix}_`, 16);
