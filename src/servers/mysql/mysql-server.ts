/**
 * The MySQL protocol server (`mysql.addr`, default 127.0.0.1:4002): a TCP listener with one
 * `MysqlConnection` per socket (GreptimeDB `src/servers/src/mysql/server.rs`). TLS comes later:
 * CLIENT_SSL is not offered and an SSLRequest is refused.
 */
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { buildInfo } from '../../common/build-info.js';
import type { Logger } from '../../common/logging.js';
import { formatAddress, parseAddress, type Address } from '../../common/net/address.js';
import type { AuthHandler, SqlHandler } from '../handlers.js';
import { listenError, type Server } from '../server.js';
import { DEFAULT_MYSQL_VERSION, serverVersion } from './handshake.js';
import { MysqlConnection } from './mysql-connection.js';

export interface MysqlServerOptions {
  readonly logger: Logger;
  /** How long shutdown waits for connections to close after ending them (default 2 s). */
  readonly shutdownTimeout?: number;
  /** The version in the handshake (default `8.4.2-tsdb-<version>`, MySQL part from env `TSDB_MYSQL_SERVER_VERSION`). */
  readonly serverVersion?: string;
  /** Largest packet payload accepted (default 128 MiB, `max_allowed_packet`). */
  readonly maxPayloadSize?: number;
}

export interface MysqlHandlers {
  readonly sql: SqlHandler;
  /** Present when a user provider is configured: clients must authenticate. */
  readonly auth?: AuthHandler;
}

export class MysqlServer implements Server {
  readonly name = 'MySQL';
  private readonly log: Logger;
  private server: NetServer | undefined;
  private bound: Address | undefined;
  private readonly connections = new Set<MysqlConnection>();
  private nextConnectionId = 1;

  constructor(
    private readonly opts: MysqlServerOptions,
    private readonly handlers: MysqlHandlers,
  ) {
    this.log = opts.logger.child({ server: 'mysql' });
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
    server.on('error', (err) => this.log.error({ err }, 'MySQL server error'));
    this.server = server;
    const a = server.address();
    if (a !== null && typeof a === 'object') this.bound = { host: a.address, port: a.port };
    const shown = this.bound ? formatAddress(this.bound) : addr;
    this.log.info({ addr: shown }, `${this.name} server listening on ${shown}`);
  }

  private accept(socket: Socket): void {
    const version =
      this.opts.serverVersion ?? serverVersion(buildInfo().version, process.env['TSDB_MYSQL_SERVER_VERSION'] || DEFAULT_MYSQL_VERSION);
    const conn = new MysqlConnection(socket, {
      sql: this.handlers.sql,
      ...(this.handlers.auth !== undefined && { auth: this.handlers.auth }),
      logger: this.log,
      serverVersion: version,
      connectionId: this.nextConnectionId,
      ...(this.opts.maxPayloadSize !== undefined && { maxPayloadSize: this.opts.maxPayloadSize }),
    });
    this.nextConnectionId = (this.nextConnectionId % 0x7fffffff) + 1;
    this.connections.add(conn);
    socket.on('close', () => this.connections.delete(conn));
  }

  async shutdown(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const c of this.connections) c.close();
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
