/**
 * Arrow Flight (`arrow.flight.protocol.FlightService`) on @grpc/grpc-js, as GreptimeDB serves it
 * (`servers/src/grpc/flight.rs`, reference api.md §6):
 *
 * - DoGet(Ticket): the ticket is an encoded `greptime.v1.GreptimeRequest`. Other requests than
 *   `query` (row inserts, deletes, DDL) run as GreptimeDatabase runs them (database-service.ts) and
 *   answer their affected rows like a statement without rows. For `query.sql`: a
 *   query answers its schema, then record batches (`output-arrow.ts`); a statement without rows
 *   answers one FlightData whose header is an IPC message of type NONE and whose app_metadata is an
 *   encoded `FlightMetadata{affected_rows{value}}`. One statement per ticket: several are refused
 *   (Unsupported) before any runs. The statement stops when the client cancels or its deadline passes.
 * - DoPut(stream FlightData): bulk insert into an existing table. The first message carries the
 *   descriptor (PATH, `[table]`) and the schema; each next one a record batch with app_metadata JSON
 *   `{"request_id":n}`. The server acknowledges at once with `{"request_id":0,"affected_rows":0,
 *   "elapsed_secs":0.0}`, then once per batch written, as PutResult app_metadata JSON
 *   `{"request_id","affected_rows","elapsed_secs"}`. Each batch is written whole or not at all; the
 *   first failure ends the call with its status.
 *   Batches may be uncompressed or LZ4_FRAME-compressed (GreptimeDB's ingesters' default); ZSTD is
 *   refused (InvalidArguments).
 * - Every other method answers UNIMPLEMENTED.
 *
 * Errors end the call with the gRPC status of their StatusCode and the code and message in the
 * trailers (`grpc-status.ts`).
 *
 * `flightImplementation` makes a FlightService of other handlers (the region service's DoGet of
 * region queries, region-service.ts), with `sendFlightData` for their streams' back-pressure.
 */
import { once } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { CompressionType, MessageHeader, RecordBatchReader, type RecordBatch, type Schema } from 'apache-arrow';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError, errorMessage } from '../../common/error/tsdb-error.js';
import type { UserInfo } from '../../frontend/auth/user-provider.js';
import type { Logger } from '../../common/logging.js';
import type { AuthHandler, IngestHandler, SqlContext, SqlHandler } from '../handlers.js';
import { splitStatements } from '../postgres/intercept.js';
import { IpcMessageEncoder, ipcStreamOf, messageOf, noneMessageHeader, type IpcMessage } from './arrow-ipc.js';
import { ingestTableOf, planIngest, type IngestPlan } from './arrow-ingest.js';
import { MAX_DECODED_BYTES, registerArrowLz4, withDecodeBudget } from './lz4-frame.js';
import { decodeGreptimeRequest, encodeFlightMetadata, type RequestHeaderMessage } from './greptime-messages.js';
import { RequestRunner } from './database-service.js';
import { toGrpcError } from './grpc-error.js';
import { databaseOf, timezoneOf, userOf } from './request-context.js';
import { arrowBatches, arrowSchemaOf, cutBatches } from './output-arrow.js';
import { PROTO_LOADER_OPTIONS } from './protos.js';
import { callSignal } from './call-signal.js';
import { undecodable, withLenientDecoding } from './lenient-decoding.js';
import { countedIngest } from '../ingest-metrics.js';

export const FLIGHT_PROTO_FILE = 'arrow/flight/protocol/Flight.proto';
export const FLIGHT_SERVICE_NAME = 'arrow.flight.protocol.FlightService';

/** FlightDescriptor.DescriptorType.PATH. */
export const DESCRIPTOR_PATH = 1;

/** A FlightData as @grpc/proto-loader gives and takes it (PROTO_LOADER_OPTIONS). */
export interface FlightDataMessage {
  flight_descriptor?: { type: number; cmd: Buffer; path: string[] } | null;
  data_header: Uint8Array;
  app_metadata: Uint8Array;
  data_body: Uint8Array;
}

export interface PutResultMessage {
  app_metadata: Uint8Array;
}

let flightDefinition: protoLoader.PackageDefinition | undefined;

export function flightPackageDefinition(): protoLoader.PackageDefinition {
  flightDefinition ??= protoLoader.loadSync(FLIGHT_PROTO_FILE, PROTO_LOADER_OPTIONS);
  return flightDefinition;
}

/**
 * The service definition of `arrow.flight.protocol.FlightService`, for `server.addService`. Its
 * request decoding never throws (grpc-js would answer INTERNAL for what is the client's mistake): an
 * undecodable Ticket or FlightData reaches the handler as a marker it refuses with INVALID_ARGUMENT.
 */
export function flightServiceDefinition(): grpc.ServiceDefinition {
  return withLenientDecoding(flightPackageDefinition()[FLIGHT_SERVICE_NAME] as grpc.ServiceDefinition);
}

/** Refuses a request message that did not decode. */
function checkDecoded(message: unknown, what: string): void {
  const reason = undecodable(message);
  if (reason !== undefined) {
    throw new TsdbError(StatusCode.InvalidArguments, `Failed to decode ${what}: ${reason}`);
  }
}

export interface FlightServiceOptions {
  readonly sql: SqlHandler;
  /** Absent: DoPut answers UNIMPLEMENTED (a component that stores no rows). */
  readonly ingest?: IngestHandler;
  readonly auth?: AuthHandler;
  readonly logger?: Logger;
  /** Rows per DoGet record batch (default 8192). */
  readonly batchRows?: number;
  /** About the largest DoGet record batch body in bytes (default 2 MiB). */
  readonly batchBytes?: number;
  /** Time zone of a request that names none (`default_timezone`; default UTC). */
  readonly defaultTimezone?: string;
}

/** The PutResult JSON of an acknowledgement, with `elapsed_secs` written as a float like serde's f64. */
export function putAck(requestId: number, affectedRows: number, elapsedSecs: number): Buffer {
  const secs = Number.isInteger(elapsedSecs) ? elapsedSecs.toFixed(1) : String(elapsedSecs);
  return Buffer.from(`{"request_id":${requestId},"affected_rows":${affectedRows},"elapsed_secs":${secs}}`);
}

/** `{"request_id":n}` of a DoPut message; 0 when absent or unreadable (as GreptimeDB reads it). */
export function requestIdOf(appMetadata: Uint8Array): number {
  if (appMetadata.byteLength === 0) return 0;
  try {
    const v = JSON.parse(Buffer.from(appMetadata).toString('utf8')) as { request_id?: unknown };
    return typeof v.request_id === 'number' && Number.isSafeInteger(v.request_id) ? v.request_id : 0;
  } catch {
    return 0;
  }
}

function unimplemented(method: string): grpc.UntypedHandleCall {
  return ((call: { emit?: (e: string, x: unknown) => void }, callback?: grpc.sendUnaryData<unknown>) => {
    const status = { code: grpc.status.UNIMPLEMENTED, details: `Flight ${method} is not implemented by tsdb` };
    if (typeof callback === 'function') callback(status);
    else call.emit?.('error', status);
  }) as grpc.UntypedHandleCall;
}

const FLIGHT_METHODS = ['Handshake', 'ListFlights', 'GetFlightInfo', 'PollFlightInfo', 'GetSchema', 'DoGet', 'DoPut', 'DoExchange', 'DoAction', 'ListActions'] as const;

export type DoGetCall = grpc.ServerWritableStream<{ ticket: Buffer }, FlightDataMessage>;
export type DoPutCall = grpc.ServerDuplexStream<FlightDataMessage, PutResultMessage>;

/**
 * A FlightService implementation of the handlers given; every other method answers UNIMPLEMENTED.
 * The client-facing service (below) and the region service's (region-service.ts) are both made so.
 */
export function flightImplementation(handlers: { readonly DoGet?: (call: DoGetCall) => void; readonly DoPut?: (call: DoPutCall) => void }): grpc.UntypedServiceImplementation {
  const out: grpc.UntypedServiceImplementation = {};
  for (const m of FLIGHT_METHODS) out[m] = (handlers as Record<string, grpc.UntypedHandleCall | undefined>)[m] ?? unimplemented(m);
  return out;
}

/** The implementation of every FlightService method. */
export function flightServiceImplementation(opts: FlightServiceOptions): grpc.UntypedServiceImplementation {
  // GreptimeDB's ingesters compress DoPut batches with LZ4_FRAME by default.
  registerArrowLz4();
  const service = new FlightService(opts);
  return flightImplementation({
    DoGet: (call) => void service.doGet(call),
    ...(opts.ingest !== undefined && { DoPut: (call: DoPutCall) => void service.doPut(call) }),
  });
}

/** Registers the Flight service on a gRPC server. */
export function addFlightService(server: grpc.Server, opts: FlightServiceOptions): void {
  server.addService(flightServiceDefinition(), flightServiceImplementation(opts));
}

/** The FlightData carrying one IPC message. */
export function flightData(m: IpcMessage, appMetadata: Uint8Array = EMPTY): FlightDataMessage {
  return { flight_descriptor: null, data_header: m.header, app_metadata: appMetadata, data_body: m.body };
}

/**
 * Writes one message of a server stream, waiting while the client's window is full (`write`
 * returned false) until the stream drains; rejects with the signal's reason once it aborts.
 */
export async function sendFlightData(call: grpc.ServerWritableStream<unknown, FlightDataMessage>, data: FlightDataMessage, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw signal.reason;
  if (call.write(data)) return;
  await once(call, 'drain', { signal }).catch(() => {
    throw signal.reason ?? new TsdbError(StatusCode.Cancelled, 'the Flight call ended');
  });
}

const EMPTY = Buffer.alloc(0);

/** The one message of a statement without rows: a NONE header and FlightMetadata{affected_rows}. */
function affectedRowsData(rows: number): FlightDataMessage {
  return { flight_descriptor: null, data_header: noneMessageHeader(), app_metadata: encodeFlightMetadata(rows), data_body: EMPTY };
}

interface CallContext {
  readonly database: string;
  readonly timezone: string;
  readonly user: UserInfo;
}

type SurfaceCall = grpc.ServerWritableStream<unknown, unknown> | grpc.ServerDuplexStream<unknown, unknown>;

class FlightService {
  constructor(private readonly opts: FlightServiceOptions) {}

  private fail(call: SurfaceCall & { emit(e: 'error', s: unknown): boolean }, err: unknown, what: string): void {
    const status = toGrpcError(err, this.opts.logger, `Flight ${what}`);
    if (!call.cancelled) call.emit('error', status);
  }

  /**
   * Who asks and where (request-context.ts, as GreptimeDatabase reads them): the ticket's header
   * (DoGet) or the metadata (DoPut, and what the header leaves out); the database must exist.
   */
  private async callContext(header: RequestHeaderMessage | null | undefined, md: grpc.Metadata): Promise<CallContext> {
    const user = await userOf(header, md, this.opts.auth);
    const database = databaseOf(header, md);
    if (!(await this.opts.sql.databaseExists(database))) throw new TsdbError(StatusCode.DatabaseNotFound, `Database not found: ${database}`);
    return { database, timezone: timezoneOf(header, md, this.opts.defaultTimezone), user };
  }

  async doGet(call: grpc.ServerWritableStream<{ ticket: Buffer }, FlightDataMessage>): Promise<void> {
    const { signal, dispose } = callSignal(call, 'Flight');
    try {
      checkDecoded(call.request, 'Flight Ticket');
      const request = decodeGreptimeRequest(call.request.ticket ?? EMPTY);
      if (request.request !== 'query') {
        // Writes and DDL in a ticket run as GreptimeDatabase runs them, answering their affected rows.
        if (this.opts.ingest === undefined) throw new TsdbError(StatusCode.Unsupported, `Flight DoGet of a ${request.request ?? 'empty'} request is not served here`);
        const handlers = { sql: this.opts.sql, ingest: this.opts.ingest, ...(this.opts.auth !== undefined && { auth: this.opts.auth }) };
        const rows = await new RequestRunner(handlers, call.metadata, signal, call.getPeer()).run(request);
        await this.send(call, affectedRowsData(rows), signal);
        call.end();
        return;
      }
      if (request.query?.query !== 'sql') {
        throw new TsdbError(StatusCode.Unsupported, 'Unsupported query: tsdb answers query.sql (logical plans, PromQL range queries and insert_into_plan are not served)');
      }
      const ctx = await this.callContext(request.header, call.metadata);
      const sql = request.query.sql ?? '';
      const statements = splitStatements(sql);
      if (statements.length === 0) throw new TsdbError(StatusCode.InvalidArguments, 'The SQL query in the Flight ticket is empty');
      if (statements.length > 1) {
        throw new TsdbError(StatusCode.Unsupported, 'Not supported: execute multiple statements in SQL query string through GRPC interface');
      }
      const sqlCtx: SqlContext = { ...ctx, protocol: 'grpc', signal, client: call.getPeer(), arrow: true };
      const outputs = await this.opts.sql.executeSql(sql, sqlCtx);
      if (outputs.length !== 1) throw new TsdbError(StatusCode.Unsupported, 'Not supported: execute multiple statements in SQL query string through GRPC interface');
      const output = outputs[0]!;
      if (output.kind === 'affected') {
        await this.send(call, affectedRowsData(output.rows), signal);
        call.end();
        return;
      }
      const schema = output.arrow?.schema ?? arrowSchemaOf(output.columns);
      const encoder = new IpcMessageEncoder();
      for (const m of encoder.start(schema)) await this.send(call, flightData(m), signal);
      const batchOpts = { maxRows: this.opts.batchRows, maxBytes: this.opts.batchBytes };
      // Rows read as Arrow by the query (no JavaScript value per cell) go as they are, cut to the batch limits.
      const batches = output.arrow !== undefined ? cutBatches(output.arrow.batches, batchOpts) : arrowBatches(schema, output.columns, output.rows, batchOpts);
      for (const batch of batches) {
        if (signal.aborted) throw signal.reason;
        for (const m of encoder.write(batch)) await this.send(call, flightData(m), signal);
      }
      call.end();
    } catch (err) {
      this.fail(call, err, 'DoGet');
    } finally {
      dispose();
    }
  }

  private send(call: grpc.ServerWritableStream<unknown, FlightDataMessage>, data: FlightDataMessage, signal: AbortSignal): Promise<void> {
    return sendFlightData(call, data, signal);
  }

  async doPut(call: grpc.ServerDuplexStream<FlightDataMessage, PutResultMessage>): Promise<void> {
    const ingest = this.opts.ingest!;
    const { signal, dispose } = callSignal(call, 'Flight');
    let ctx: CallContext;
    try {
      ctx = await this.callContext(null, call.metadata);
    } catch (err) {
      dispose();
      this.fail(call, err, 'DoPut');
      return;
    }
    // Acknowledged as soon as the call is accepted (GreptimeDB: the stream is set up).
    call.write({ app_metadata: putAck(0, 0, 0) });
    let plan: IngestPlan | undefined;
    let schemaMessage: IpcMessage | undefined;
    const dictionaries: IpcMessage[] = [];
    try {
      // Not destroyed when the loop ends: the call still has to send its status.
      for await (const data of call.iterator({ destroyOnReturn: false }) as AsyncIterable<FlightDataMessage>) {
        if (signal.aborted) throw signal.reason;
        checkDecoded(data, 'FlightData');
        const message: IpcMessage = { header: data.data_header ?? EMPTY, body: data.data_body ?? EMPTY };
        if (plan === undefined) {
          const table = tableOfDescriptor(data.flight_descriptor);
          const header = messageOf(message.header);
          if (header.headerType !== MessageHeader.Schema) {
            throw new TsdbError(StatusCode.InvalidArguments, 'The first Flight DoPut message must be a Schema message');
          }
          const schema = readSchema(message);
          const summary = (await this.opts.sql.tables(ctx, [table], 'write')).find((t) => t.name === table);
          if (summary === undefined) throw new TsdbError(StatusCode.TableNotFound, `Table not found: tsdb.${ctx.database}.${table}`);
          plan = planIngest(schema, summary);
          schemaMessage = message;
          continue;
        }
        const type = messageOf(message.header).headerType;
        if (type === MessageHeader.DictionaryBatch) {
          // A replacement dictionary supersedes the earlier batches of its id; deltas add to them.
          const dict = messageOf(message.header).header() as { id: number; isDelta: boolean } | null;
          if (dict !== null && !dict.isDelta) {
            for (let k = dictionaries.length - 1; k >= 0; k--) {
              if ((messageOf(dictionaries[k]!.header).header() as { id: number } | null)?.id === dict.id) dictionaries.splice(k, 1);
            }
          }
          dictionaries.push(message);
          continue;
        }
        if (type !== MessageHeader.RecordBatch) {
          throw new TsdbError(StatusCode.InvalidArguments, `Expected a RecordBatch message in Flight DoPut, got ${MessageHeader[type] ?? type}`);
        }
        const requestId = requestIdOf(data.app_metadata ?? EMPTY);
        const started = process.hrtime.bigint();
        const batches = readBatches([schemaMessage!, ...dictionaries, message]);
        let rows = 0;
        for (const batch of batches) {
          if (batch.numRows === 0) continue;
          // The table was checked above; one dropped meanwhile is not created again.
          const table = ingestTableOf(plan, batch);
          rows += await countedIngest('grpc', ctx.database, [table], 0, () => ingest.ingest([table], { ...ctx!, signal }, { autoCreateTable: false }));
        }
        const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
        if (call.cancelled) return;
        call.write({ app_metadata: putAck(requestId, rows, elapsed) });
      }
      if (plan === undefined) throw new TsdbError(StatusCode.InvalidArguments, 'Flight DoPut ended before its Schema message: nothing was written');
      call.end();
    } catch (err) {
      this.fail(call, err, 'DoPut');
    } finally {
      dispose();
    }
  }
}

function tableOfDescriptor(d: FlightDataMessage['flight_descriptor']): string {
  if (d === null || d === undefined) throw new TsdbError(StatusCode.InvalidArguments, 'table to put is not found in flight descriptor');
  if (d.type !== DESCRIPTOR_PATH) throw new TsdbError(StatusCode.InvalidArguments, "expect FlightDescriptor::type == 'Path' only");
  if (d.path.length !== 1 || d.path[0] === '') throw new TsdbError(StatusCode.InvalidArguments, 'expect FlightDescriptor::path has only one table name');
  return d.path[0]!;
}

function readSchema(m: IpcMessage): Schema {
  try {
    const reader = RecordBatchReader.from(ipcStreamOf([m]));
    reader.open();
    return reader.schema;
  } catch (err) {
    if (err instanceof TsdbError) throw err;
    throw new TsdbError(StatusCode.InvalidArguments, `Failed to decode schema: ${errorMessage(err)}`);
  }
}

function readBatches(messages: readonly IpcMessage[]): RecordBatch[] {
  const last = messageOf(messages.at(-1)!.header);
  const compression = (last.header() as { compression?: { type: CompressionType } | null } | null)?.compression;
  if (compression != null && compression.type !== CompressionType.LZ4_FRAME) {
    throw new TsdbError(StatusCode.InvalidArguments, `Arrow buffers compressed with ${CompressionType[compression.type] ?? compression.type} are not supported: send them uncompressed or with LZ4_FRAME`);
  }
  try {
    // LZ4-compressed buffers of one batch decode to MAX_DECODED_BYTES at most, all together.
    return withDecodeBudget(MAX_DECODED_BYTES, () => RecordBatchReader.from(ipcStreamOf(messages)).readAll());
  } catch (err) {
    if (err instanceof TsdbError) throw err;
    throw new TsdbError(StatusCode.InvalidArguments, `Failed to decode RecordBatch: ${errorMessage(err)}`);
  }
}
