import type { IncomingMessage, Server } from 'node:http';
import { Socket } from 'node:net';

/**
 * The longest a connection closed after its answer goes on taking in the rest of a request body nobody reads
 * (nginx's `lingering_close` does the same, for up to 5 s between reads).
 */
const LINGER_MS = 5_000;

const requestOf = Symbol('request on this connection');
type Tracked = Socket & { [requestOf]?: IncomingMessage };

/**
 * The socket's `destroySoon`, which Node's HTTP server calls once the answer of a `Connection: close` response
 * is written. When the client is still sending a body the service did not read (a `413` for a body over the limit
 * is answered as soon as `Content-Length` is seen), destroying the socket makes the kernel reset the connection as
 * the next bytes arrive, and the reset can destroy the answer before the client reads it. So the service ends its
 * side instead (the client reads the answer, then the end), reads and drops what still comes, and closes when the
 * client does or after {@link LINGER_MS}.
 */
function lingeringDestroySoon(this: Tracked): void {
  const request = this[requestOf];
  if (request === undefined || request.complete || this.destroyed) return Socket.prototype.destroySoon.call(this);
  const timer = setTimeout(() => this.destroy(), LINGER_MS).unref();
  this.once('close', () => clearTimeout(timer));
  this.once('end', () => this.destroy());
  this.end();
  this.resume();
}

/** Closes every connection of `server` the way {@link lingeringDestroySoon} says. */
export function lingerOnClose(server: Server): void {
  server.prependListener('request', (request: IncomingMessage) => {
    const socket = request.socket as Tracked;
    socket[requestOf] = request;
    if (socket.destroySoon !== lingeringDestroySoon) socket.destroySoon = lingeringDestroySoon;
  });
}
