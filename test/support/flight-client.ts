/**
 * An Arrow Flight client on @grpc/grpc-js and apache-arrow, for tests and benchmarks: DoGet of a
 * ticket (or of SQL, the ticket built as GreptimeDB's clients build it) into an apache-arrow Table
 * and the app_metadata received; DoPut of a Table in batches, collecting the acknowledgements.
 */
import * as grpc from '@grpc/grpc-js';
import { MessageHeader, RecordBatchReader, Table, type CompressionType, type RecordBatch, type Schema } from 'apache-arrow';
import { IpcMessageEncoder, ipcStreamOf, messageOf, type IpcMessage } from '../../src/servers/grpc/arrow-ipc.js';
import { DESCRIPTOR_PATH, flightServiceDefinition, type FlightDataMessage, type PutResultMessage } from '../../src/servers/grpc/flight-service.js';
import { decodeFlightMetadata, encodeGreptimeRequest } from '../../src/servers/grpc/greptime-messages.js';

export interface DoGetResult {
  /** The record batches (undefined when the stream held no schema: a statement without rows). */
  readonly table?: Table;
  readonly schema?: Schema;
  /** Non-empty app_metadata of each message, in order. */
  readonly appMetadata: Buffer[];
  /** FlightMetadata.affected_rows.value when a message carried it. */
  readonly affectedRows?: number;
  /** Every FlightData received. */
  readonly messages: FlightDataMessage[];
}

export interface PutAck {
  readonly request_id: number;
  readonly affected_rows: number;
  readonly elapsed_secs: number;
}

export interface CallOpts {
  /** Metadata sent with the call (e.g. `x-greptime-db-name`, `authorization`). */
  readonly metadata?: Record<string, string>;
  /** Deadline in milliseconds from now. */
  readonly timeoutMs?: number;
}

/** The fields of a GreptimeRequest header (greptime.v1.RequestHeader). */
export interface TicketHeader {
  readonly dbname?: string;
  readonly catalog?: string;
  readonly schema?: string;
  readonly timezone?: string;
  readonly basic?: { readonly username: string; readonly password: string };
  readonly token?: string;
}

/** A Flight ticket holding `GreptimeRequest{header, query{sql}}`. */
export function sqlTicket(sql: string, header: TicketHeader = {}): Uint8Array {
  const authorization = header.basic ? { basic: header.basic } : header.token !== undefined ? { token: { token: header.token } } : undefined;
  return encodeGreptimeRequest({
    header: { dbname: header.dbname ?? '', catalog: header.catalog ?? '', schema: header.schema ?? '', timezone: header.timezone ?? '', ...(authorization ? { authorization } : {}) },
    query: { sql },
  });
}

function metadataOf(m: Record<string, string> | undefined): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(m ?? {})) md.set(k, v);
  return md;
}

function callOptions(o: CallOpts): grpc.CallOptions {
  return o.timeoutMs === undefined ? {} : { deadline: Date.now() + o.timeoutMs };
}

export class FlightClient {
  private readonly client: grpc.Client & Record<string, (...args: unknown[]) => unknown>;

  constructor(address: string) {
    const Ctor = grpc.makeGenericClientConstructor(flightServiceDefinition(), 'FlightService');
    this.client = new Ctor(address, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
    }) as unknown as FlightClient['client'];
  }

  /** The underlying client: any FlightService method by name (e.g. `GetSchema`). */
  get raw(): grpc.Client & Record<string, (...args: unknown[]) => unknown> {
    return this.client;
  }

  /** DoGet of raw ticket bytes, as a stream (for tests that cancel it). */
  doGetStream(ticket: Uint8Array, o: CallOpts = {}): grpc.ClientReadableStream<FlightDataMessage> {
    return this.client['DoGet']!({ ticket: Buffer.from(ticket) }, metadataOf(o.metadata), callOptions(o)) as grpc.ClientReadableStream<FlightDataMessage>;
  }

  async doGet(ticket: Uint8Array, o: CallOpts = {}): Promise<DoGetResult> {
    const messages: FlightDataMessage[] = [];
    const call = this.doGetStream(ticket, o);
    for await (const m of call as AsyncIterable<FlightDataMessage>) messages.push(m);
    return decodeDoGet(messages);
  }

  doGetSql(sql: string, header: TicketHeader = {}, o: CallOpts = {}): Promise<DoGetResult> {
    return this.doGet(sqlTicket(sql, header), o);
  }

  /** DoPut as a raw duplex stream. */
  doPutStream(o: CallOpts = {}): grpc.ClientDuplexStream<FlightDataMessage, PutResultMessage> {
    return this.client['DoPut']!(metadataOf(o.metadata), callOptions(o)) as grpc.ClientDuplexStream<FlightDataMessage, PutResultMessage>;
  }

  /** Sends `messages` and collects the acknowledgements until the server ends the call. */
  async doPutMessages(messages: readonly FlightDataMessage[], o: CallOpts = {}): Promise<PutAck[]> {
    const call = this.doPutStream(o);
    const acks: PutAck[] = [];
    const done = (async () => {
      for await (const r of call as AsyncIterable<PutResultMessage>) acks.push(JSON.parse(Buffer.from(r.app_metadata).toString('utf8')) as PutAck);
    })();
    for (const m of messages) call.write(m);
    call.end();
    try {
      await done;
    } catch (err) {
      (err as { acks?: PutAck[] }).acks = acks;
      throw err;
    }
    return acks;
  }

  /**
   * Uploads `table` into `tableName`: a schema message with the PATH descriptor, then its rows in
   * batches of `batchRows` (default: the table's own batches), request ids 1, 2, …; `compressionType`
   * compresses the buffers (an encoder must be registered: test/support/lz4-encode.ts)
   */
  doPut(tableName: string, table: Table, o: CallOpts & { batchRows?: number; compressionType?: CompressionType } = {}): Promise<PutAck[]> {
    return this.doPutMessages(putMessages(tableName, table, o.batchRows, o.compressionType), o);
  }

  close(): void {
    this.client.close();
  }
}

/** The FlightData of a DoPut of `table` into `tableName`. */
export function putMessages(tableName: string, table: Table, batchRows?: number, compressionType?: CompressionType): FlightDataMessage[] {
  const encoder = new IpcMessageEncoder(compressionType === undefined ? {} : { compressionType });
  const out: FlightDataMessage[] = [];
  const descriptor = { type: DESCRIPTOR_PATH, cmd: Buffer.alloc(0), path: [tableName] };
  for (const m of encoder.start(table.schema)) out.push({ flight_descriptor: descriptor, data_header: m.header, app_metadata: Buffer.alloc(0), data_body: m.body });
  const batches: RecordBatch[] = [];
  if (batchRows === undefined) batches.push(...table.batches);
  else for (let i = 0; i < table.numRows; i += batchRows) batches.push(...table.slice(i, i + batchRows).batches);
  let id = 0;
  for (const b of batches) {
    const ms = encoder.write(b);
    id++;
    ms.forEach((m, k) => out.push({ flight_descriptor: null, data_header: m.header, app_metadata: k === ms.length - 1 ? Buffer.from(JSON.stringify({ request_id: id })) : Buffer.alloc(0), data_body: m.body }));
  }
  return out;
}

/** Reads DoGet's messages: the Arrow stream they hold, and the app_metadata. */
export function decodeDoGet(messages: FlightDataMessage[]): DoGetResult {
  const ipc: IpcMessage[] = [];
  const appMetadata: Buffer[] = [];
  let affectedRows: number | undefined;
  for (const m of messages) {
    if (m.app_metadata.byteLength > 0) appMetadata.push(Buffer.from(m.app_metadata));
    const type = messageOf(m.data_header).headerType;
    if (type === MessageHeader.NONE) {
      const meta = decodeFlightMetadata(m.app_metadata);
      if (meta.affected_rows) affectedRows = meta.affected_rows.value;
      continue;
    }
    ipc.push({ header: m.data_header, body: m.data_body });
  }
  if (ipc.length === 0) return { appMetadata, messages, ...(affectedRows === undefined ? {} : { affectedRows }) };
  const reader = RecordBatchReader.from(ipcStreamOf(ipc));
  reader.open();
  const schema = reader.schema;
  const batches = reader.readAll();
  const table = batches.length > 0 ? new Table(batches) : new Table(schema);
  return { table, schema, appMetadata, messages, ...(affectedRows === undefined ? {} : { affectedRows }) };
}
