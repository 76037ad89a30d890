/**
 * What the MySQL and PostgreSQL servers share: a TCP listener on 127.0.0.1-style addresses with a
 * clear start-up error, one connection object per socket, and a bounded shutdown (connections are
 * told to close, then destroyed after `shutdownTimeout`); their TLS files, loaded before listening
 * (see `tls.ts`); and writes that wait while a client does not read, so a slow client holds only
 * its own connection.
 */
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { errorMessage } from '../common/error/tsdb-error.js';
import type { Logger } from '../common/logging.js';
import { formatAddress, parseAddress, type Address } from '../common/net/address.js';
import type { TlsOptions } from '../config/options.js';
import { listenError, type Server } from './server.js';
import { ServerTls } from './tls.js';

/** A client connection as the listener sees it. */
export interface TcpConnection {
  /** Whether the client has logged in (until then it counts against `maxPendingLogins`). */
  readonly authenticated: boolean;
  /** Ends the connection politely (the protocol's goodbye, then FIN). */
  close(): void;
  /** Drops the connection now. */
  destroy(): void;
}

/**
 * Default bound on the connections of a server whose clients have not logged in yet. Each holds
 * a socket and at most a login-sized buffer for at most the login timeout; past the bound a new
 * connection is refused with the protocol's "too many connections" error, so a flood of silent or
 * slow clients cannot take every descriptor while logged-in clients keep working.
 */
export const DEFAULT_MAX_PENDING_LOGINS = 1024;

export abstract class TcpServer<C extends TcpConnection> implements Server {
  abstract readonly name: string;
  protected readonly log: Logger;
  private server: NetServer | undefined;
  private bound: Address | undefined;
  private readonly connections = new Set<C>();
  /** The TLS files once started; undefined for mode `disable`. */
  protected tls: ServerTls | undefined;

  constructor(
    logger: Logger,
    /** Also the option prefix of the server's TLS options (`mysql` → `mysql.tls`). */
    private readonly logKey: string,
    /** How long shutdown waits for connections to close after telling them (default 2 s). */
    private readonly shutdownTimeout = 2000,
    private readonly tlsOptions?: TlsOptions,
  ) {
    this.log = logger.child({ server: logKey });
  }

  /** Connections not logged in yet beyond which new ones are refused (see DEFAULT_MAX_PENDING_LOGINS). */
  protected maxPendingLogins = DEFAULT_MAX_PENDING_LOGINS;
  private lastRefusalWarning = 0;

  /** The connection object of a new socket. */
  protected abstract accept(socket: Socket): C;

  /** Writes the protocol's "too many connections" error to a refused socket and ends it. */
  protected abstract refuse(socket: Socket): void;

  /** Connections whose clients have not logged in yet. */
  private pendingLogins(): number {
    let n = 0;
    for (const c of this.connections) if (!c.authenticated) n++;
    return n;
  }

  private onConnection(socket: Socket): void {
    const pending = this.pendingLogins();
    if (pending >= this.maxPendingLogins) {
      socket.on('error', () => {});
      // Once per 10 s at most: a flood of connections must not flood the log too.
      const now = Date.now();
      if (now - this.lastRefusalWarning >= 10_000) {
        this.lastRefusalWarning = now;
        this.log.warn(
          { remote: socket.remoteAddress, pending },
          `${this.name}: ${pending} connections have not logged in yet; new connections are refused until they do or time out`,
        );
      }
      this.refuse(socket);
      return;
    }
    const conn = this.accept(socket);
    this.connections.add(conn);
    socket.on('close', () => this.connections.delete(conn));
  }

  async start(addr: string): Promise<void> {
    const { host, port } = parseAddress(addr, { bind: true });
    if (this.tlsOptions !== undefined && this.tls === undefined) {
      try {
        this.tls = ServerTls.start(this.tlsOptions, { option: `${this.logKey}.tls`, logger: this.log });
      } catch (err) {
        throw new Error(`${this.name} server cannot start TLS: ${(err as Error).message}`, { cause: err });
      }
    }
    const server = createServer({ noDelay: true }, (socket) => this.onConnection(socket));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port }, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      this.stopTls();
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
    this.stopTls();
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

  private stopTls(): void {
    this.tls?.close();
    this.tls = undefined;
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

/**
 * Ends a connection after a fatal error: writes `last` and FIN, then reads and drops whatever the
 * client still sends (a client in the middle of a large write only closes once its write is
 * taken), and destroys the socket if it has not closed within `graceMs`. The caller's data
 * handler must ignore data from then on.
 */
export function endConnection(socket: Socket, last: Buffer | undefined, graceMs = 5000): void {
  if (socket.destroyed) return;
  if (last === undefined) socket.end();
  else socket.end(last);
  socket.resume();
  const timer = setTimeout(() => socket.destroy(), graceMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/**
 * A deadline for a client to complete its login (handshake, TLS, authentication): past it the
 * connection is dropped, so a client that connects and goes silent does not hold a socket until
 * shutdown (MySQL's `connect_timeout`, PostgreSQL's `authentication_timeout`). Returns what cancels
 * it, to be called once the client is logged in; closing the socket cancels it too.
 */
export function loginDeadline(socket: Socket, ms: number, expire: () => void): () => void {
  const timer = setTimeout(expire, ms);
  timer.unref();
  const cancel = () => clearTimeout(timer);
  socket.once('close', cancel);
  return cancel;
}

/** What a connection does with its socket's events. */
export interface ClientSocketEvents {
  /** The protocol's name in log messages (`MySQL`, `PostgreSQL`). */
  readonly name: string;
  readonly logger: Logger;
  readonly onData: (chunk: Buffer) => void;
  /** A socket error (logged here): the connection drops itself. */
  readonly onError: () => void;
  readonly onClose: () => void;
}

/**
 * A client connection's socket: the TCP socket, then the TLS socket over it once the client asked
 * for TLS (both protocols start in plaintext), with the connection's listeners on whichever is read.
 */
export class ClientSocket {
  /** What the protocol reads from and writes to. */
  socket: Socket;
  /** Whether the TLS handshake completed. */
  private secure = false;

  constructor(
    readonly raw: Socket,
    private readonly events: ClientSocketEvents,
  ) {
    this.socket = raw;
    this.listen(raw);
  }

  /** Whether the client asked for TLS (the handshake may still be running). */
  get encrypted(): boolean {
    return this.socket !== this.raw;
  }

  /** In the TLS handshake, where the protocol has no way to say goodbye. */
  get inTlsHandshake(): boolean {
    return this.encrypted && !this.secure;
  }

  /** Goes on over TLS, starting with `head` (bytes the client sent after asking for it). */
  startTls(tls: ServerTls, head?: Buffer): void {
    this.raw.off('data', this.events.onData);
    const socket = tls.upgrade(this.raw, head);
    this.socket = socket;
    socket.on('secure', () => (this.secure = true));
    this.listen(socket);
  }

  destroy(): void {
    this.socket.destroy();
    if (this.encrypted) this.raw.destroy();
  }

  private listen(socket: Socket): void {
    const { name, logger } = this.events;
    socket.on('data', this.events.onData);
    socket.on('error', (err) => {
      if (socket !== this.raw && !this.secure) logger.warn({ err, remote: this.raw.remoteAddress }, `${name} TLS handshake failed: ${errorMessage(err)}`);
      else logger.debug({ err }, `${name} connection error`);
      this.events.onError();
    });
    socket.on('close', this.events.onClose);
  }
}
