/**
 * `greptime.v1.GreptimeDatabase` (reference api.md §6): `Handle` answers one GreptimeRequest,
 * `HandleRequests` a client stream of them, handled one after another as they arrive, with one
 * response holding the sum of their affected rows (GreptimeDB `servers/src/grpc/database.rs`).
 *
 * Requests are decoded by proto-loader, except `row_inserts` and `row_deletes`, read straight from
 * the wire into ingest tables when the server wraps the definition withDirectRowDecoding
 * (row-wire-decoder.ts; the same tables and refusals as tablesOfRows).
 *
 * - `row_inserts`, `inserts`: the ingest path (tables and columns created on write, as line
 *   protocol does; hints `auto_create_table`, `ttl`, `append_mode`, `merge_mode`);
 * - `row_deletes`, `deletes`: rows deleted by primary key and time index;
 * - `ddl`: as SQL statements (ddl-sql.ts) through the SqlHandler;
 * - `query.sql`: run through the SqlHandler; statements with affected rows answer them, a query
 *   returning rows is UNIMPLEMENTED (rows come over Arrow Flight DoGet), as in GreptimeDB.
 *
 * A request is checked whole before anything of it is written. In a stream, the requests already
 * handled stay written when a later one fails or the client goes away; the one being received is
 * not (a message is handled only once it is complete). A failure answers the gRPC status of its
 * code with the code and message in trailers (grpc-error.ts). A call's deadline or cancellation
 * stops the statement it runs.
 */
import * as grpc from '@grpc/grpc-js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import type { UserInfo } from '../../frontend/auth/user-provider.js';
import type { AuthHandler, IngestHandler, SqlContext, SqlHandler } from '../handlers.js';
import { ddlStatements, type DdlRequest } from './ddl-sql.js';
import { toGrpcError } from './grpc-error.js';
import { credentialsOf, databaseOf, hintsOf, ingestOptionsOf, timezoneOf, userOf, type RequestHeader } from './request-context.js';
import { tablesOfColumns, tablesOfRows, type WireColumn, type WireRows } from './row-decoder.js';
import { callSignal } from './call-signal.js';
import { undecodable } from './lenient-decoding.js';
import { decodedTables } from './row-wire-decoder.js';
import { countedIngest } from '../ingest-metrics.js';
export { withLenientDecoding } from './lenient-decoding.js';
export { withDirectRowDecoding } from './row-wire-decoder.js';

/** What the gRPC services need from the component. */
export interface GrpcHandlers {
  readonly sql: SqlHandler;
  readonly ingest: IngestHandler;
  /** Present when a user provider is configured: every request must authenticate. */
  readonly auth?: AuthHandler;
  /** Time zone of a request that names none (`default_timezone`; default UTC). */
  readonly defaultTimezone?: string;
}

/** `greptime.v1.GreptimeRequest` as decoded. */
interface GreptimeRequest {
  readonly header?: RequestHeader | null;
  readonly request?: string;
  readonly inserts?: { inserts: ReadonlyArray<{ table_name: string; columns: readonly WireColumn[]; row_count: number }> };
  readonly deletes?: { deletes: ReadonlyArray<{ table_name: string; key_columns: readonly WireColumn[]; row_count: number }> };
  readonly row_inserts?: { inserts: ReadonlyArray<{ table_name: string; rows?: WireRows | null }> };
  readonly row_deletes?: { deletes: ReadonlyArray<{ table_name: string; rows?: WireRows | null }> };
  readonly ddl?: DdlRequest;
  readonly query?: { query?: string; sql?: string };
}

/** The largest `AffectedRows.value` (uint32). */
const MAX_AFFECTED = 0xffffffff;

function response(rows: number): object {
  return { header: { status: { status_code: StatusCode.Success, err_msg: '' } }, affected_rows: { value: Math.min(rows, MAX_AFFECTED) } };
}

/** Handles the requests of one call (a stream's share users: credentials are checked once per distinct pair); Flight DoGet runs its non-query tickets through it too. */
export class RequestRunner {
  private readonly users = new Map<string, Promise<UserInfo>>();

  constructor(
    private readonly handlers: GrpcHandlers,
    private readonly metadata: grpc.Metadata,
    private readonly signal: AbortSignal,
    private readonly peer: string,
  ) {}

  private user(header: RequestHeader | null | undefined): Promise<UserInfo> {
    const auth = this.handlers.auth;
    if (auth === undefined) return userOf(header, this.metadata, undefined);
    const { username, password } = credentialsOf(header, this.metadata);
    const key = `${username}\u0000${password}`;
    let user = this.users.get(key);
    if (user === undefined) {
      user = auth.authenticate(username, password);
      this.users.set(key, user);
    }
    return user;
  }

  /** Runs one request; returns its affected rows. */
  async run(message: unknown): Promise<number> {
    const reason = undecodable(message);
    if (reason !== undefined) throw new TsdbError(StatusCode.InvalidArguments, `Invalid GreptimeRequest: the message is not valid protobuf (${reason})`);
    const req = message as GreptimeRequest;
    const user = await this.user(req.header);
    const database = databaseOf(req.header, this.metadata);
    const timezone = timezoneOf(req.header, this.metadata, this.handlers.defaultTimezone);
    const ctx: SqlContext = { database, timezone, user, protocol: 'grpc', signal: this.signal, client: this.peer };
    const { sql, ingest } = this.handlers;
    this.signal.throwIfAborted();
    switch (req.request) {
      case 'row_inserts': {
        const tables = decodedTables(req) ?? tablesOfRows(req.row_inserts!.inserts);
        return countedIngest('grpc', database, tables, 0, () => ingest.ingest(tables, ctx, ingestOptionsOf(hintsOf(this.metadata))));
      }
      case 'inserts': {
        const tables = tablesOfColumns(req.inserts!.inserts);
        return countedIngest('grpc', database, tables, 0, () => ingest.ingest(tables, ctx, ingestOptionsOf(hintsOf(this.metadata))));
      }
      case 'row_deletes':
        return ingest.deleteRows(decodedTables(req) ?? tablesOfRows(req.row_deletes!.deletes), ctx);
      case 'deletes':
        return ingest.deleteRows(tablesOfColumns(req.deletes!.deletes.map((d) => ({ table_name: d.table_name, row_count: d.row_count, columns: d.key_columns }))), ctx);
      case 'ddl':
        return affectedRows(await sql.executeSql(ddlStatements(req.ddl!, database).join(';\n'), ctx), 'ddl');
      case 'query': {
        if (req.query?.query !== 'sql') throw new TsdbError(StatusCode.Unsupported, 'Unsupported query: tsdb answers query.sql (logical plans, PromQL range queries and insert_into_plan are not served)');
        if (!(await sql.databaseExists(database))) throw new TsdbError(StatusCode.DatabaseNotFound, `Database not found: ${database}`);
        const text = req.query.sql ?? '';
        // A query is refused before it runs rather than after its rows are computed.
        if (beginsWithQuery(text)) throw rowsRefused('query');
        return affectedRows(await sql.executeSql(text, ctx), 'query');
      }
      default:
        throw new TsdbError(StatusCode.InvalidArguments, 'Missing required field in protobuf, field_name: request (GreptimeRequest names no request)');
    }
  }
}

function rowsRefused(what: string): TsdbError {
  return new TsdbError(StatusCode.Unsupported, `GreptimeDatabase answers statements without rows; a ${what} returning rows is read over Arrow Flight DoGet`);
}

/** Whether the first statement of `sql` is one that returns rows (SELECT, WITH, SHOW, DESC, EXPLAIN, TQL, VALUES), after comments. */
export function beginsWithQuery(sql: string): boolean {
  const m = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/|\()*([A-Za-z]+)/.exec(sql);
  return m !== null && /^(select|with|show|desc|describe|explain|tql|values)$/i.test(m[1]!);
}

function affectedRows(outputs: ReadonlyArray<{ kind: string; rows: unknown }>, what: string): number {
  let n = 0;
  for (const o of outputs) {
    if (o.kind !== 'affected') throw rowsRefused(what);
    n += o.rows as number;
  }
  return n;
}

/** The implementation of `greptime.v1.GreptimeDatabase`. */
export function greptimeDatabaseService(handlers: GrpcHandlers, log: Logger): grpc.UntypedServiceImplementation {
  return {
    Handle: (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const { signal, dispose: done } = callSignal(call, 'gRPC');
      new RequestRunner(handlers, call.metadata, signal, call.getPeer())
        .run(call.request)
        .then(
          (rows) => callback(null, response(rows)),
          (err: unknown) => callback(toGrpcError(signal.aborted ? (signal.reason ?? err) : err, log, 'GreptimeDatabase/Handle')),
        )
        .finally(done);
    },
    HandleRequests: (call: grpc.ServerReadableStream<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const { signal, dispose: done } = callSignal(call, 'gRPC');
      const runner = new RequestRunner(handlers, call.metadata, signal, call.getPeer());
      // A cancelled call's stream may never end: stop reading it.
      signal.addEventListener('abort', () => call.destroy(), { once: true });
      (async () => {
        let total = 0;
        for await (const message of call) total += await runner.run(message);
        return total;
      })()
        .then(
          (rows) => callback(null, response(rows)),
          (err: unknown) => callback(toGrpcError(signal.aborted ? (signal.reason ?? err) : err, log, 'GreptimeDatabase/HandleRequests')),
        )
        .finally(done);
    },
  };
}

/** The implementation of `greptime.v1.HealthCheck`: answers while the server runs. */
export function healthCheckService(): grpc.UntypedServiceImplementation {
  return { HealthCheck: (_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => callback(null, {}) };
}
