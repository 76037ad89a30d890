/**
 * One PostgreSQL client connection: a state machine over the codec of `messages.ts`.
 *
 * ```
 * startup ──SSLRequest──▶ with TLS: 'S', TLS handshake, startup over TLS; else 'N', startup
 *    │ (GSSENCRequest ──▶ 'N'; with TLS `require` and stricter a plaintext StartupMessage is
 *    │  FATAL 28000 `No encryption`, and the client certificate is checked: tls.ts)
 *    │ StartupMessage (user, database, TimeZone)
 *    ▼
 * with a user provider, when every verifier allows SCRAM (plain, pg_scram_sha256):
 *   sasl-initial, sasl (AuthenticationSASL ◀─▶ SASLInitialResponse, SASLContinue ◀─▶ SASLResponse, SASLFinal)
 * else password (AuthenticationCleartextPassword ◀─▶ PasswordMessage)
 *    ▼
 * ready: AuthenticationOk, ParameterStatus…, BackendKeyData, ReadyForQuery
 *    Query → per statement: RowDescription, DataRow…, CommandComplete | ErrorResponse; ReadyForQuery
 *    extended messages → ErrorResponse 0A000 once, skipped until Sync → ReadyForQuery
 *    Terminate → close
 * ```
 * Messages are handled one at a time, in order: the socket is paused while one runs (but for up to
 * 1 MiB read ahead while an SQL statement runs, so that a disconnect is seen and cancels it), and writes
 * wait for `drain`, so a client that stops reading holds only its own connection.
 */
import type { Socket } from 'node:net';
import type { ServerTls } from '../tls.js';
import { StatusCode } from '../../common/error/status-code.js';
import { errorMessage, statusCodeOf, TsdbError } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import { isValidTimeZone } from '../../common/time/timestamp.js';
import { DEFAULT_USER, type UserInfo } from '../../frontend/auth/user-provider.js';
import type { Output } from '../../query/output.js';
import type { AuthHandler, SqlHandler } from '../handlers.js';
import { intercept, parseStatementTimeout, showValue, splitStatements } from './intercept.js';
import {
  authenticationCleartextPassword,
  authenticationOk,
  authenticationSASL,
  authenticationSASLContinue,
  authenticationSASLFinal,
  backendKeyData,
  bindComplete,
  closeComplete,
  commandComplete,
  dataRow,
  emptyQueryResponse,
  errorResponse,
  MessageReader,
  noData,
  noticeResponse,
  parameterDescription,
  parameterStatus,
  parseComplete,
  readyForQuery,
  rowDescription,
  sslResponse,
  type FormatCode,
  type FrontendMessage,
} from './messages.js';
import { bindParameters, parameterCount } from './bind.js';
import { inferParamTypes } from '../param-types.js';
import { ClientInput } from '../client-input.js';
import { ClientSocket, endConnection, loginDeadline, writeWithBackpressure } from '../tcp-server.js';
import { PG_SQLSTATE, PgWireError, SQLSTATE } from './pg-error.js';
import { deriveScramVerifier, SCRAM_SHA_256, ScramServerSession, type ScramVerifier } from './scram.js';
import { commandTag, decodeParam, paramFormat, PG_OID, pgTypeOf } from './types.js';
import { DataRowEncoder } from './data-rows.js';
import { startStatementTimer } from '../statement-timer.js';

export interface PgConnectionOptions {
  readonly sql: SqlHandler;
  readonly auth?: AuthHandler;
  readonly logger: Logger;
  /** `server_version` ParameterStatus: `16.3-tsdb-<version>`. */
  readonly serverVersion: string;
  readonly processId: number;
  readonly secretKey: number;
  /** Time zone of a session that names none (`default_timezone`; default UTC). */
  readonly defaultTimezone?: string;
  /** The server's TLS (mode other than `disable`): an SSLRequest is answered 'S'. */
  readonly tls?: ServerTls;
  /** Time a client has to log in before it is dropped (default 60 s, PostgreSQL's authentication_timeout). */
  readonly loginTimeoutMs?: number;
  /** A CancelRequest (received on a new connection): cancels the running statement of backend `processId` if `secretKey` is its key. */
  readonly cancel?: (processId: number, secretKey: number) => void;
}

/** PostgreSQL's `authentication_timeout` default. */
const DEFAULT_LOGIN_TIMEOUT_MS = 60_000;

type State = 'startup' | 'password' | 'sasl-initial' | 'sasl' | 'ready' | 'closed';

/** The value of `-c name=value` / `--name=value` in a startup packet's `options`. */
function startupOption(options: string | undefined, name: string): string | undefined {
  if (options === undefined) return undefined;
  let value: string | undefined;
  const re = /(?:-c\s*|--)([\w.]+)=(\S*)/g;
  for (let m = re.exec(options); m !== null; m = re.exec(options)) if (m[1]!.toLowerCase() === name) value = m[2]!;
  return value;
}

/** `<catalog>-<schema>` or `<schema>`; only the `tsdb` catalog exists. */
function databaseOf(db: string): { catalog: string; database: string } {
  const dash = db.indexOf('-');
  return dash < 0 ? { catalog: 'tsdb', database: db } : { catalog: db.slice(0, dash), database: db.slice(dash + 1) };
}

export class PgConnection {
  private readonly reader = new MessageReader();
  private state: State = 'startup';
  /** Messages waiting their turn; a PgWireError stands for the malformed bytes that ended the stream. */
  private readonly input: ClientInput<FrontendMessage | PgWireError>;
  /** After an error in an extended-protocol sequence: messages are skipped until Sync. */
  private skipUntilSync = false;
  private username = '';
  private user: UserInfo = DEFAULT_USER;
  private database = 'public';
  private timezone: string;
  private applicationName = '';
  /** `statement_timeout` in milliseconds (0: none), from the startup packet or `SET statement_timeout`. */
  private statementTimeoutMs = 0;
  /** SQL `PREPARE`d statements of this connection (`frontend/statement/prepared.ts`). */
  private readonly sqlPrepared = new Map<string, { readonly sql: string; readonly types: readonly string[] }>();
  /** The socket, TCP then TLS. */
  private readonly client: ClientSocket;
  private get socket(): Socket {
    return this.client.socket;
  }

  constructor(
    raw: Socket,
    private readonly opts: PgConnectionOptions,
  ) {
    this.timezone = opts.defaultTimezone ?? 'UTC';
    this.client = new ClientSocket(raw, {
      name: 'PostgreSQL',
      logger: opts.logger,
      onData: this.onData,
      onError: () => this.destroy(),
      onClose: () => {
        this.state = 'closed';
        this.input.cancel(new TsdbError(StatusCode.Cancelled, 'Query execution was cancelled: the PostgreSQL client disconnected'));
      },
    });
    this.input = new ClientInput(this.client, () => this.state === 'closed', (msg) => this.handleItem(msg));
    this.loggedIn = loginDeadline(raw, opts.loginTimeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS, () => {
      opts.logger.debug({ remote: raw.remoteAddress }, 'PostgreSQL client did not log in in time: connection dropped');
      this.destroy();
    });
  }

  /** Cancels the login deadline. */
  private readonly loggedIn: () => void;

  private readonly onData = (chunk: Buffer): void => {
    if (this.state === 'closed') return;
    try {
      this.reader.feed(chunk, (msg) => {
        // How the next `p` message reads is decided here, before it is decoded.
        if (msg.type === 'StartupMessage' && this.opts.auth !== undefined) this.reader.expectAuthResponse(this.useScram() ? 'sasl-initial' : 'password');
        this.input.push(msg);
      });
      this.input.read(chunk.length);
    } catch (err) {
      // Answer what came before the malformed message, then the fatal error.
      this.input.push(err instanceof PgWireError ? err : new PgWireError(SQLSTATE.PROTOCOL_VIOLATION, errorMessage(err), true));
    }
    void this.input.drain();
  };

  /** Answers one message; a malformed one, a fatal error or an unexpected one closes the connection. */
  private async handleItem(msg: FrontendMessage | PgWireError): Promise<void> {
    if (msg instanceof PgWireError) return this.fatal(msg);
    try {
      await this.handle(msg);
    } catch (err) {
      if (err instanceof PgWireError && err.fatal) return this.fatal(err);
      this.opts.logger.error({ err }, 'PostgreSQL connection: unexpected error');
      await this.fatal(new PgWireError(SQLSTATE.INTERNAL_ERROR, errorMessage(err), true));
    }
  }

  /** Whether the client has logged in. */
  get authenticated(): boolean {
    return this.state === 'ready';
  }

  /** Writes a message; waits while the client does not read. */
  private async send(buf: Buffer): Promise<void> {
    if (this.state === 'closed') return;
    await writeWithBackpressure(this.socket, buf);
  }

  private async fatal(err: PgWireError): Promise<void> {
    this.opts.logger.debug({ sqlstate: err.sqlstate, reason: err.message }, 'PostgreSQL connection closed on a fatal error');
    if (this.state !== 'closed') endConnection(this.socket, errorResponse({ severity: 'FATAL', code: err.sqlstate, message: err.message }));
    this.state = 'closed';
  }

  /** Ends the connection at server shutdown: FATAL 57P01 first. */
  close(): void {
    if (this.state === 'closed') return;
    // In the middle of a TLS handshake there is no way to say goodbye.
    if (this.client.inTlsHandshake) return this.destroy();
    this.state = 'closed';
    if (this.socket.destroyed) return;
    endConnection(this.socket, errorResponse({ severity: 'FATAL', code: '57P01', message: 'terminating connection due to administrator command' }));
  }

  /** Drops the connection now. */
  destroy(): void {
    this.state = 'closed';
    this.client.destroy();
  }

  /** Answers an SSLRequest: 'S' and the session goes on over TLS, or 'N' without TLS. */
  private async startTls(): Promise<void> {
    const tls = this.opts.tls;
    if (tls === undefined) return this.send(sslResponse(false));
    if (this.client.encrypted) throw new PgWireError(SQLSTATE.PROTOCOL_VIOLATION, 'SSLRequest over TLS', true);
    // The client must wait for the answer (PostgreSQL refuses the same, CVE-2021-23214).
    if (this.input.length > 0 || this.reader.pendingBytes > 0 || this.client.raw.readableLength > 0) {
      throw new PgWireError(SQLSTATE.PROTOCOL_VIOLATION, 'received unencrypted data after SSL request', true);
    }
    await this.send(sslResponse(true));
    if (this.state === 'closed') return;
    this.client.startTls(tls);
  }

  private async handle(msg: FrontendMessage): Promise<void> {
    switch (this.state) {
      case 'startup':
        return this.handleStartup(msg);
      case 'password':
        return this.handlePassword(msg);
      case 'sasl-initial':
        return this.handleSaslInitial(msg);
      case 'sasl':
        return this.handleSaslResponse(msg);
      case 'ready':
        return this.handleReady(msg);
      case 'closed':
        return;
    }
  }

  private async handleStartup(msg: FrontendMessage): Promise<void> {
    switch (msg.type) {
      case 'SSLRequest':
        return this.startTls();
      case 'GSSENCRequest':
        return this.send(sslResponse(false));
      case 'CancelRequest':
        // PostgreSQL answers nothing, whatever the key: the connection just closes.
        this.opts.cancel?.(msg.processId, msg.secretKey);
        this.destroy();
        return;
      case 'StartupMessage': {
        if (this.opts.tls?.required && !this.client.encrypted) throw new PgWireError(SQLSTATE.INVALID_AUTHORIZATION, 'No encryption', true);
        // Parameter names are case-insensitive (libpq sends PGTZ as `timezone`).
        const p = new Map([...msg.parameters].map(([k, v]) => [k.toLowerCase(), v]));
        const user = p.get('user');
        if (user === undefined || user === '') {
          throw new PgWireError(SQLSTATE.INVALID_AUTHORIZATION, 'no PostgreSQL user name specified in startup packet', true);
        }
        const certError = this.opts.tls?.clientCertificateError(this.socket, user);
        if (certError !== undefined) {
          this.opts.logger.debug({ user, reason: certError }, 'PostgreSQL client certificate refused');
          throw new PgWireError(SQLSTATE.INVALID_AUTHORIZATION, `certificate authentication failed for user "${user}": ${certError}`, true);
        }
        this.username = user;
        this.applicationName = p.get('application_name') ?? '';
        // `statement_timeout` as a parameter of its own (node-postgres) or in `options` (`-c statement_timeout=5s`, PGOPTIONS).
        const timeout = p.get('statement_timeout') ?? startupOption(p.get('options'), 'statement_timeout');
        if (timeout !== undefined) {
          const ms = parseStatementTimeout(timeout);
          if (ms === undefined) throw new PgWireError(SQLSTATE.INVALID_PARAMETER_VALUE, `invalid value for parameter "statement_timeout": "${timeout}"`, true);
          this.statementTimeoutMs = ms;
        }
        const tz = p.get('timezone');
        if (tz !== undefined) {
          if (!isValidTimeZone(tz)) throw new PgWireError(SQLSTATE.INVALID_PARAMETER_VALUE, `Invalid TimeZone: ${tz}`, true);
          this.timezone = tz;
        }
        const db = p.get('database') ?? 'public';
        const { catalog, database } = databaseOf(db);
        this.database = database;
        this.startupDatabase = { given: db, catalog };
        if (this.opts.auth !== undefined) {
          if (this.useScram()) {
            this.state = 'sasl-initial';
            return this.send(authenticationSASL([SCRAM_SHA_256]));
          }
          this.state = 'password';
          return this.send(authenticationCleartextPassword());
        }
        return this.finishStartup();
      }
      default:
        throw new PgWireError(SQLSTATE.PROTOCOL_VIOLATION, `unexpected message ${msg.type} before startup`, true);
    }
  }

  private startupDatabase: { given: string; catalog: string } = { given: 'public', catalog: 'tsdb' };

  private async handlePassword(msg: FrontendMessage): Promise<void> {
    if (msg.type !== 'PasswordMessage') {
      throw new PgWireError(SQLSTATE.PROTOCOL_VIOLATION, `expected password response, got message type ${msg.type}`, true);
    }
    this.reader.expectAuthResponse(undefined);
    try {
      this.user = await this.opts.auth!.authenticate(this.username, msg.password);
    } catch (err) {
      this.opts.logger.debug({ user: this.username, reason: errorMessage(err) }, 'PostgreSQL authentication failed');
      throw new PgWireError(SQLSTATE.INVALID_PASSWORD, `password authentication failed for user "${this.username}"`, true);
    }
    return this.finishStartup();
  }

  /**
   * SCRAM-SHA-256 when every user's verifier allows it (plain passwords, pg_scram_sha256), else a
   * cleartext password for all (reference api.md §3; no MD5).
   */
  private useScram(): boolean {
    const kinds = this.opts.auth?.verifierKinds();
    return kinds !== undefined && kinds.size > 0 && [...kinds].every((k) => k === 'plain' || k === 'pg_scram_sha256');
  }

  private scram: ScramServerSession | undefined;

  private async handleSaslInitial(msg: FrontendMessage): Promise<void> {
    if (msg.type !== 'SASLInitialResponse') throw new PgWireError(SQLSTATE.PROTOCOL_VIOLATION, `expected SASLInitialResponse, got message type ${msg.type}`, true);
    if (msg.mechanism !== SCRAM_SHA_256) throw new PgWireError(SQLSTATE.PROTOCOL_VIOLATION, `SASL authentication mechanism ${msg.mechanism} is not supported; use ${SCRAM_SHA_256}`, true);
    const entry = this.opts.auth!.userEntry(this.username);
    let verifier: ScramVerifier | undefined;
    if (entry?.verifier.kind === 'pg_scram_sha256') verifier = entry.verifier;
    else if (entry?.verifier.kind === 'plain') verifier = await deriveScramVerifier(entry.verifier.password);
    // An unknown user goes through the exchange and fails at its end, like a wrong password.
    this.scram = new ScramServerSession(verifier);
    const serverFirst = this.scram.clientFirst(msg.data ?? Buffer.alloc(0));
    this.reader.expectAuthResponse('sasl');
    this.state = 'sasl';
    return this.send(authenticationSASLContinue(Buffer.from(serverFirst)));
  }

  private async handleSaslResponse(msg: FrontendMessage): Promise<void> {
    if (msg.type !== 'SASLResponse') throw new PgWireError(SQLSTATE.PROTOCOL_VIOLATION, `expected SASLResponse, got message type ${msg.type}`, true);
    this.reader.expectAuthResponse(undefined);
    let serverFinal: string;
    try {
      serverFinal = this.scram!.clientFinal(msg.data);
    } catch (err) {
      this.opts.logger.debug({ user: this.username, reason: errorMessage(err) }, 'PostgreSQL SCRAM authentication failed');
      if (err instanceof PgWireError && err.sqlstate !== SQLSTATE.INVALID_PASSWORD) throw err;
      throw new PgWireError(SQLSTATE.INVALID_PASSWORD, `password authentication failed for user "${this.username}"`, true);
    }
    const entry = this.opts.auth!.userEntry(this.username)!;
    this.user = { username: entry.username, permission: entry.permission };
    await this.send(authenticationSASLFinal(Buffer.from(serverFinal)));
    return this.finishStartup();
  }

  private async finishStartup(): Promise<void> {
    const { given, catalog } = this.startupDatabase;
    if (catalog !== 'tsdb' || !(await this.opts.sql.databaseExists(this.database))) {
      throw new PgWireError(SQLSTATE.INVALID_CATALOG_NAME, `Database not found: ${given}`, true);
    }
    this.state = 'ready';
    this.loggedIn();
    const params: Array<[string, string]> = [
      ['server_version', this.opts.serverVersion],
      ['server_encoding', 'UTF8'],
      ['client_encoding', 'UTF8'],
      ['DateStyle', 'ISO YMD'],
      ['integer_datetimes', 'on'],
      ['TimeZone', this.timezone],
      ['standard_conforming_strings', 'on'],
      ['application_name', this.applicationName],
    ];
    const out = [authenticationOk(), ...params.map(([k, v]) => parameterStatus(k, v)), backendKeyData(this.opts.processId, this.opts.secretKey), readyForQuery('I')];
    await this.send(Buffer.concat(out));
  }

  private async handleReady(msg: FrontendMessage): Promise<void> {
    switch (msg.type) {
      case 'Query':
        await this.simpleQuery(msg.query);
        return this.send(readyForQuery('I'));
      case 'Parse':
      case 'Bind':
      case 'Describe':
      case 'Execute':
      case 'Close':
        // After an error, the rest of the batch up to Sync is skipped (PostgreSQL's rule).
        if (this.skipUntilSync) return;
        try {
          return await this.extended(msg);
        } catch (err) {
          if (err instanceof PgWireError && err.fatal) throw err;
          this.skipUntilSync = true;
          return this.send(errorResponse({ severity: 'ERROR', ...this.errorFields(err) }));
        }
      case 'Sync':
        this.skipUntilSync = false;
        return this.send(readyForQuery('I'));
      case 'Flush':
        return;
      case 'Terminate':
        this.socket.end();
        this.state = 'closed';
        return;
      case 'FunctionCall':
        await this.send(errorResponse({ severity: 'ERROR', code: SQLSTATE.FEATURE_NOT_SUPPORTED, message: 'function calls are not supported' }));
        return this.send(readyForQuery('I'));
      case 'CopyData':
      case 'CopyDone':
      case 'CopyFail':
        return; // no COPY is ever started; PostgreSQL ignores these outside COPY too
      default:
        throw new PgWireError(SQLSTATE.PROTOCOL_VIOLATION, `unexpected message ${msg.type}`, true);
    }
  }

  /** Prepared statements (Parse) and portals (Bind) of the extended query protocol, by name. */
  /**
   * Prepared statements by name: `paramTypes` as Parse declared them (0: unspecified), completed with
   * the types inferred from where each parameter stands (`servers/param-types.ts`).
   */
  private readonly prepared = new Map<string, { readonly sql: string; readonly paramTypes: readonly number[] }>();
  private readonly portals = new Map<string, { readonly sql: string; readonly resultFormats: readonly FormatCode[]; outputs?: Output[] }>();

  /**
   * The extended query protocol: parameters are bound as literals into the statement's text, the
   * portal runs when it is described or executed (whichever comes first), and Execute sends its
   * rows without a row description (Describe sent it), all of them (no row limit).
   */
  private async extended(msg: Extract<FrontendMessage, { type: 'Parse' | 'Bind' | 'Describe' | 'Execute' | 'Close' }>): Promise<void> {
    switch (msg.type) {
      case 'Parse': {
        const statements = splitStatements(msg.query);
        if (statements.length > 1) throw new PgWireError(SQLSTATE.SYNTAX_ERROR, 'cannot insert multiple commands into a prepared statement');
        const sql = statements[0] ?? '';
        this.prepared.set(msg.name, { sql, paramTypes: await this.paramTypes(sql, msg.paramTypes) });
        return this.send(parseComplete());
      }
      case 'Bind': {
        const stmt = this.prepared.get(msg.statement);
        if (stmt === undefined) throw new PgWireError(SQLSTATE.INVALID_SQL_STATEMENT_NAME, `prepared statement "${msg.statement}" does not exist`);
        const values = msg.params.map((v, i) => decodeParam(v, stmt.paramTypes[i] ?? 0, paramFormat(msg.paramFormats, i)));
        this.portals.set(msg.portal, { sql: bindParameters(stmt.sql, values), resultFormats: msg.resultFormats });
        return this.send(bindComplete());
      }
      case 'Describe': {
        if (msg.kind === 'S') {
          const stmt = this.prepared.get(msg.name);
          if (stmt === undefined) throw new PgWireError(SQLSTATE.INVALID_SQL_STATEMENT_NAME, `prepared statement "${msg.name}" does not exist`);
          const types = Array.from({ length: stmt.paramTypes.length }, (_, i) => stmt.paramTypes[i] || PG_OID.TEXT);
          // The columns of a query are known once it runs: reads run with NULL parameters to learn them.
          const reads = /^\s*(select|with|show|desc|describe|values)\b/i.test(stmt.sql) && intercept(stmt.sql) === undefined;
          const outputs = reads ? await this.run(bindParameters(stmt.sql, types.map(() => null))) : [];
          const rows = outputs[0]?.kind === 'records' ? outputs[0] : undefined;
          return this.send(Buffer.concat([parameterDescription(types), rows === undefined ? noData() : this.rowDescriptionOf(rows, [])]));
        }
        const portal = this.portal(msg.name);
        portal.outputs ??= await this.portalOutputs(portal.sql);
        const rows = portal.outputs[0]?.kind === 'records' ? portal.outputs[0] : undefined;
        return this.send(rows === undefined ? noData() : this.rowDescriptionOf(rows, portal.resultFormats));
      }
      case 'Execute': {
        const portal = this.portal(msg.portal);
        if (portal.sql.trim() === '') return this.send(emptyQueryResponse());
        const outputs = portal.outputs ?? (await this.portalOutputs(portal.sql));
        portal.outputs = undefined;
        for (const o of outputs) await this.sendOutput(o, { describe: false, formats: portal.resultFormats });
        return;
      }
      case 'Close':
        if (msg.kind === 'S') this.prepared.delete(msg.name);
        else this.portals.delete(msg.name);
        return this.send(closeComplete());
    }
  }

  /**
   * The type of each parameter of a statement: as declared, else inferred from where it stands
   * (an INSERT's column, a compared column, a cast), else 0 (unspecified: text as given).
   */
  private async paramTypes(sql: string, declared: readonly number[]): Promise<number[]> {
    const count = Math.max(declared.length, parameterCount(sql));
    if (declared.length >= count && declared.every((oid) => oid !== 0)) return [...declared];
    const inferred = await inferParamTypes(sql, 'dollar', async (name) => {
      const [database, table] = name.length > 1 ? [name[name.length - 2]!, name[name.length - 1]!] : [this.database, name[0]!];
      const [t] = await this.opts.sql.tables({ database, timezone: this.timezone, user: this.user }, [table]).catch(() => []);
      return t && new Map(t.columns.map((c) => [c.name, c.type]));
    });
    return Array.from({ length: count }, (_, i) => {
      const given = declared[i] ?? 0;
      const type = inferred.get(i + 1);
      return given !== 0 || type === undefined ? given : pgTypeOf(type).oid;
    });
  }

  private portal(name: string): { readonly sql: string; readonly resultFormats: readonly FormatCode[]; outputs?: Output[] } {
    const p = this.portals.get(name);
    if (p === undefined) throw new PgWireError(SQLSTATE.INVALID_CURSOR_NAME, `portal "${name}" does not exist`);
    return p;
  }

  /** What a portal's statement answers: SQL through the frontend; intercepted statements as their tag. */
  private async portalOutputs(sql: string): Promise<Output[]> {
    const i = intercept(sql);
    if (i === undefined) return this.run(sql);
    // SET / SHOW / transaction statements take effect now; they answer no rows here.
    await this.statementQuietly(sql);
    return [{ kind: 'affected', rows: 0 }];
  }

  private run(sql: string): Promise<Output[]> {
    return this.execute(sql);
  }

  /**
   * Runs SQL through the frontend under this connection's statement_timeout, cancellable by a
   * CancelRequest and by the client's disconnect. The socket is read meanwhile, so that a disconnect
   * is seen.
   */
  private execute(sql: string): Promise<Output[]> {
    return this.input.runStatement(async (signal) => {
      const timer = startStatementTimer('postgres', sql);
      try {
        return timer.done(await this.opts.sql.executeSql(sql, {
          database: this.database,
          timezone: this.timezone,
          user: this.user,
          protocol: 'postgres',
          signal,
          timeoutMs: this.statementTimeoutMs,
          client: `${this.client.raw.remoteAddress ?? ''}:${this.client.raw.remotePort ?? ''}`,
          connectionId: this.opts.processId,
          prepared: this.sqlPrepared,
        }));
      } catch (err) {
        throw timer.failed(err);
      }
    });
  }

  /** A CancelRequest for this backend: the running statement (if any) stops with 57014. */
  cancelRequest(secretKey: number): void {
    if (secretKey !== this.opts.secretKey) return;
    this.input.cancel(new TsdbError(StatusCode.Cancelled, 'canceling statement due to user request'));
  }

  /** Runs an intercepted statement for its effect, discarding what it would send. */
  private async statementQuietly(sql: string): Promise<void> {
    const send = this.send;
    this.send = async () => {};
    try {
      await this.statement(sql);
    } finally {
      this.send = send;
    }
  }

  /** Runs each statement of a simple Query; the first error ends the query. */
  private async simpleQuery(sql: string): Promise<void> {
    const statements = splitStatements(sql);
    if (statements.length === 0) return this.send(emptyQueryResponse());
    for (const stmt of statements) {
      try {
        await this.statement(stmt);
      } catch (err) {
        return this.send(errorResponse({ severity: 'ERROR', ...this.errorFields(err) }));
      }
    }
  }

  private errorFields(err: unknown): { code: string; message: string } {
    if (err instanceof PgWireError) return { code: err.sqlstate, message: err.message };
    // PostgreSQL's own words for a statement cancelled or timed out (SQLSTATE 57014).
    if (err instanceof TsdbError && err.code === StatusCode.Cancelled) return { code: PG_SQLSTATE[err.code], message: 'canceling statement due to user request' };
    if (err instanceof TsdbError && err.code === StatusCode.DeadlineExceeded) return { code: PG_SQLSTATE[err.code], message: 'canceling statement due to statement timeout' };
    if (err instanceof TsdbError) return { code: PG_SQLSTATE[err.code], message: err.message };
    this.opts.logger.error({ err }, 'PostgreSQL query: unexpected error');
    const code = statusCodeOf(err);
    return { code: PG_SQLSTATE[code], message: `Internal error: ${StatusCode.Internal}` };
  }

  private async statement(stmt: string): Promise<void> {
    const i = intercept(stmt);
    if (i === undefined) {
      const outputs = await this.execute(stmt);
      for (const o of outputs) await this.sendOutput(o);
      return;
    }
    switch (i.kind) {
      case 'tag':
        if (i.warning !== undefined) await this.send(noticeResponse({ severity: 'WARNING', code: '01000', message: i.warning }));
        return this.send(commandComplete(i.tag));
      case 'set-timezone':
        if (!isValidTimeZone(i.value)) throw new PgWireError(SQLSTATE.INVALID_PARAMETER_VALUE, `Invalid TimeZone: ${i.value}`);
        this.timezone = i.value;
        return this.send(Buffer.concat([parameterStatus('TimeZone', this.timezone), commandComplete('SET')]));
      case 'set-statement-timeout': {
        const ms = parseStatementTimeout(i.value);
        if (ms === undefined) throw new PgWireError(SQLSTATE.INVALID_PARAMETER_VALUE, `invalid value for parameter "statement_timeout": "${i.value}"`);
        this.statementTimeoutMs = ms;
        return this.send(commandComplete('SET'));
      }
      case 'set-search-path': {
        if (!(await this.opts.sql.databaseExists(i.value))) throw new TsdbError(StatusCode.DatabaseNotFound, `Database not found: ${i.value}`);
        this.database = i.value;
        return this.send(commandComplete('SET'));
      }
      case 'show': {
        const value = showValue(i.name, {
          timezone: this.timezone,
          database: this.database,
          serverVersion: this.opts.serverVersion,
          applicationName: this.applicationName,
          statementTimeoutMs: this.statementTimeoutMs,
        });
        const t = pgTypeOf('String');
        return this.send(
          Buffer.concat([
            rowDescription([{ name: i.column, typeOid: t.oid, typeLen: t.len }]),
            dataRow([Buffer.from(value, 'utf8')]),
            commandComplete('SHOW'),
          ]),
        );
      }
    }
  }

  private rowDescriptionOf(o: Extract<Output, { kind: 'records' }>, formats: readonly FormatCode[]): Buffer {
    return rowDescription(
      o.columns.map((c, k) => {
        const t = pgTypeOf(c.data_type);
        return { name: c.name, typeOid: t.oid, typeLen: t.len, format: paramFormat(formats, k) };
      }),
    );
  }

  private async sendOutput(o: Output, how: { describe: boolean; formats: readonly FormatCode[] } = { describe: true, formats: [] }): Promise<void> {
    if (o.kind === 'affected') return this.send(commandComplete(commandTag(o)));
    if (how.describe) await this.send(this.rowDescriptionOf(o, how.formats));
    // Rows go out in chunks of about 256 KiB (data-rows.ts), each sent, and waited for when the
    // client is not reading, before the next is encoded.
    const encoder = new DataRowEncoder(o.columns, o.columns.map((_, k) => paramFormat(how.formats, k)), this.timezone, o.rows.length);
    const rows = o.rows;
    let r = 0;
    while (r < rows.length) {
      // A closed connection: the rest is not worth encoding.
      if (this.state === 'closed') return;
      const chunk = encoder.encode(rows, r, rows.length);
      r = chunk.next;
      if (r >= rows.length) return this.send(Buffer.concat([chunk.bytes, commandComplete(commandTag(o))]));
      await this.send(chunk.bytes);
      // The socket may have taken the chunk at once: let other connections' work in between.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await this.send(commandComplete(commandTag(o)));
  }
}
