/**
 * One MySQL client connection: a state machine over the codec of this directory.
 *
 * ```
 * HandshakeV10 ──▶ handshake: HandshakeResponse41
 *    │ with TLS (CLIENT_SSL offered): SSLRequest ──▶ TLS handshake ──▶ HandshakeResponse41 over TLS
 *    │   (sequence ids go on); `require` and stricter: a plaintext HandshakeResponse41 is ERR 3159
 *    │   and the client certificate is checked (tls.ts); without TLS an SSLRequest is refused
 *    │ with a user provider and another plugin than mysql_native_password: AuthSwitchRequest
 *    ▼                                                     ──▶ auth-switch: 20-byte token
 * OK (or ERR 1045 / 1049 and close)
 *    ▼
 * command: COM_QUERY → per statement a result set or OK, SERVER_MORE_RESULTS_EXISTS between them,
 *          the first error ends the query; COM_INIT_DB, COM_PING, COM_FIELD_LIST, COM_STMT_*,
 *          COM_RESET_CONNECTION; COM_QUIT closes
 * ```
 * Payloads are handled one at a time, in order: the socket is paused while one runs (but for up to
 * 1 MiB read ahead while an SQL statement runs, so that a disconnect is seen and cancels it), and writes
 * wait for `drain`, so a client that stops reading holds only its own connection. A malformed or
 * oversized packet closes this connection only.
 */
import type { Socket } from 'node:net';
import type { ServerTls } from '../tls.js';
import { ClientInput } from '../client-input.js';
import { ClientSocket, endConnection, loginDeadline, writeWithBackpressure } from '../tcp-server.js';
import { StatusCode } from '../../common/error/status-code.js';
import { errorMessage, TsdbError } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import { isValidTimeZone } from '../../common/time/timestamp.js';
import { DEFAULT_USER, type UserInfo } from '../../frontend/auth/user-provider.js';
import type { Cell, Output, OutputColumn } from '../../query/output.js';
import type { AuthHandler, SqlHandler } from '../handlers.js';
import {
  CHARSET_UTF8MB4_GENERAL_CI,
  decodeHandshakeResponse41,
  encodeHandshakeV10,
  generateScramble,
  isSslRequest,
  MAX_LOGIN_PAYLOAD_SIZE,
  MYSQL_NATIVE_PASSWORD,
  nativePasswordAuthSwitch,
  needsAuthSwitch,
  negotiateCapabilities,
  SERVER_MORE_RESULTS_EXISTS,
  SERVER_STATUS_AUTOCOMMIT,
  serverCapabilities,
  verifyNativePassword,
  type HandshakeResponse41,
} from './handshake.js';
import {
  COM_PROCESS_KILL,
  decodeCommand,
  encodeErr,
  encodeOk,
  ER_ACCESS_DENIED_ERROR,
  ER_BAD_DB_ERROR,
  ER_INTERNAL_ERROR,
  ER_NET_PACKET_TOO_LARGE,
  ER_NOT_SUPPORTED_YET,
  ER_SECURE_TRANSPORT_REQUIRED,
  ER_UNKNOWN_COM_ERROR,
  ER_UNKNOWN_STMT_HANDLER,
  ER_WRONG_ARGUMENTS,
  ER_WRONG_DB_NAME,
  ER_WRONG_VALUE_FOR_VAR,
  errOfKind,
  errOfStatus,
  MysqlType,
  type BoundParam,
  type Command,
  type ErrPacket,
  type ParamType,
  type ParamValue,
  isBlobType,
} from './messages.js';
import { intercept, splitStatements } from './mysql-intercept.js';
import { DEFAULT_MAX_PAYLOAD_SIZE, MysqlProtocolError, PacketReader, PacketTooLargeError, writePacket } from './packet.js';
import { fieldListPackets, outputPackets, preparePackets, resultSetPackets } from './resultset.js';
import { ResultSetCut, writeResultSet } from './row-encoder.js';
import { marksParameters, parameterMark } from '../../sql/parameter-marks.js';
import { inferParamTypes } from '../param-types.js';
import { startStatementTimer } from '../statement-timer.js';

export interface MysqlConnectionOptions {
  readonly sql: SqlHandler;
  readonly auth?: AuthHandler;
  readonly logger: Logger;
  /** `8.4.2-tsdb-<version>`. */
  readonly serverVersion: string;
  readonly connectionId: number;
  /** Time zone of a session that names none (`default_timezone`; default UTC). */
  readonly defaultTimezone?: string;
  /** Largest payload accepted (default 128 MiB). */
  readonly maxPayloadSize?: number;
  /** Time a client has to log in before it is dropped (default 10 s, MySQL's connect_timeout). */
  readonly loginTimeoutMs?: number;
  /** The server's TLS (mode other than `disable`): CLIENT_SSL is offered. */
  readonly tls?: ServerTls;
}

/** MySQL's `connect_timeout` default. */
const DEFAULT_LOGIN_TIMEOUT_MS = 10_000;

type State = 'handshake' | 'auth-switch' | 'command' | 'closed';

/** An ERR reply of a MySQL error kind: fatal during the handshake, a plain ERR in the command phase. */
class ErrReply extends Error {
  constructor(readonly err: ErrPacket) {
    super(err.message);
  }
}

/** `<catalog>-<schema>` or `<schema>`; only the `tsdb` catalog exists. */
function databaseOf(db: string): { catalog: string; database: string } {
  const dash = db.indexOf('-');
  return dash < 0 ? { catalog: 'tsdb', database: db } : { catalog: db.slice(0, dash), database: db.slice(dash + 1) };
}

interface Prepared {
  readonly sql: string;
  /** Offsets of the `?` placeholders. */
  readonly placeholders: readonly number[];
  paramTypes: readonly ParamType[] | undefined;
  /** The tsdb type of each placeholder where it can be inferred (an INSERT's column, a compared column, a cast). */
  readonly inferred: ReadonlyArray<string | undefined>;
  longData: Map<number, Buffer>;
}

interface Warning {
  readonly level: string;
  readonly code: number;
  readonly message: string;
}

export class MysqlConnection {
  private readonly reader: PacketReader;
  /** Payloads waiting their turn; a MysqlProtocolError stands for the malformed bytes that ended the stream. */
  private readonly input: ClientInput<{ payload: Buffer; seq: number } | MysqlProtocolError>;
  private state: State = 'handshake';
  private readonly scramble = generateScramble();
  private readonly serverCaps: number;
  private caps: number;
  /** The socket, TCP then TLS. */
  private readonly client: ClientSocket;
  private get socket(): Socket {
    return this.client.socket;
  }
  /** Whether the next payload is the client's first (only the first can be an SSLRequest). */
  private firstPacket = true;
  private response: HandshakeResponse41 | undefined;
  private user: UserInfo = DEFAULT_USER;
  private database = 'public';
  private timezone: string;
  private warnings: Warning[] = [];
  /** `max_execution_time` in milliseconds (0: none): the limit of each SELECT. */
  private maxExecutionTime = 0;
  /** Cancels the login deadline. */
  private readonly loggedIn: () => void;
  private readonly statements = new Map<number, Prepared>();
  /** SQL `PREPARE`d statements of this connection, by name (`frontend/statement/prepared.ts`). */
  private readonly prepared = new Map<string, { readonly sql: string; readonly types: readonly string[] }>();
  private nextStatementId = 1;

  constructor(
    raw: Socket,
    private readonly opts: MysqlConnectionOptions,
  ) {
    this.timezone = opts.defaultTimezone ?? 'UTC';
    this.serverCaps = serverCapabilities({ ssl: opts.tls !== undefined });
    this.caps = this.serverCaps;
    // Until the client has logged in, only the small packets of a login are read.
    this.reader = new PacketReader({ maxPayloadSize: Math.min(MAX_LOGIN_PAYLOAD_SIZE, this.maxPayloadSize) });
    this.client = new ClientSocket(raw, {
      name: 'MySQL',
      logger: opts.logger,
      onData: this.onData,
      onError: () => this.destroy(),
      onClose: () => {
        this.state = 'closed';
        this.input.cancel(new TsdbError(StatusCode.Cancelled, 'Query execution was cancelled: the MySQL client disconnected'));
      },
    });
    this.input = new ClientInput(this.client, () => this.state === 'closed', (item) => this.handleItem(item));
    this.loggedIn = loginDeadline(raw, opts.loginTimeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS, () => {
      opts.logger.debug({ remote: raw.remoteAddress }, 'MySQL client did not log in in time: connection dropped');
      this.destroy();
    });
    const hello = encodeHandshakeV10({
      serverVersion: opts.serverVersion,
      connectionId: opts.connectionId,
      scramble: this.scramble,
      capabilities: this.serverCaps,
      charset: CHARSET_UTF8MB4_GENERAL_CI,
      statusFlags: SERVER_STATUS_AUTOCOMMIT,
      authPluginName: MYSQL_NATIVE_PASSWORD,
    });
    raw.write(writePacket(hello, 0));
  }

  private readonly onData = (chunk: Buffer): void => {
    if (this.state === 'closed') return;
    try {
      this.reader.push(chunk, (payload, seq) => {
        const first = this.firstPacket;
        this.firstPacket = false;
        // The client does not wait for an answer to its SSLRequest: its TLS handshake follows at
        // once, so TLS starts here, with what was received after the SSLRequest.
        if (first && this.opts.tls !== undefined && isSslRequest(payload)) return this.client.startTls(this.opts.tls, this.reader.takeRest());
        this.input.push({ payload, seq });
      });
      this.input.read(chunk.length);
    } catch (err) {
      this.input.push(err instanceof MysqlProtocolError ? err : new MysqlProtocolError(errorMessage(err)));
    }
    void this.input.drain();
  };

  /** `max_allowed_packet`: the largest payload once logged in. */
  private get maxPayloadSize(): number {
    return this.opts.maxPayloadSize ?? DEFAULT_MAX_PAYLOAD_SIZE;
  }

  /** ER_NET_PACKET_TOO_LARGE for a header announcing more than the reader's limit. */
  private tooLarge(err: PacketTooLargeError): ErrPacket {
    const loggingIn = this.state === 'handshake' || this.state === 'auth-switch';
    const message = loggingIn
      ? `Got a packet bigger than the ${err.limit} bytes a client may send before it has logged in (${err.message})`
      : `Got a packet bigger than 'max_allowed_packet' bytes (${err.message})`;
    return errOfKind(ER_NET_PACKET_TOO_LARGE, message);
  }

  /** Answers one payload; a malformed one, an ERR of the login or an unexpected error closes the connection. */
  private async handleItem(item: { payload: Buffer; seq: number } | MysqlProtocolError): Promise<void> {
    if (item instanceof MysqlProtocolError) {
      if (item instanceof PacketTooLargeError) this.fatal(this.tooLarge(item), item.seq + 1);
      else this.fatal(errOfKind(ER_UNKNOWN_COM_ERROR, item.message), 0);
      return;
    }
    try {
      await this.handle(item.payload, item.seq);
    } catch (err) {
      if (err instanceof ErrReply) return this.fatal(err.err, item.seq + 1);
      if (err instanceof MysqlProtocolError) return this.fatal(errOfKind(ER_UNKNOWN_COM_ERROR, `malformed packet: ${err.message}`), item.seq + 1);
      this.opts.logger.error({ err }, 'MySQL connection: unexpected error');
      this.fatal(errOfKind(ER_INTERNAL_ERROR, errorMessage(err)), item.seq + 1);
    }
  }

  /** Whether the client has logged in. */
  get authenticated(): boolean {
    return this.state === 'command';
  }

  /** Writes bytes; waits while the client does not read. */
  private async send(buf: Buffer): Promise<void> {
    if (this.state === 'closed') return;
    await writeWithBackpressure(this.socket, buf);
  }

  /** Writes a chunk of a result set; false once the connection is closed (the rest need not be encoded). */
  private async sendChunk(buf: Buffer): Promise<void | false> {
    if (this.state === 'closed') return false;
    await writeWithBackpressure(this.socket, buf);
  }

  private fatal(err: ErrPacket, seq: number): void {
    this.opts.logger.debug({ errno: err.errno, reason: err.message }, 'MySQL connection closed on an error');
    if (this.state !== 'closed') endConnection(this.socket, writePacket(encodeErr(err), seq & 0xff));
    this.state = 'closed';
  }

  /** Ends the connection (server shutdown). */
  close(): void {
    if (this.state === 'closed') return;
    // In the middle of a TLS handshake there is no way to say goodbye.
    if (this.client.inTlsHandshake) return this.destroy();
    this.state = 'closed';
    endConnection(this.socket, undefined);
  }

  destroy(): void {
    this.state = 'closed';
    this.client.destroy();
  }

  private async handle(payload: Buffer, seq: number): Promise<void> {
    switch (this.state) {
      case 'handshake':
        return this.handleHandshake(payload, seq);
      case 'auth-switch':
        return this.authenticate(payload, seq);
      case 'command':
        return this.handleCommand(payload);
      case 'closed':
        return;
    }
  }

  private async handleHandshake(payload: Buffer, seq: number): Promise<void> {
    const tls = this.opts.tls;
    if (isSslRequest(payload)) {
      // With TLS, the first SSLRequest never gets here (see onData).
      if (tls === undefined) throw new ErrReply(errOfKind(ER_NOT_SUPPORTED_YET, 'TLS is not enabled on this server: connect without SSL'));
      throw new MysqlProtocolError('unexpected SSLRequest');
    }
    if (tls?.required && !this.client.encrypted) {
      throw new ErrReply(
        errOfKind(ER_SECURE_TRANSPORT_REQUIRED, 'Connections using insecure transport are prohibited while --require_secure_transport=ON.'),
      );
    }
    const res = decodeHandshakeResponse41(payload);
    const certError = tls?.clientCertificateError(this.socket, res.user);
    if (certError !== undefined) {
      this.opts.logger.debug({ user: res.user, reason: certError }, 'MySQL client certificate refused');
      throw new ErrReply(errOfKind(ER_ACCESS_DENIED_ERROR, `Access denied for user '${res.user}': ${certError}`));
    }
    this.response = res;
    this.caps = negotiateCapabilities(this.serverCaps, res.capabilities);
    if (this.opts.auth !== undefined && needsAuthSwitch(res)) {
      this.state = 'auth-switch';
      return this.send(writePacket(nativePasswordAuthSwitch(this.scramble), (seq + 1) & 0xff));
    }
    return this.authenticate(res.authResponse, seq);
  }

  /** Checks the token, then the database of the handshake; OK or a fatal ERR. */
  private async authenticate(token: Buffer, seq: number): Promise<void> {
    const res = this.response!;
    const auth = this.opts.auth;
    if (auth !== undefined) {
      const entry = auth.userEntry(res.user);
      const v = entry?.verifier;
      const ok =
        v !== undefined &&
        (v.kind === 'plain' || v.kind === 'mysql_native_password') &&
        verifyNativePassword(this.scramble, token, v);
      if (!ok) {
        this.opts.logger.debug({ user: res.user }, 'MySQL authentication failed');
        throw new ErrReply(errOfKind(ER_ACCESS_DENIED_ERROR, `Access denied for user '${res.user}'`));
      }
      this.user = { username: entry!.username, permission: entry!.permission };
    } else if (res.user !== '') {
      this.user = { ...DEFAULT_USER, username: res.user };
    }
    if (res.database !== undefined) {
      const { catalog, database } = databaseOf(res.database);
      if (catalog !== 'tsdb' || !(await this.opts.sql.databaseExists(database))) {
        throw new ErrReply(errOfKind(ER_BAD_DB_ERROR, `Unknown database '${res.database}'`));
      }
      this.database = database;
    }
    this.state = 'command';
    this.loggedIn();
    this.reader.setMaxPayloadSize(this.maxPayloadSize);
    return this.send(writePacket(encodeOk(), (seq + 1) & 0xff));
  }

  private async handleCommand(payload: Buffer): Promise<void> {
    const cmd = decodeCommand(payload, (id) => {
      const p = this.statements.get(id);
      return p && { paramCount: p.placeholders.length, paramTypes: p.paramTypes, longData: p.longData };
    });
    switch (cmd.kind) {
      case 'quit':
        this.close();
        return;
      case 'ping':
      case 'reset_connection':
        if (cmd.kind === 'reset_connection') {
          this.statements.clear();
          this.warnings = [];
          this.timezone = this.opts.defaultTimezone ?? 'UTC';
          this.maxExecutionTime = 0;
        }
        return this.sendOk(1);
      case 'init_db':
        return this.guard(1, async () => {
          await this.useDatabase(cmd.database);
          return this.sendOk(1);
        });
      case 'query':
        return this.query(cmd.sql);
      case 'field_list':
        return this.guard(1, async () => this.fieldList(cmd.table));
      case 'stmt_prepare':
        return this.guard(1, async () => this.prepare(cmd.sql));
      case 'stmt_execute':
        return this.guard(1, async () => this.execute(cmd));
      case 'stmt_send_long_data': {
        const p = this.statements.get(cmd.statementId);
        if (p !== undefined) p.longData.set(cmd.paramId, Buffer.concat([p.longData.get(cmd.paramId) ?? Buffer.alloc(0), cmd.data]));
        return; // no reply
      }
      case 'stmt_close':
        this.statements.delete(cmd.statementId);
        return; // no reply
      case 'stmt_reset': {
        const p = this.statements.get(cmd.statementId);
        if (p === undefined) return this.sendErr(errOfKind(ER_UNKNOWN_STMT_HANDLER, `Unknown prepared statement handler (${cmd.statementId}) given to mysqld_stmt_reset`), 1);
        p.longData.clear();
        return this.sendOk(1);
      }
      case 'change_user':
        return this.changeUser(cmd);
      case 'unknown':
        // COM_PROCESS_KILL (deprecated, still sent by some clients): KILL QUERY of a connection id.
        if (cmd.code === COM_PROCESS_KILL && payload.length >= 5) {
          const id = payload.readUInt32LE(1);
          this.opts.sql.cancelConnection?.('mysql', id, `killed by COM_PROCESS_KILL ${id}`, this.ctx());
          return this.sendOk(1);
        }
        return this.sendErr(errOfKind(ER_UNKNOWN_COM_ERROR, `Unknown command ${cmd.code}`), 1);
    }
  }

  private sendOk(seq: number, statusFlags = SERVER_STATUS_AUTOCOMMIT, warnings = 0, affectedRows = 0): Promise<void> {
    return this.send(writePacket(encodeOk({ statusFlags, warnings, affectedRows }), seq & 0xff));
  }

  private sendErr(err: ErrPacket, seq: number): Promise<void> {
    return this.send(writePacket(encodeErr(err), seq & 0xff));
  }

  /** Runs `f`; an error becomes an ERR packet at `seq`. */
  private async guard(seq: number, f: () => Promise<void>): Promise<void> {
    try {
      await f();
    } catch (err) {
      await this.sendErrOf(err, seq);
    }
  }

  /** The ERR packet of an error at `seq`, or, for a result set cut short, where its next row would have been. */
  private sendErrOf(err: unknown, seq: number): Promise<void> {
    if (err instanceof ResultSetCut) return this.sendErr(this.errPacket(err.error), err.seq);
    return this.sendErr(this.errPacket(err), seq);
  }

  private errPacket(err: unknown): ErrPacket {
    if (err instanceof ErrReply) return err.err;
    if (err instanceof TsdbError) return errOfStatus(err.code, err.message);
    this.opts.logger.error({ err }, 'MySQL query: unexpected error');
    return errOfStatus(StatusCode.Internal, `Internal error: ${StatusCode.Internal}`);
  }

  private ctx() {
    return { database: this.database, timezone: this.timezone, user: this.user };
  }

  /**
   * Runs SQL through the frontend, cancellable by the client's disconnect and KILL QUERY of this
   * connection; a SELECT is limited by `max_execution_time` or its `MAX_EXECUTION_TIME(N)` hint
   * (MySQL limits only read-only SELECTs). The socket is read meanwhile, so that a disconnect is seen.
   */
  private executeSql(sql: string) {
    return this.input.runStatement(async (signal) => {
      const timer = startStatementTimer('mysql', sql);
      try {
        return timer.done(await this.opts.sql.executeSql(sql, {
          ...this.ctx(),
          protocol: 'mysql',
          signal,
          timeoutMs: executionTimeOf(sql, this.maxExecutionTime),
          client: `${this.client.raw.remoteAddress ?? ''}:${this.client.raw.remotePort ?? ''}`,
          connectionId: this.opts.connectionId,
          prepared: this.prepared,
        }));
      } catch (err) {
        throw timer.failed(err);
      }
    });
  }

  private async useDatabase(given: string): Promise<void> {
    const { catalog, database } = databaseOf(given);
    if (catalog !== 'tsdb' || !(await this.opts.sql.databaseExists(database))) {
      throw new ErrReply(errOfKind(ER_WRONG_DB_NAME, `Unknown database '${given}'`));
    }
    this.database = database;
  }

  /** COM_QUERY: each statement answers; all but the last with SERVER_MORE_RESULTS_EXISTS; the first error ends it. */
  private async query(sql: string): Promise<void> {
    const statements = splitStatements(sql);
    if (statements.length === 0) {
      // Only comments: `/*!40101 SET … */` runs (as nothing), anything else is MySQL's empty query.
      if (/\/\*!/.test(sql)) return this.sendOk(1);
      return this.sendErr({ errno: 1065, sqlState: '42000', message: 'Query was empty' }, 1);
    }
    let seq = 1;
    for (let i = 0; i < statements.length; i++) {
      const more = i < statements.length - 1;
      try {
        seq = await this.statement(statements[i]!, seq, more);
      } catch (err) {
        await this.sendErrOf(err, seq);
        return;
      }
    }
  }

  /** Runs one statement; returns the next sequence id. */
  private async statement(stmt: string, seq: number, more: boolean): Promise<number> {
    const status = SERVER_STATUS_AUTOCOMMIT | (more ? SERVER_MORE_RESULTS_EXISTS : 0);
    const i = intercept(stmt, { timezone: this.timezone, serverVersion: this.opts.serverVersion, maxExecutionTime: this.maxExecutionTime });
    if (i === undefined) {
      this.warnings = [];
      const outputs = await this.executeSql(stmt);
      for (let k = 0; k < outputs.length; k++) {
        const last = k === outputs.length - 1;
        seq = await this.sendOutput(outputs[k]!, seq, last ? status : status | SERVER_MORE_RESULTS_EXISTS);
      }
      if (outputs.length === 0) {
        await this.sendOk(seq, status);
        seq++;
      }
      return seq & 0xff;
    }
    switch (i.kind) {
      case 'ok': {
        this.warnings = i.warning !== undefined ? [{ level: 'Warning', code: 1235, message: i.warning }] : [];
        await this.sendOk(seq, status, this.warnings.length);
        return (seq + 1) & 0xff;
      }
      case 'set-timezone': {
        if (!isValidTimeZone(i.value)) throw new TsdbError(StatusCode.InvalidArguments, `Invalid time zone: ${i.value}`);
        this.timezone = /^system$/i.test(i.value) ? 'UTC' : i.value;
        this.warnings = [];
        await this.sendOk(seq, status);
        return (seq + 1) & 0xff;
      }
      case 'use':
        await this.useDatabase(i.database);
        this.warnings = [];
        await this.sendOk(seq, status);
        return (seq + 1) & 0xff;
      case 'set-max-execution-time':
        this.maxExecutionTime = i.ms;
        this.warnings = [];
        await this.sendOk(seq, status);
        return (seq + 1) & 0xff;
      case 'error':
        throw new ErrReply(errOfKind(ER_WRONG_VALUE_FOR_VAR, i.message));
      case 'rows':
        return this.sendRows(i.columns, i.rows, seq, status);
      case 'show-warnings': {
        const columns: OutputColumn[] = [
          { name: 'Level', data_type: 'String' },
          { name: 'Code', data_type: 'UInt16' },
          { name: 'Message', data_type: 'String' },
        ];
        return this.sendRows(columns, this.warnings.map((w) => [w.level, w.code, w.message]), seq, status);
      }
    }
  }

  private async sendRows(columns: readonly OutputColumn[], rows: ReadonlyArray<readonly Cell[]>, seq: number, status: number): Promise<number> {
    return writeResultSet(columns, rows, { capabilities: this.caps, seq, timeZone: this.timezone, statusFlags: status }, (b) => this.sendChunk(b));
  }

  private async sendOutput(o: Output, seq: number, status: number, binary = false): Promise<number> {
    const opts = { capabilities: this.caps, seq, timeZone: this.timezone, statusFlags: status, binary };
    // Rows are encoded a chunk at a time, each sent before the next is made (row-encoder.ts).
    if (o.kind === 'records') return writeResultSet(o.columns, o.rows, opts, (b) => this.sendChunk(b));
    const p = outputPackets(o, opts);
    await this.send(p.bytes);
    return p.nextSeq;
  }

  private async fieldList(table: string): Promise<void> {
    const [t] = await this.opts.sql.tables(this.ctx(), [table]);
    if (t === undefined) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${table}`);
    const columns = t.columns.map((c) => ({ name: c.name, data_type: c.type }));
    const p = fieldListPackets(columns, { capabilities: this.caps, seq: 1, schema: this.database, table: t.name });
    await this.send(p.bytes);
  }

  private async prepare(sql: string): Promise<void> {
    const statements = splitStatements(sql);
    if (statements.length !== 1) {
      throw new TsdbError(StatusCode.InvalidSyntax, 'Invalid SQL syntax: a prepared statement holds exactly one statement');
    }
    const text = statements[0]!;
    const id = this.nextStatementId++;
    const placeholders = placeholderOffsets(text);
    const types = placeholders.length === 0 ? new Map<number, string>() : await inferParamTypes(text, 'question', (name) => this.columnsOf(name));
    const inferred = placeholders.map((_, k) => types.get(k + 1));
    this.statements.set(id, { sql: text, placeholders, paramTypes: undefined, inferred, longData: new Map() });
    // Parameters are described with their inferred types (clients such as mysql2 then send integers as integers).
    const params = inferred.map((type) => ({ name: '?', data_type: type ?? 'String' }));
    const p = preparePackets({ statementId: id, params, columns: [] }, { capabilities: this.caps, seq: 1 });
    await this.send(p.bytes);
  }

  /**
   * COM_CHANGE_USER: authenticates the user again (mysql_native_password on the handshake's scramble;
   * a wrong token closes the connection, as MySQL), then starts a fresh session in the database.
   */
  private async changeUser(cmd: Extract<Command, { kind: 'change_user' }>): Promise<void> {
    // Under verify-full the certificate names the user: switching to another one is refused too.
    const certError = this.opts.tls?.clientCertificateError(this.socket, cmd.user);
    if (certError !== undefined) throw new ErrReply(errOfKind(ER_ACCESS_DENIED_ERROR, `Access denied for user '${cmd.user}': ${certError}`));
    const auth = this.opts.auth;
    if (auth !== undefined) {
      const v = auth.userEntry(cmd.user)?.verifier;
      const ok = v !== undefined && (v.kind === 'plain' || v.kind === 'mysql_native_password') && verifyNativePassword(this.scramble, cmd.authResponse, v);
      if (!ok) throw new ErrReply(errOfKind(ER_ACCESS_DENIED_ERROR, `Access denied for user '${cmd.user}'`));
      const entry = auth.userEntry(cmd.user)!;
      this.user = { username: entry.username, permission: entry.permission };
    } else {
      this.user = cmd.user === '' ? DEFAULT_USER : { ...DEFAULT_USER, username: cmd.user };
    }
    this.statements.clear();
    this.warnings = [];
    this.timezone = this.opts.defaultTimezone ?? 'UTC';
    return this.guard(1, async () => {
      if (cmd.database !== '') {
        const { catalog, database } = databaseOf(cmd.database);
        if (catalog !== 'tsdb' || !(await this.opts.sql.databaseExists(database))) {
          throw new ErrReply(errOfKind(ER_BAD_DB_ERROR, `Unknown database '${cmd.database}'`));
        }
        this.database = database;
      }
      return this.sendOk(1);
    });
  }

  /** The columns of a table (`[table]` or `[database, table]`), name → tsdb type. */
  private async columnsOf(name: readonly string[]): Promise<ReadonlyMap<string, string> | undefined> {
    const [database, table] = name.length > 1 ? [name[name.length - 2]!, name[name.length - 1]!] : [this.database, name[0]!];
    const [t] = await this.opts.sql.tables({ ...this.ctx(), database }, [table]).catch(() => []);
    return t && new Map(t.columns.map((c) => [c.name, c.type]));
  }

  private async execute(cmd: Extract<Command, { kind: 'stmt_execute' }>): Promise<void> {
    const p = this.statements.get(cmd.statementId);
    if (p === undefined || cmd.params === undefined) {
      throw new ErrReply(errOfKind(ER_UNKNOWN_STMT_HANDLER, `Unknown prepared statement handler (${cmd.statementId}) given to mysqld_stmt_execute`));
    }
    if (cmd.newParamsBound && cmd.paramTypes !== undefined) p.paramTypes = cmd.paramTypes;
    p.longData = new Map();
    const sql = substitute(p.sql, p.placeholders, cmd.params, p.inferred);
    const i = intercept(sql, { timezone: this.timezone, serverVersion: this.opts.serverVersion, maxExecutionTime: this.maxExecutionTime });
    if (i !== undefined) {
      if (i.kind === 'rows') {
        const rs = resultSetPackets(i.columns, i.rows, { capabilities: this.caps, seq: 1, timeZone: this.timezone, binary: true });
        return this.send(rs.bytes);
      }
      if (i.kind === 'set-timezone') {
        if (!isValidTimeZone(i.value)) throw new TsdbError(StatusCode.InvalidArguments, `Invalid time zone: ${i.value}`);
        this.timezone = i.value;
      }
      if (i.kind === 'use') await this.useDatabase(i.database);
      if (i.kind === 'set-max-execution-time') this.maxExecutionTime = i.ms;
      if (i.kind === 'error') throw new ErrReply(errOfKind(ER_WRONG_VALUE_FOR_VAR, i.message));
      return this.sendOk(1);
    }
    const outputs = await this.executeSql(sql);
    const o = outputs[outputs.length - 1];
    if (o === undefined) return this.sendOk(1);
    await this.sendOutput(o, 1, SERVER_STATUS_AUTOCOMMIT, true);
  }
}

/** The time limit of a statement: a SELECT's `/*+ MAX_EXECUTION_TIME(N) *\/` hint, else the session's `max_execution_time`; other statements have none. */
export function executionTimeOf(sql: string, session: number): number {
  const m = /^\s*(select|with|\()/i.exec(sql);
  if (m === null) return 0;
  const hint = /^\s*select\s*\/\*\+[^*]*?\bmax_execution_time\s*\(\s*(\d+)\s*\)/i.exec(sql);
  return hint !== null ? Number(hint[1]) : session;
}

/** Offsets of `?` outside quotes ('…', "…", `…`) and comments. */
export function placeholderOffsets(sql: string): number[] {
  const out: number[] = [];
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === '`') {
      i++;
      while (i < n) {
        if (sql[i] === '\\' && c !== '`') i += 2;
        else if (sql[i] === c) {
          if (sql[i + 1] === c) i += 2;
          else break;
        } else i++;
      }
      i++;
    } else if ((c === '-' && sql[i + 1] === '-') || c === '#') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
    } else {
      if (c === '?') out.push(i);
      i++;
    }
  }
  return out;
}

const pad = (v: number, w = 2) => String(v).padStart(w, '0');

/**
 * A bound parameter as a SQL literal; `target` is the tsdb type the placeholder stands for, when
 * known. Bytes (BLOB parameters) become `from_hex('…')` so that any byte survives, unless they go to
 * a known non-binary column (then they are its text); negative zero is `-0.0` (`String(-0)` is `0`),
 * NaN and the infinities are DOUBLE casts of their text.
 */
export function sqlLiteral(p: BoundParam, target?: string): string {
  const v: ParamValue = p.value;
  if (v === null) return 'NULL';
  if (typeof v === 'number') {
    // NaN and the infinities as DuckDB reads them ('NaN', 'Infinity', '-Infinity').
    if (!Number.isFinite(v)) return `'${String(v)}'::DOUBLE`;
    return Object.is(v, -0) ? '-0.0' : String(v);
  }
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') {
    const numeric = p.type.type === MysqlType.DECIMAL || p.type.type === MysqlType.NEWDECIMAL;
    if (numeric && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(v)) return v;
    return quote(v);
  }
  if (Buffer.isBuffer(v)) {
    const bytes = isBlobType(p.type.type) && (target === undefined || target === 'Binary');
    return bytes ? `from_hex('${v.toString('hex')}')` : quote(v.toString('utf8'));
  }
  if (v.kind === 'datetime') {
    const frac = v.microsecond !== 0 ? `.${pad(v.microsecond, 6)}` : '';
    return quote(`${pad(v.year, 4)}-${pad(v.month)}-${pad(v.day)} ${pad(v.hour)}:${pad(v.minute)}:${pad(v.second)}${frac}`);
  }
  const hours = v.days * 24 + v.hours;
  const frac = v.microseconds !== 0 ? `.${pad(v.microseconds, 6)}` : '';
  return quote(`${v.negative ? '-' : ''}${pad(hours)}:${pad(v.minutes)}:${pad(v.seconds)}${frac}`);
}

function quote(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/**
 * The statement with each placeholder replaced by its parameter as a literal; in a query, marked as
 * parameter `$k` (the k-th `?`), which names the result columns made of it (`sql/parameter-marks.ts`).
 */
export function substitute(sql: string, placeholders: readonly number[], params: readonly BoundParam[], targets: ReadonlyArray<string | undefined> = []): string {
  if (params.length !== placeholders.length) {
    throw new ErrReply(errOfKind(ER_WRONG_ARGUMENTS, `Incorrect arguments to mysqld_stmt_execute: ${params.length} of ${placeholders.length} parameters`));
  }
  const marked = marksParameters(sql);
  let out = '';
  let last = 0;
  placeholders.forEach((at, k) => {
    out += sql.slice(last, at) + (marked ? parameterMark(k + 1) : '') + sqlLiteral(params[k]!, targets[k]);
    last = at + 1;
  });
  return out + sql.slice(last);
}
