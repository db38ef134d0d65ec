import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { Cut, Page, Position } from '../model/list.ts';

/**
 * Writes an unpaged list as it is read, a part at a time (`part` records a read), from its `first` part on: the
 * service holds at most two parts however many records match (bench/README.md, 2026-11-27: unpaged lists read in
 * parts). `count`, after `data`, is the records written. `envelope` makes the body of some
 * records, as the route's schema writes it; the answer is that body cut around its array and written piece by piece.
 */
export function sendInParts<T, B extends object>(
  reply: FastifyReply,
  first: Page<T>,
  part: number,
  read: (cut: Cut) => Promise<Page<T>>,
  envelope: (items: T[], count: number) => B,
): B {
  // The envelope as the route's schema writes it, cut around its array: `{"data":[` items `],"count":…}`.
  const text = (items: T[], count: number) =>
    reply.serializeInput(envelope(items, count) as Record<string, unknown>, '200') as string;
  const items = (some: T[]) => {
    const body = text(some, some.length);
    return body.slice(HEAD.length, body.lastIndexOf(TAIL));
  };
  const end = (count: number) => {
    const body = text([], count);
    return body.slice(body.lastIndexOf(TAIL));
  };
  if (!text([], 0).startsWith(HEAD)) throw new Error('a list envelope must begin with its `data`');
  // Each part is asked for as the one before is written, so that reading and writing overlap: at most two parts are
  // held. A part asked for is marked handled at once: the client may leave while it is under way.
  const after = (next: Position | null) => {
    if (next === null) return null;
    const asked = read({ after: next, limit: part, skipTotal: true });
    asked.catch(() => {});
    return asked;
  };
  async function* parts(): AsyncGenerator<string> {
    let asked = after(first.next);
    yield HEAD + items(first.items);
    let written = first.items.length;
    while (asked !== null) {
      const page = await asked;
      asked = after(page.next);
      if (page.items.length > 0) yield `,${items(page.items)}`;
      written += page.items.length;
    }
    yield end(written);
  }
  reply.type('application/json; charset=utf-8');
  // The reply is a thenable that settles once the answer has been written: the handler returns it.
  return reply.send(Readable.from(parts(), { objectMode: false })) as B;
}

const HEAD = '{"data":[';
const TAIL = '],"count":';
