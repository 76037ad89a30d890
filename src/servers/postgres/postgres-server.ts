/**
 * The PostgreSQL protocol server (`postgres.addr`, default 127.0.0.1:4003): a TCP listener with one
 * `PgConnection` per socket (GreptimeDB `src/servers/src/postgres/server.rs`). An SSLRequest is
 * answered 'S' and upgrades the connection when `postgres.tls` is other than `disable`, else 'N'.
 */
import { randomInt } from 'node:crypto';
import type { Socket } from 'node:net';
import { buildInfo } from '../../common/build-info.js';
import type { Logger } from '../../common/logging.js';
import type { TlsOptions } from '../../config/options.js';
import type { AuthHandler, SqlHandler } from '../handlers.js';
import { endConnection, TcpServer } from '../tcp-server.js';
import { errorResponse } from './messages.js';
import { PgConnection } from './pg-connection.js';
import { SQLSTATE } from './pg-error.js';

export interface PostgresServerOptions {
  readonly logger: Logger;
  /** Time zone of a session that names none (`default_timezone`; default UTC). */
  readonly defaultTimezone?: string;
  /** How long shutdown waits for connections to close after telling them (default 2 s). */
  readonly shutdownTimeout?: number;
  /** `server_version` (default `16.3-tsdb-<version>`). */
  readonly serverVersion?: string;
  /** `postgres.tls` (default: mode `disable`). */
  readonly tls?: TlsOptions;
  /** Time a client has to log in (default 60 s). */
  readonly loginTimeoutMs?: number;
  /** Connections not logged in yet past which new ones get FATAL 53300 (default 1024). */
  readonly maxPendingLogins?: number;
}

export interface PostgresHandlers {
  readonly sql: SqlHandler;
  /** Present when a user provider is configured: clients must send a password. */
  readonly auth?: AuthHandler;
}

export class PostgresServer extends TcpServer<PgConnection> {
  readonly name = 'PostgreSQL';
  private nextProcessId = 1;

  constructor(
    private readonly opts: PostgresServerOptions,
    private readonly handlers: PostgresHandlers,
  ) {
    super(opts.logger, 'postgres', opts.shutdownTimeout, opts.tls);
    if (opts.maxPendingLogins !== undefined) this.maxPendingLogins = opts.maxPendingLogins;
  }

  /** FATAL 53300, as PostgreSQL answers past max_connections (libpq reads it even after an SSLRequest). */
  protected refuse(socket: Socket): void {
    endConnection(socket, errorResponse({ severity: 'FATAL', code: SQLSTATE.TOO_MANY_CONNECTIONS, message: 'sorry, too many clients already' }));
  }

  /** Connections by backend pid, for CancelRequest. */
  private readonly backends = new Map<number, PgConnection>();

  protected accept(socket: Socket): PgConnection {
    const processId = this.nextProcessId++;
    const conn = new PgConnection(socket, {
      sql: this.handlers.sql,
      ...(this.handlers.auth !== undefined && { auth: this.handlers.auth }),
      logger: this.log,
      serverVersion: this.opts.serverVersion ?? `16.3-tsdb-${buildInfo().version}`,
      processId,
      secretKey: randomInt(0, 2 ** 31),
      ...(this.opts.defaultTimezone !== undefined && { defaultTimezone: this.opts.defaultTimezone }),
      cancel: (pid, key) => this.backends.get(pid)?.cancelRequest(key),
      ...(this.tls !== undefined && { tls: this.tls }),
      ...(this.opts.loginTimeoutMs !== undefined && { loginTimeoutMs: this.opts.loginTimeoutMs }),
    });
    this.backends.set(processId, conn);
    socket.once('close', () => this.backends.delete(processId));
    return conn;
  }
}
