/**
 * Errors of the gRPC services (reference api.md §2, GreptimeDB `servers/src/error.rs`
 * `status_to_tonic_code` and `define_into_tonic_status`): each StatusCode has one gRPC status, and
 * the failed call carries the code and message in trailing metadata, under GreptimeDB's names
 * (`x-greptime-err-code`, `x-greptime-err-msg`) so its SDKs classify errors precisely, and tsdb's
 * (`x-tsdb-err-code`, `x-tsdb-err-msg`).
 */
import * as grpc from '@grpc/grpc-js';
import { shouldLogError, StatusCode } from '../../common/error/status-code.js';
import { errorMessage, statusCodeOf, TsdbError } from '../../common/error/tsdb-error.js';

/**
 * gRPC status of each code: GreptimeDB's mapping, with one departure: PlanQuery (3000), which
 * GreptimeDB answers INTERNAL, is INVALID_ARGUMENT here — in tsdb it is the user's query that
 * cannot be planned (`No field named x`), never a server fault. The trailer keeps 3000.
 */
export const GRPC_STATUS: Record<StatusCode, grpc.status> = {
  [StatusCode.Success]: grpc.status.OK,
  [StatusCode.Unknown]: grpc.status.UNKNOWN,
  [StatusCode.Unsupported]: grpc.status.UNIMPLEMENTED,
  [StatusCode.Unexpected]: grpc.status.INTERNAL,
  [StatusCode.Internal]: grpc.status.INTERNAL,
  [StatusCode.InvalidArguments]: grpc.status.INVALID_ARGUMENT,
  [StatusCode.Cancelled]: grpc.status.CANCELLED,
  [StatusCode.IllegalState]: grpc.status.INTERNAL,
  [StatusCode.External]: grpc.status.UNKNOWN,
  [StatusCode.DeadlineExceeded]: grpc.status.DEADLINE_EXCEEDED,
  [StatusCode.Suspended]: grpc.status.RESOURCE_EXHAUSTED,
  [StatusCode.InvalidSyntax]: grpc.status.INVALID_ARGUMENT,
  [StatusCode.PlanQuery]: grpc.status.INVALID_ARGUMENT,
  [StatusCode.EngineExecuteQuery]: grpc.status.INTERNAL,
  [StatusCode.TableAlreadyExists]: grpc.status.ALREADY_EXISTS,
  [StatusCode.TableNotFound]: grpc.status.NOT_FOUND,
  [StatusCode.TableColumnNotFound]: grpc.status.NOT_FOUND,
  [StatusCode.TableColumnExists]: grpc.status.ALREADY_EXISTS,
  [StatusCode.DatabaseNotFound]: grpc.status.NOT_FOUND,
  [StatusCode.RegionNotFound]: grpc.status.NOT_FOUND,
  [StatusCode.RegionAlreadyExists]: grpc.status.ALREADY_EXISTS,
  [StatusCode.RegionReadonly]: grpc.status.PERMISSION_DENIED,
  [StatusCode.RegionNotReady]: grpc.status.UNAVAILABLE,
  [StatusCode.RegionBusy]: grpc.status.RESOURCE_EXHAUSTED,
  [StatusCode.TableUnavailable]: grpc.status.UNAVAILABLE,
  [StatusCode.DatabaseAlreadyExists]: grpc.status.ALREADY_EXISTS,
  [StatusCode.StorageUnavailable]: grpc.status.UNAVAILABLE,
  [StatusCode.RequestOutdated]: grpc.status.INVALID_ARGUMENT,
  [StatusCode.RuntimeResourcesExhausted]: grpc.status.RESOURCE_EXHAUSTED,
  [StatusCode.RateLimited]: grpc.status.RESOURCE_EXHAUSTED,
  [StatusCode.UserNotFound]: grpc.status.NOT_FOUND,
  [StatusCode.UnsupportedPasswordType]: grpc.status.UNAUTHENTICATED,
  [StatusCode.UserPasswordMismatch]: grpc.status.UNAUTHENTICATED,
  [StatusCode.AuthHeaderNotFound]: grpc.status.UNAUTHENTICATED,
  [StatusCode.InvalidAuthHeader]: grpc.status.UNAUTHENTICATED,
  [StatusCode.AccessDenied]: grpc.status.PERMISSION_DENIED,
  [StatusCode.PermissionDenied]: grpc.status.PERMISSION_DENIED,
  [StatusCode.FlowAlreadyExists]: grpc.status.ALREADY_EXISTS,
  [StatusCode.FlowNotFound]: grpc.status.NOT_FOUND,
  [StatusCode.TriggerAlreadyExists]: grpc.status.ALREADY_EXISTS,
  [StatusCode.TriggerNotFound]: grpc.status.NOT_FOUND,
};

/** Trailer names: GreptimeDB's, then tsdb's own. */
export const ERR_CODE_KEYS = ['x-greptime-err-code', 'x-tsdb-err-code'] as const;
export const ERR_MSG_KEYS = ['x-greptime-err-msg', 'x-tsdb-err-msg'] as const;

/** Longest message copied into the trailers (the status details keep all of it). */
const MAX_TRAILER_MESSAGE = 1024;

/** Codes whose messages are not shown to clients (reference api.md §2). */
const MASKED = new Set<StatusCode>([StatusCode.Unknown, StatusCode.Internal]);

/** Metadata values must be printable ASCII; anything else is escaped, long text cut. */
function trailerSafe(text: string): string {
  const escaped = text.replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length <= MAX_TRAILER_MESSAGE ? escaped : `${escaped.slice(0, MAX_TRAILER_MESSAGE - 3)}...`;
}

/** A failed call's status for a code and message, with the error trailers. */
export function grpcError(code: StatusCode, message: string): grpc.StatusObject {
  const metadata = new grpc.Metadata();
  for (const k of ERR_CODE_KEYS) metadata.set(k, String(code));
  for (const k of ERR_MSG_KEYS) metadata.set(k, trailerSafe(message));
  return { code: GRPC_STATUS[code], details: message, metadata };
}

/** The status of any thrown value (non-TsdbErrors are Internal, their text masked); logs server faults. */
export function toGrpcError(err: unknown, log?: { error(obj: object, msg: string): void }, what = 'gRPC request'): grpc.StatusObject {
  const code = statusCodeOf(err);
  let message = errorMessage(err);
  if (shouldLogError(code)) log?.error({ err }, `${what} failed: ${message}`);
  if (MASKED.has(code)) message = `Internal error: ${code}`;
  return grpcError(code, message);
}

const KNOWN_CODES = new Set<number>(Object.values(StatusCode).filter((v): v is number => typeof v === 'number'));

/**
 * The TsdbError a tsdb server put in the trailers of a failed call (its code, its message), for
 * clients of tsdb's own services; undefined when the call failed before reaching one (no trailers).
 */
export function errorOfTrailers(err: Partial<grpc.ServiceError>): TsdbError | undefined {
  for (const key of ERR_CODE_KEYS) {
    const value = err.metadata?.get(key)[0];
    const code = typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : undefined;
    if (code !== undefined && KNOWN_CODES.has(code) && code !== StatusCode.Success) return new TsdbError(code as StatusCode, err.details ?? '', { cause: err });
  }
  return undefined;
}
