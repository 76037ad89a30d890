/**
 * The metasrv's service over gRPC: `tsdb.meta.v1.Meta` (proto/tsdb/meta/v1/meta.proto), what the
 * datanodes and frontends of a cluster reach through their meta client (meta-client.ts). Each
 * method decodes its request, calls the MetaService (meta/meta-service.ts) and encodes the answer;
 * no metadata logic lives here.
 *
 * - Unary calls run to their end even when the client stops waiting (the interface takes no
 *   signal). A DDL task is given what is left of the call's deadline as its timeout, so the
 *   metasrv stops waiting for it about when the client does (the procedure still ends on its own).
 * - `Subscribe` registers a listener with `meta.subscribe`, then sends the response headers: a
 *   client that has seen them misses no event committed after. Events are forwarded in order until
 *   the client cancels or goes (the listener is removed), or the server shuts down (the stream
 *   ends at once, so shutdown does not wait for it). A subscriber that stops reading is cut off
 *   once `MAX_PENDING_EVENTS` wait to be sent; it reconnects, and its reset covers what it lost.
 *
 * Errors end the call with the gRPC status of their StatusCode and the code and message in the
 * trailers (grpc-error.ts), so a TableAlreadyExists of the metasrv is a TableAlreadyExists at the
 * caller. What the client sent wrong (an undecodable message, a role a heartbeat cannot have, a
 * DDL task that is not JSON of its shape) is InvalidArguments.
 */
import * as grpc from '@grpc/grpc-js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError, errorMessage } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import type { MetaEvent, MetaService } from '../../meta/meta-service.js';
import type { GrpcServer } from './grpc-server.js';
import { grpcError, toGrpcError } from './grpc-error.js';
import { undecodable } from './lenient-decoding.js';
import {
  clusterInfoMessage,
  ddlResponseMessage,
  ddlTaskOf,
  getResponseMessage,
  heartbeatRequestOf,
  heartbeatResponseMessage,
  metaEventMessage,
  metaPackageDefinition,
  metaServiceDefinition,
  rangeResponseMessage,
  tableIdMessage,
  type DdlRequestMessage,
  type GetRequestMessage,
  type HeartbeatRequestMessage,
  type MetaEventMessage,
  type RangeRequestMessage,
} from './meta-messages.js';

/** Events a subscriber may leave unread before its stream is cut (it then reconnects and resets). */
export const MAX_PENDING_EVENTS = 4096;

/** Registers `tsdb.meta.v1.Meta` on `server` (before it starts), answering from `meta`. */
export function addMetaService(server: GrpcServer, meta: MetaService, logger: Logger): void {
  const log = logger.child({ service: 'meta' });
  const subscriptions = new Set<() => void>();
  server.addService(metaServiceDefinition(), metaServiceImplementation(meta, log, subscriptions), metaPackageDefinition());
  server.onShutdown(() => {
    for (const end of [...subscriptions]) end();
  });
}

function invalid(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, message);
}

/** The request, or InvalidArguments when it did not decode. */
function decoded<T>(request: T, type: string): T {
  const reason = undecodable(request);
  if (reason !== undefined) throw invalid(`Failed to decode ${type}: ${reason}`);
  return request;
}

/**
 * A unary method: `run` decodes the request and calls the metasrv (what it throws goes to the
 * client as is: a request that does not fit is InvalidArguments); `encode` builds the answer, and
 * an answer that does not fit the wire (a table id past u32) is the metasrv's fault, Internal.
 */
function unary<Req, Value, Res>(what: string, type: string, log: Logger, run: (request: Req, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Value>, encode: (value: Value) => Res) {
  return (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => {
    Promise.resolve()
      .then(() => run(decoded(call.request, type), call))
      .then((value) => {
        try {
          return encode(value);
        } catch (err) {
          throw new TsdbError(StatusCode.Internal, `the metasrv's answer to ${what} cannot be sent: ${errorMessage(err)}`, { cause: err });
        }
      })
      .then(
        (response) => callback(null, response),
        (err: unknown) => callback(toGrpcError(err, log, what)),
      );
  };
}

/** What is left of a call's deadline, in ms; undefined when it has none. */
function remainingMs(call: grpc.ServerUnaryCall<unknown, unknown>): number | undefined {
  const deadline = call.getDeadline();
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

function metaServiceImplementation(meta: MetaService, log: Logger, subscriptions: Set<() => void>): grpc.UntypedServiceImplementation {
  return {
    Heartbeat: unary('heartbeat', 'HeartbeatRequest', log, (m: HeartbeatRequestMessage) => meta.heartbeat(heartbeatRequestOf(m)), heartbeatResponseMessage),
    Get: unary('metadata get', 'GetRequest', log, (m: GetRequestMessage) => meta.get(m.key ?? ''), getResponseMessage),
    Range: unary('metadata range', 'RangeRequest', log, (m: RangeRequestMessage) => meta.range(m.prefix ?? ''), rangeResponseMessage),
    AllocateTableId: unary('table id allocation', 'AllocateTableIdRequest', log, () => meta.allocateTableId(), tableIdMessage),
    Ddl: unary('DDL task', 'DdlRequest', log, (m: DdlRequestMessage, call) => meta.ddl(ddlTaskOf(m), remainingMs(call)), ddlResponseMessage),
    ClusterInfo: unary('cluster info', 'ClusterInfoRequest', log, () => meta.clusterInfo(), clusterInfoMessage),
    Subscribe: (call: grpc.ServerWritableStream<unknown, MetaEventMessage>) => subscribe(meta, call, log, subscriptions),
  };
}

function subscribe(meta: MetaService, call: grpc.ServerWritableStream<unknown, MetaEventMessage>, log: Logger, subscriptions: Set<() => void>): void {
  const reason = undecodable(call.request);
  if (reason !== undefined) {
    call.emit('error', grpcError(StatusCode.InvalidArguments, `Failed to decode SubscribeRequest: ${reason}`));
    return;
  }
  let unsubscribe: (() => void) | undefined;
  let done = false;
  /** Stops forwarding; `status` ends the call (absent: it ended already, or ends cleanly). */
  const finish = (how: 'cancelled' | 'end' | grpc.StatusObject) => {
    if (done) return;
    done = true;
    subscriptions.delete(shutdown);
    call.off('cancelled', onCancelled);
    try {
      unsubscribe?.();
    } catch (err) {
      log.warn({ err }, 'removing a metadata subscription failed');
    }
    if (how === 'end') call.end();
    else if (how !== 'cancelled') call.emit('error', how);
  };
  const shutdown = () => finish('end');
  const onCancelled = () => finish('cancelled');
  const forward = (event: MetaEvent) => {
    if (done) return;
    let message: MetaEventMessage;
    try {
      message = metaEventMessage(event);
    } catch (err) {
      // A metasrv bug: the subscriber must reload everything rather than miss the change.
      log.error({ err, event }, 'a metadata event cannot be encoded; its subscriber is cut off');
      finish(grpcError(StatusCode.Internal, 'Internal error: a metadata event could not be sent'));
      return;
    }
    if (!call.write(message) && call.writableLength > MAX_PENDING_EVENTS) {
      log.warn({ pending: call.writableLength }, 'a metadata subscriber stopped reading; its stream is cut');
      finish(grpcError(StatusCode.RuntimeResourcesExhausted, `The subscriber left more than ${MAX_PENDING_EVENTS} metadata events unread; subscribe again`));
    }
  };
  call.on('cancelled', onCancelled);
  subscriptions.add(shutdown);
  try {
    unsubscribe = meta.subscribe(forward);
  } catch (err) {
    finish(toGrpcError(err, log, 'metadata subscription'));
    return;
  }
  // After the listener is in place: the client counts itself subscribed from these headers on.
  if (!done) call.sendMetadata(new grpc.Metadata());
}
