/**
 * The MySQL protocol server (`mysql.addr`, default 127.0.0.1:4002): a TCP listener with one
 * `MysqlConnection` per socket (GreptimeDB `src/servers/src/mysql/server.rs`). With `mysql.tls`
 * other than `disable`, CLIENT_SSL is offered and an SSLRequest upgrades the connection.
 */
import type { Socket } from 'node:net';
import { buildInfo } from '../../common/build-info.js';
import type { Logger } from '../../common/logging.js';
import type { TlsOptions } from '../../config/options.js';
import type { AuthHandler, SqlHandler } from '../handlers.js';
import { endConnection, TcpServer } from '../tcp-server.js';
import { DEFAULT_MYSQL_VERSION, serverVersion } from './handshake.js';
import { MysqlConnection } from './mysql-connection.js';
import { encodeErr, ER_CON_COUNT_ERROR, errOfKind } from './messages.js';
import { writePacket } from './packet.js';

export interface MysqlServerOptions {
  readonly logger: Logger;
  /** Time zone of a session that names none (`default_timezone`; default UTC). */
  readonly defaultTimezone?: string;
  /** How long shutdown waits for connections to close after ending them (default 2 s). */
  readonly shutdownTimeout?: number;
  /** The version in the handshake (default `8.4.2-tsdb-<version>`, MySQL part from env `TSDB_MYSQL_SERVER_VERSION`). */
  readonly serverVersion?: string;
  /** Largest packet payload accepted (default 128 MiB, `max_allowed_packet`). */
  readonly maxPayloadSize?: number;
  /** `mysql.tls` (default: mode `disable`). */
  readonly tls?: TlsOptions;
  /** Time a client has to log in (default 10 s). */
  readonly loginTimeoutMs?: number;
  /** Connections not logged in yet past which new ones get ER_CON_COUNT_ERROR (default 1024). */
  readonly maxPendingLogins?: number;
}

export interface MysqlHandlers {
  readonly sql: SqlHandler;
  /** Present when a user provider is configured: clients must authenticate. */
  readonly auth?: AuthHandler;
}

export class MysqlServer extends TcpServer<MysqlConnection> {
  readonly name = 'MySQL';
  private nextConnectionId = 1;

  constructor(
    private readonly opts: MysqlServerOptions,
    private readonly handlers: MysqlHandlers,
  ) {
    super(opts.logger, 'mysql', opts.shutdownTimeout, opts.tls);
    if (opts.maxPendingLogins !== undefined) this.maxPendingLogins = opts.maxPendingLogins;
  }

  /** ERR 1040 "Too many connections" in place of the greeting, as MySQL answers past max_connections. */
  protected refuse(socket: Socket): void {
    endConnection(socket, writePacket(encodeErr(errOfKind(ER_CON_COUNT_ERROR, 'Too many connections')), 0));
  }

  protected accept(socket: Socket): MysqlConnection {
    const version =
      this.opts.serverVersion ?? serverVersion(buildInfo().version, process.env['TSDB_MYSQL_SERVER_VERSION'] || DEFAULT_MYSQL_VERSION);
    const conn = new MysqlConnection(socket, {
      sql: this.handlers.sql,
      ...(this.handlers.auth !== undefined && { auth: this.handlers.auth }),
      logger: this.log,
      serverVersion: version,
      connectionId: this.nextConnectionId,
      ...(this.opts.defaultTimezone !== undefined && { defaultTimezone: this.opts.defaultTimezone }),
      ...(this.opts.maxPayloadSize !== undefined && { maxPayloadSize: this.opts.maxPayloadSize }),
      ...(this.tls !== undefined && { tls: this.tls }),
      ...(this.opts.loginTimeoutMs !== undefined && { loginTimeoutMs: this.opts.loginTimeoutMs }),
    });
    this.nextConnectionId = (this.nextConnectionId % 0x7fffffff) + 1;
    return conn;
  }
}
