/**
 * The PostgreSQL protocol server (`postgres.addr`, default 127.0.0.1:4003): a TCP listener with one
 * `PgConnection` per socket (GreptimeDB `src/servers/src/postgres/server.rs`). TLS comes later:
 * SSLRequest is answered 'N'.
 */
import { randomInt } from 'node:crypto';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { buildInfo } from '../../common/build-info.js';
import type { Logger } from '../../common/logging.js';
import { formatAddress, parseAddress, type Address } from '../../common/net/address.js';
import type { AuthHandler, SqlHandler } from '../handlers.js';
import { listenError, type Server } from '../server.js';
import { PgConnection } from './pg-connection.js';

export interface PostgresServerOptions {
  readonly logger: Logger;
  /** How long shutdown waits for connections to close after telling them (default 2 s). */
  readonly shutdownTimeout?: number;
  /** `server_version` (default `16.3-tsdb-<version>`). */
  readonly serverVersion?: string;
}

export interface PostgresHandlers {
  readonly sql: SqlHandler;
  /** Present when a user provider is configured: clients must send a password. */
  readonly auth?: AuthHandler;
}

export class PostgresServer implements Server {
  readonly name = 'PostgreSQL';
  private readonly log: Logger;
  private server: NetServer | undefined;
  private bound: Address | undefined;
  private readonly connections = new Set<PgConnection>();
  private nextProcessId = 1;

  constructor(
    private readonly opts: PostgresServerOptions,
    private readonly handlers: PostgresHandlers,
  ) {
    this.log = opts.logger.child({ server: 'postgres' });
  }

  async start(addr: string): Promise<void> {
    const { host, port } = parseAddress(addr, { bind: true });
    const server = createServer({ noDelay: true }, (socket) => this.accept(socket));
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
    server.on('error', (err) => this.log.error({ err }, 'PostgreSQL server error'));
    this.server = server;
    const a = server.address();
    if (a !== null && typeof a === 'object') this.bound = { host: a.address, port: a.port };
    const shown = this.bound ? formatAddress(this.bound) : addr;
    this.log.info({ addr: shown }, `${this.name} server listening on ${shown}`);
  }

  private accept(socket: Socket): void {
    const serverVersion = this.opts.serverVersion ?? `16.3-tsdb-${buildInfo().version}`;
    const conn = new PgConnection(socket, {
      sql: this.handlers.sql,
      ...(this.handlers.auth !== undefined && { auth: this.handlers.auth }),
      logger: this.log,
      serverVersion,
      processId: this.nextProcessId++,
      secretKey: randomInt(0, 2 ** 31),
    });
    this.connections.add(conn);
    socket.on('close', () => this.connections.delete(conn));
  }

  async shutdown(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const c of this.connections) c.close('terminating connection due to administrator command');
    const force = setTimeout(() => {
      for (const c of this.connections) c.destroy();
    }, this.opts.shutdownTimeout ?? 2000);
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
