/**
 * tsdb errors as gRPC statuses: one table from StatusCode to the gRPC status code (GreptimeDB
 * `common/error/src/status_code.rs`, `status_to_tonic_code`), and the trailers that carry the tsdb
 * code and message to clients that read them (`x-greptime-err-code` / `x-greptime-err-msg` for
 * GreptimeDB's SDKs, `x-tsdb-err-code` / `x-tsdb-err-msg` alike).
 */
import * as grpc from '@grpc/grpc-js';
import { StatusCode } from '../../common/error/status-code.js';
import { errorMessage, statusCodeOf } from '../../common/error/tsdb-error.js';

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
  [StatusCode.PlanQuery]: grpc.status.INTERNAL,
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

export const ERR_CODE_TRAILERS = ['x-greptime-err-code', 'x-tsdb-err-code'] as const;
export const ERR_MSG_TRAILERS = ['x-greptime-err-msg', 'x-tsdb-err-msg'] as const;

/** Longest message put in a trailer (the status details carry it whole). */
const MAX_TRAILER_MESSAGE = 4096;

/**
 * A metadata value must be printable ASCII: other characters are percent-encoded (UTF-8), so the
 * message survives and the call never fails on it.
 */
export function asciiMetadataValue(text: string): string {
  const cut = text.length > MAX_TRAILER_MESSAGE ? `${text.slice(0, MAX_TRAILER_MESSAGE)}…` : text;
  return cut.replace(/[^\x20-\x7e]/gu, (c) => encodeURIComponent(c));
}

/** The status a call ends with for `err` (any thrown value): gRPC code, details and the trailers. */
export function grpcErrorOf(err: unknown): grpc.StatusObject {
  const code = statusCodeOf(err);
  const message = errorMessage(err);
  const metadata = new grpc.Metadata();
  for (const k of ERR_CODE_TRAILERS) metadata.set(k, String(code));
  const value = asciiMetadataValue(message);
  for (const k of ERR_MSG_TRAILERS) metadata.set(k, value);
  return { code: GRPC_STATUS[code], details: message, metadata };
}
