import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a database server that a test can take away and bring back: `down()` closes every
 * connection and refuses new ones (the server gone), `freeze()` keeps connections open but forwards nothing (a
 * server or network that stops answering), `up()` forwards again on the same port.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private frozen = false;
  port = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** A proxy to `host:port`, listening on a free port of 127.0.0.1. */
  static async start(host: string, port: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(host, port);
    await proxy.up();
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  urlFor(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  async up(): Promise<void> {
    this.frozen = false;
    if (this.server) return;
    // Half-open connections are the proxy's to end: a frozen one does not answer a client's end either.
    const server = createServer({ allowHalfOpen: true }, (client) => this.accept(client));
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Every connection closed, new ones refused. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  /** Connections stay open, new ones are accepted, nothing is forwarded either way (not even a connection's end). */
  freeze(): void {
    this.frozen = true;
  }

  private accept(client: Socket): void {
    const upstream = connect({ port: this.targetPort, host: this.targetHost, allowHalfOpen: true });
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(from);
      from.on('data', (chunk: Buffer) => {
        if (!this.frozen) to.write(chunk);
      });
      from.on('end', () => {
        if (!this.frozen) to.end();
      });
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
      from.on('error', () => to.destroy());
    }
  }
}
