/**
 * A region server on another node, reached over gRPC (DESIGN.md D13; the service is
 * region-service.ts): what a frontend in a cluster holds for each datanode, GreptimeDB's
 * `RegionRequester` (`client/src/region.rs`). Region requests are unary `Handle` calls, each with a
 * deadline (`requestTimeoutMs`, 60 s by default); a region query is a Flight `DoGet` without a
 * deadline of its own, which its signal or an early `return()` on its batches cancels. One channel
 * (one HTTP/2 connection) carries both.
 *
 * Errors are TsdbErrors: with the code and message the server put in its trailers; without them
 * (the call never reached the service) by gRPC status:
 * - UNAVAILABLE (no connection, connection lost): StorageUnavailable, naming the address. GreptimeDB's
 *   client gives such errors Internal and retries them by their transport code; tsdb keeps one
 *   code for "the tier holding the data is unreachable, try again" (object stores answer
 *   StorageUnavailable too), which clients see as retryable (gRPC UNAVAILABLE, HTTP 503) and which
 *   keeps its message, where Internal's is masked;
 * - DEADLINE_EXCEEDED: DeadlineExceeded; CANCELLED: Cancelled; anything else: Internal.
 * A channel whose region server went away tries to connect again at most a second apart, so a
 * restarted datanode is served again at once (grpc-js's own backoff reaches 2 minutes); one that
 * stops answering with calls open is found out by pings (`DEFAULT_KEEPALIVE_MS`).
 * Not served here: the in-process `scanRelation`.
 */
import * as grpc from '@grpc/grpc-js';
import type { RecordBatch, Schema } from 'apache-arrow';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError, errorMessage } from '../../common/error/tsdb-error.js';
import type { RegionId } from '../../types/region-id.js';
import type { RegionMetadata } from '../../types/region-metadata.js';
import type { RegionQuery, RegionQueryStream, RegionInfo, RegionServer, RegionSsts, RegionStatistics } from '../../types/region-server.js';
import type { WriteBatch } from '../../types/write-batch.js';
import { IpcMessageDecoder } from './arrow-ipc.js';
import { FLIGHT_SERVICE_NAME, flightPackageDefinition, type FlightDataMessage } from './flight-service.js';
import { DEFAULT_MAX_MESSAGE_SIZE } from './grpc-server.js';
import { errorOfTrailers } from './grpc-error.js';
import { tracedMetadata } from './grpc-tracing.js';
import {
  countOf,
  encodeRegionQuery,
  metadataJson,
  REGION_SERVICE_NAME,
  regionPackageDefinition,
  statisticsOf,
  writeBatchMessage,
  type RegionRequestMessage,
  type RegionResponseMessage,
} from './region-messages.js';

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** How soon a channel to an unreachable region server tries to connect again. */
const RECONNECT_BACKOFF_MS = { initial: 100, max: 1000 } as const;

/**
 * A region server that stops answering with calls open (a hung or paused process, packets
 * dropped) is noticed by pings: one every `time` while calls are open, the connection dropped and
 * its calls failed (StorageUnavailable) when one is not answered within `timeout` — at most 15 s
 * for a query, which has no deadline of its own, where it would wait for its statement's.
 */
export const DEFAULT_KEEPALIVE_MS = { time: 5000, timeout: 10_000 } as const;

export interface RemoteRegionServerOptions {
  /** Deadline of each region request (not of queries), in milliseconds; default 60 s. */
  readonly requestTimeoutMs?: number;
  /** Pings while calls are open (`DEFAULT_KEEPALIVE_MS`). */
  readonly keepalive?: { readonly timeMs: number; readonly timeoutMs: number };
}

/** The TsdbError of a failed call to the region server at `addr`. */
export function regionCallError(err: unknown, addr: string, what: string): TsdbError {
  if (err instanceof TsdbError) return err;
  const e = err as Partial<grpc.ServiceError>;
  if (typeof e.code !== 'number') return new TsdbError(StatusCode.Internal, `${what} on region server ${addr} failed: ${errorMessage(err)}`, { cause: err });
  const sent = errorOfTrailers(e);
  if (sent !== undefined) return sent;
  const details = e.details ?? '';
  switch (e.code) {
    case grpc.status.UNAVAILABLE:
      return new TsdbError(StatusCode.StorageUnavailable, `Region server ${addr} is unavailable (${what}): ${details}`, { cause: err });
    case grpc.status.DEADLINE_EXCEEDED:
      return new TsdbError(StatusCode.DeadlineExceeded, `${what} on region server ${addr} timed out: ${details}`, { cause: err });
    case grpc.status.CANCELLED:
      return new TsdbError(StatusCode.Cancelled, `${what} on region server ${addr} was cancelled: ${details}`, { cause: err });
    default:
      return new TsdbError(StatusCode.Internal, `${what} on region server ${addr} failed with gRPC status ${grpc.status[e.code] ?? e.code}: ${details}`, { cause: err });
  }
}

export class RemoteRegionServer implements RegionServer {
  private readonly client: grpc.Client;
  private readonly timeoutMs: number;
  private readonly handleMethod: grpc.MethodDefinition<RegionRequestMessage, RegionResponseMessage>;
  private readonly doGetMethod: grpc.MethodDefinition<{ ticket: Buffer }, FlightDataMessage>;

  constructor(
    readonly addr: string,
    opts: RemoteRegionServerOptions = {},
  ) {
    this.timeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.client = new grpc.Client(addr, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': DEFAULT_MAX_MESSAGE_SIZE,
      'grpc.max_send_message_length': DEFAULT_MAX_MESSAGE_SIZE,
      // A datanode back from a restart is reached within a second: grpc-js's default backoff
      // grows to 2 min, and until it ends every call fails at once without trying to connect.
      'grpc.initial_reconnect_backoff_ms': RECONNECT_BACKOFF_MS.initial,
      'grpc.max_reconnect_backoff_ms': RECONNECT_BACKOFF_MS.max,
      'grpc.keepalive_time_ms': opts.keepalive?.timeMs ?? DEFAULT_KEEPALIVE_MS.time,
      'grpc.keepalive_timeout_ms': opts.keepalive?.timeoutMs ?? DEFAULT_KEEPALIVE_MS.timeout,
    });
    this.handleMethod = (regionPackageDefinition()[REGION_SERVICE_NAME] as grpc.ServiceDefinition)['Handle'] as grpc.MethodDefinition<RegionRequestMessage, RegionResponseMessage>;
    this.doGetMethod = (flightPackageDefinition()[FLIGHT_SERVICE_NAME] as grpc.ServiceDefinition)['DoGet'] as grpc.MethodDefinition<{ ticket: Buffer }, FlightDataMessage>;
  }

  toString(): string {
    return `RemoteRegionServer(${this.addr})`;
  }

  /** Closes the channel; calls made afterwards fail. */
  close(): void {
    this.client.close();
  }

  private handle(request: RegionRequestMessage, what: string): Promise<RegionResponseMessage> {
    const m = this.handleMethod;
    return new Promise((resolve, reject) => {
      try {
        this.client.makeUnaryRequest(m.path, m.requestSerialize, m.responseDeserialize, request, tracedMetadata(new grpc.Metadata()), { deadline: Date.now() + this.timeoutMs }, (err, response) => {
          if (err !== null && err !== undefined) reject(regionCallError(err, this.addr, what));
          else if (response === undefined) reject(new TsdbError(StatusCode.Internal, `${what} on region server ${this.addr} answered nothing`));
          else resolve(response);
        });
      } catch (err) {
        reject(regionCallError(err, this.addr, what));
      }
    });
  }

  async createRegion(metadata: RegionMetadata, dir: string): Promise<void> {
    await this.handle({ body: 'create', create: { metadata: metadataJson(metadata), dir } }, `create region ${metadata.region_id}`);
  }

  async openRegion(id: RegionId, dir: string, storage?: string): Promise<void> {
    await this.handle({ body: 'open', open: { region_id: id.toString(), dir, ...(storage !== undefined && { storage }) } }, `open region ${id}`);
  }

  async closeRegion(id: RegionId): Promise<void> {
    await this.handle({ body: 'close', close: { region_id: id.toString() } }, `close region ${id}`);
  }

  async alterRegion(id: RegionId, metadata: RegionMetadata): Promise<void> {
    await this.handle({ body: 'alter', alter: { region_id: id.toString(), metadata: metadataJson(metadata) } }, `alter region ${id}`);
  }

  async dropRegion(id: RegionId): Promise<void> {
    await this.handle({ body: 'drop', drop: { region_id: id.toString() } }, `drop region ${id}`);
  }

  async truncateRegion(id: RegionId): Promise<void> {
    await this.handle({ body: 'truncate', truncate: { region_id: id.toString() } }, `truncate region ${id}`);
  }

  async flushRegion(id: RegionId): Promise<void> {
    await this.handle({ body: 'flush', flush: { region_id: id.toString() } }, `flush region ${id}`);
  }

  async compactRegion(id: RegionId): Promise<void> {
    await this.handle({ body: 'compact', compact: { region_id: id.toString() } }, `compact region ${id}`);
  }

  async write(id: RegionId, batch: WriteBatch): Promise<number> {
    const response = await this.handle({ body: 'write', write: { region_id: id.toString(), batch: writeBatchMessage(batch) } }, `write to region ${id}`);
    return countOf(response.affected_rows);
  }

  async statistics(id: RegionId): Promise<RegionStatistics> {
    const response = await this.handle({ body: 'statistics', statistics: { region_id: id.toString() } }, `statistics of region ${id}`);
    if (response.statistics === null || response.statistics === undefined) {
      throw new TsdbError(StatusCode.Internal, `statistics of region ${id} on region server ${this.addr}: the answer holds no statistics`);
    }
    return statisticsOf(response.statistics);
  }

  async info(id: RegionId): Promise<RegionInfo> {
    const response = await this.handle({ body: 'info', info: { region_id: id.toString() } }, `information of region ${id}`);
    if (typeof response.info !== 'string' || response.info === '') {
      throw new TsdbError(StatusCode.Internal, `information of region ${id} on region server ${this.addr}: the answer holds none`);
    }
    return JSON.parse(response.info) as RegionInfo;
  }

  async ssts(id: RegionId): Promise<RegionSsts> {
    const response = await this.handle({ body: 'ssts', ssts: { region_id: id.toString() } }, `SST files of region ${id}`);
    if (typeof response.ssts !== 'string' || response.ssts === '') {
      throw new TsdbError(StatusCode.Internal, `SST files of region ${id} on region server ${this.addr}: the answer holds no SST files`);
    }
    return JSON.parse(response.ssts) as RegionSsts;
  }

  async query(id: RegionId, query: RegionQuery, signal?: AbortSignal): Promise<RegionQueryStream> {
    if (signal?.aborted === true) throw signal.reason;
    const m = this.doGetMethod;
    const what = `query of region ${id}`;
    const ticket = encodeRegionQuery(id, query);
    let call: grpc.ClientReadableStream<FlightDataMessage>;
    try {
      call = this.client.makeServerStreamRequest(m.path, m.requestSerialize, m.responseDeserialize, { ticket: Buffer.from(ticket) }, tracedMetadata(new grpc.Metadata()), {});
    } catch (err) {
      throw regionCallError(err, this.addr, what);
    }
    const batches = new RegionQueryBatches(call, this.addr, what, signal);
    const schema = await batches.open();
    return { schema, batches };
  }
}

/**
 * The record batches of one DoGet, read as the consumer asks for them (the call's stream buffers a
 * few messages; past that the server waits, by HTTP/2 flow control).
 */
class RegionQueryBatches implements AsyncIterableIterator<RecordBatch> {
  private readonly messages: AsyncIterator<FlightDataMessage>;
  private readonly decoder = new IpcMessageDecoder();
  private readonly ready: RecordBatch[] = [];
  private finished = false;
  /** Set when the reader stopped the call (`return()`): the cancellation that follows is no error. */
  private stopped = false;
  /** Set when the server ended the stream: every batch arrived. */
  private completed = false;
  private readonly onAbort = () => this.cancel();

  constructor(
    private readonly call: grpc.ClientReadableStream<FlightDataMessage>,
    private readonly addr: string,
    private readonly what: string,
    private readonly signal: AbortSignal | undefined,
  ) {
    // grpc-js emits 'error' when the call fails: with no listener left, that would be thrown.
    call.on('error', () => {});
    this.messages = (call as AsyncIterable<FlightDataMessage>)[Symbol.asyncIterator]();
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Waits for the first message, which must hold the schema. */
  async open(): Promise<Schema> {
    try {
      while (this.decoder.schema === undefined) {
        const message = await this.read();
        if (message === undefined) throw new TsdbError(StatusCode.Internal, `${this.what} on region server ${this.addr}: the answer ended before its schema`);
        this.decode(message);
      }
      return this.decoder.schema;
    } catch (err) {
      this.cancel();
      throw err;
    }
  }

  async next(): Promise<IteratorResult<RecordBatch>> {
    for (;;) {
      if (this.signal?.aborted === true && !this.stopped && !this.completed) {
        this.cancel();
        throw this.signal.reason;
      }
      const batch = this.ready.shift();
      if (batch !== undefined) return { done: false, value: batch };
      if (this.finished) return { done: true, value: undefined };
      const message = await this.read();
      if (message === undefined) return { done: true, value: undefined };
      this.decode(message);
    }
  }

  /** Stops reading: the call is cancelled, the server stops the query. */
  async return(): Promise<IteratorResult<RecordBatch>> {
    this.stopped = true;
    this.ready.length = 0;
    this.cancel();
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<RecordBatch> {
    return this;
  }

  /** The next message; undefined at the end of the stream (or once stopped). */
  private async read(): Promise<FlightDataMessage | undefined> {
    let r: IteratorResult<FlightDataMessage>;
    try {
      r = await this.messages.next();
    } catch (err) {
      this.release();
      if (this.signal?.aborted === true) throw this.signal.reason;
      if (this.stopped) return undefined;
      throw regionCallError(err, this.addr, this.what);
    }
    if (r.done === true) {
      this.release();
      if (this.signal?.aborted === true) throw this.signal.reason;
      this.completed = true;
      return undefined;
    }
    return r.value;
  }

  private decode(message: FlightDataMessage): void {
    try {
      this.ready.push(...this.decoder.push({ header: message.data_header, body: message.data_body }));
    } catch (err) {
      this.cancel();
      throw new TsdbError(StatusCode.Internal, `${this.what} on region server ${this.addr}: the answer is not an Arrow stream: ${errorMessage(err)}`, { cause: err });
    }
  }

  private cancel(): void {
    if (!this.finished) this.call.cancel();
    this.release();
  }

  private release(): void {
    this.finished = true;
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}
