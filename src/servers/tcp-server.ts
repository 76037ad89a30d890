/**
 * What the MySQL and PostgreSQL servers share: a TCP listener on 127.0.0.1-style addresses with a
 * clear start-up error, one connection object per socket, and a bounded shutdown (connections are
 * told to close, then destroyed after `shutdownTimeout`); and writes that wait while a client does
 * not read, so a slow client holds only its own connection.
 */
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { Logger } from '../common/logging.js';
import { formatAddress, parseAddress, type Address } from '../common/net/address.js';
import { listenError, type Server } from './server.js';

/** A client connection as the listener sees it. */
export interface TcpConnection {
  /** Ends the connection politely (the protocol's goodbye, then FIN). */
  close(): void;
  /** Drops the connection now. */
  destroy(): void;
}

export abstract class TcpServer<C extends TcpConnection> implements Server {
  abstract readonly name: string;
  protected readonly log: Logger;
  private server: NetServer | undefined;
  private bound: Address | undefined;
  private readonly connections = new Set<C>();

  constructor(
    logger: Logger,
    logKey: string,
    /** How long shutdown waits for connections to close after telling them (default 2 s). */
    private readonly shutdownTimeout = 2000,
  ) {
    this.log = logger.child({ server: logKey });
  }

  /** The connection object of a new socket. */
  protected abstract accept(socket: Socket): C;

  async start(addr: string): Promise<void> {
    const { host, port } = parseAddress(addr, { bind: true });
    const server = createServer({ noDelay: true }, (socket) => {
      const conn = this.accept(socket);
      this.connections.add(conn);
      socket.on('close', () => this.connections.delete(conn));
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port }, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      throw listenError(this.name, addr, err);
    }
    server.on('error', (err) => this.log.error({ err }, `${this.name} server error`));
    this.server = server;
    const a = server.address();
    if (a !== null && typeof a === 'object') this.bound = { host: a.address, port: a.port };
    const shown = this.bound ? formatAddress(this.bound) : addr;
    this.log.info({ addr: shown }, `${this.name} server listening on ${shown}`);
  }

  async shutdown(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const c of this.connections) c.close();
    const force = setTimeout(() => {
      for (const c of this.connections) c.destroy();
    }, this.shutdownTimeout);
    try {
      await closed;
    } finally {
      clearTimeout(force);
    }
    this.log.info(`${this.name} server stopped`);
    this.bound = undefined;
  }

  boundAddress(): Address | undefined {
    return this.bound;
  }
}

/** Writes `buf` to `socket`; resolves once the client has read enough (`drain`) or the socket closed. */
export async function writeWithBackpressure(socket: Socket, buf: Buffer): Promise<void> {
  if (socket.write(buf)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}
