/**
 * The region server over gRPC (DESIGN.md D13): what a datanode serves on its `rpc_addr` for the
 * frontends, in GreptimeDB's shape (`servers/src/grpc/region_server.rs`, `flight.rs`):
 *
 * - `tsdb.region.v1.RegionServer/Handle(RegionRequest)`: one region request (create, open, close,
 *   alter, drop, truncate, flush, compact, write, statistics), answering its affected rows or the
 *   region's statistics. The request runs to its end even when the client stops waiting (its
 *   deadline passes): the region server interface takes no signal for requests.
 * - Arrow Flight `DoGet(Ticket)`: a region query, the ticket an encoded RegionQueryRequest; the
 *   answer is the schema, then the record batches, one IPC message per FlightData. Batches are
 *   sent as the client's flow control admits them (a full window waits for `drain`); a call the
 *   client cancels, whose deadline passes or whose client disconnects aborts the signal the query
 *   runs with and stops reading its batches (`return()` on their iterator). Every other Flight
 *   method answers UNIMPLEMENTED.
 *
 * The Flight service takes the name `arrow.flight.protocol.FlightService` on its gRPC server: a
 * server holds either this one or the client-facing one (flight-service.ts), not both.
 *
 * Errors end the call with the gRPC status of their StatusCode and the code and message in the
 * trailers (grpc-error.ts). What the client sent wrong (an undecodable message or ticket, no
 * request kind, metadata that is not RegionMetadata JSON, a malformed write batch) is
 * InvalidArguments.
 */
import type * as grpc from '@grpc/grpc-js';
import type { RecordBatch } from 'apache-arrow';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import { formatRegionId } from '../../types/region-id.js';
import type { RegionServer } from '../../types/region-server.js';
import type { ScanRequest } from '../../types/scan-request.js';
import { IpcMessageEncoder } from './arrow-ipc.js';
import { callSignal } from './call-signal.js';
import { flightData, flightImplementation, flightPackageDefinition, flightServiceDefinition, sendFlightData, type DoGetCall } from './flight-service.js';
import type { GrpcServer } from './grpc-server.js';
import { toGrpcError } from './grpc-error.js';
import { undecodable } from './lenient-decoding.js';
import {
  decodeRegionQuery,
  parseRegionMetadata,
  regionIdOf,
  regionPackageDefinition,
  regionServiceDefinition,
  statisticsMessage,
  writeBatchOf,
  type RegionRequestMessage,
  type RegionResponseMessage,
} from './region-messages.js';

const EMPTY = Buffer.alloc(0);

/** Registers the RegionServer service and the Flight service of region queries on `server` (before it starts). */
export function addRegionService(server: GrpcServer, regions: RegionServer, logger: Logger): void {
  const log = logger.child({ service: 'region' });
  server.addService(regionServiceDefinition(), regionServiceImplementation(regions, log), regionPackageDefinition());
  server.addService(flightServiceDefinition(), flightImplementation({ DoGet: (call) => void doGet(regions, call, log) }), flightPackageDefinition());
}

/** The implementation of `tsdb.region.v1.RegionServer`. */
function regionServiceImplementation(regions: RegionServer, log: Logger): grpc.UntypedServiceImplementation {
  return {
    Handle: (call: grpc.ServerUnaryCall<RegionRequestMessage, RegionResponseMessage>, callback: grpc.sendUnaryData<RegionResponseMessage>) => {
      handle(regions, call.request).then(
        (response) => callback(null, response),
        (err: unknown) => callback(toGrpcError(err, log, `region ${typeof call.request?.body === 'string' ? `${call.request.body} ` : ''}request`)),
      );
    },
  };
}

function invalid(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, message);
}

/** The member of the request named `kind`, which the `body` oneof says is set. */
function member<K extends keyof RegionRequestMessage>(request: RegionRequestMessage, kind: K): NonNullable<RegionRequestMessage[K]> {
  const m = request[kind];
  if (m === undefined || m === null) throw invalid(`The ${kind} request is empty`);
  return m as NonNullable<RegionRequestMessage[K]>;
}

const DONE: RegionResponseMessage = { affected_rows: 0, statistics: null };

async function handle(regions: RegionServer, request: RegionRequestMessage): Promise<RegionResponseMessage> {
  const reason = undecodable(request);
  if (reason !== undefined) throw invalid(`Failed to decode RegionRequest: ${reason}`);
  switch (request.body) {
    case 'create': {
      const m = member(request, 'create');
      await regions.createRegion(parseRegionMetadata(m.metadata ?? ''), m.dir ?? '');
      return DONE;
    }
    case 'open': {
      const m = member(request, 'open');
      // proto3 `optional`: present only when set (an empty name is a name).
      await regions.openRegion(regionIdOf(m.region_id), m.dir ?? '', m.storage);
      return DONE;
    }
    case 'close':
      await regions.closeRegion(regionIdOf(member(request, 'close').region_id));
      return DONE;
    case 'alter': {
      const m = member(request, 'alter');
      await regions.alterRegion(regionIdOf(m.region_id), parseRegionMetadata(m.metadata ?? ''));
      return DONE;
    }
    case 'drop':
      await regions.dropRegion(regionIdOf(member(request, 'drop').region_id));
      return DONE;
    case 'truncate':
      await regions.truncateRegion(regionIdOf(member(request, 'truncate').region_id));
      return DONE;
    case 'flush':
      await regions.flushRegion(regionIdOf(member(request, 'flush').region_id));
      return DONE;
    case 'compact':
      await regions.compactRegion(regionIdOf(member(request, 'compact').region_id));
      return DONE;
    case 'write': {
      const m = member(request, 'write');
      const id = regionIdOf(m.region_id);
      const rows = await regions.write(id, writeBatchOf(m.batch));
      return { affected_rows: rows, statistics: null };
    }
    case 'statistics': {
      const s = await regions.statistics(regionIdOf(member(request, 'statistics').region_id));
      return { affected_rows: 0, statistics: statisticsMessage(s) };
    }
    case 'ssts': {
      const s = await regions.ssts(regionIdOf(member(request, 'ssts').region_id));
      return { affected_rows: 0, statistics: null, ssts: JSON.stringify(s) };
    }
    case 'info': {
      const s = await regions.info(regionIdOf(member(request, 'info').region_id));
      return { affected_rows: 0, statistics: null, info: JSON.stringify(s) };
    }
    default:
      throw invalid('The RegionRequest holds no request this server knows (create, open, close, alter, drop, truncate, flush, compact, write, statistics, ssts, info)');
  }
}

/** `promise`, or the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err as Error);
      },
    );
  });
}

/** A scan request as JSON for a log line (bigints as decimal strings). */
function scanJson(scan: ScanRequest | undefined): Record<string, unknown> | undefined {
  if (scan === undefined) return undefined;
  return {
    ...(scan.start !== undefined && { start: String(scan.start) }),
    ...(scan.end !== undefined && { end: String(scan.end) }),
    ...(scan.keys !== undefined && { keys: Object.fromEntries([...scan.keys].map(([id, values]) => [id, values.map((v) => (typeof v === 'bigint' ? String(v) : v))])) }),
    ...(scan.lastRow === true && { last_row: true }),
    ...(scan.conditions !== undefined && { conditions: Object.fromEntries([...scan.conditions].map(([id, cs]) => [id, cs.map((c) => (c.kind === 'not_in' ? { kind: c.kind, values: c.values.map(String) } : c))])) }),
  };
}

async function doGet(regions: RegionServer, call: DoGetCall, log: Logger): Promise<void> {
  const t0 = performance.now();
  const { signal, dispose } = callSignal(call, 'region query');
  // Set while the batches have not been read to their end: stopped with return() when the call ends early.
  let batches: AsyncIterator<RecordBatch> | undefined;
  try {
    const reason = undecodable(call.request);
    if (reason !== undefined) throw invalid(`Failed to decode Flight Ticket: ${reason}`);
    const { id, query } = decodeRegionQuery(call.request.ticket ?? EMPTY);
    const started = regions.query(id, query, signal);
    const stream = await untilAborted(started, signal).catch((err: unknown) => {
      // Cancelled before the query answered: its batches, should they come, are released unread.
      if (signal.aborted) started.then((s) => s.batches.return?.(), () => {}).catch(() => {});
      throw err;
    });
    const opened = performance.now();
    let firstBatch: number | undefined;
    let rows = 0;
    let bytes = 0;
    batches = stream.batches;
    const encoder = new IpcMessageEncoder();
    for (const m of encoder.start(stream.schema)) {
      bytes += m.header.byteLength + m.body.byteLength;
      await sendFlightData(call, flightData(m), signal);
    }
    for (;;) {
      const next = await untilAborted(batches.next(), signal);
      firstBatch ??= performance.now();
      if (next.done === true) {
        batches = undefined;
        break;
      }
      rows += next.value.numRows;
      for (const m of encoder.write(next.value)) {
        bytes += m.header.byteLength + m.body.byteLength;
        await sendFlightData(call, flightData(m), signal);
      }
    }
    call.end();
    // Where a remote query's time goes on this side (bench/cluster reads these): until the query
    // answered (scan opened, fragment bound, and DuckDB's stream started, which runs a blocking
    // query — an aggregation, a sort — to its first result chunk), until the first Arrow batch, and
    // the whole call, sending included; the fragment and scan say which query it was.
    if (log.isLevelEnabled('debug')) {
      const ms = (t: number): number => Math.round((t - t0) * 1000) / 1000;
      log.debug(
        { region: formatRegionId(id), rows, bytes, open_ms: ms(opened), first_batch_ms: ms(firstBatch), elapsed_ms: ms(performance.now()), scan: scanJson(query.scan), sql: query.sql },
        'region query answered',
      );
    }
  } catch (err) {
    if (!call.cancelled) call.emit('error', toGrpcError(err, log, 'region query'));
  } finally {
    dispose();
    // Not awaited: an iterator still inside next() finishes that first.
    batches?.return?.().catch((err: unknown) => log.debug({ err }, 'a region query stopped early failed to release its batches'));
  }
}
