/**
 * Status codes carried by every tsdb error, with GreptimeDB's numbers and bands
 * (`src/common/error/src/status_code.rs`), so clients of that ecosystem read them alike.
 * Each protocol maps them once: HTTP here, MySQL / PostgreSQL / gRPC beside their servers.
 */
export enum StatusCode {
  Success = 0,

  // Common errors.
  Unknown = 1000,
  Unsupported = 1001,
  Unexpected = 1002,
  Internal = 1003,
  InvalidArguments = 1004,
  Cancelled = 1005,
  IllegalState = 1006,
  External = 1007,
  DeadlineExceeded = 1008,
  Suspended = 1009,

  // SQL parser errors.
  InvalidSyntax = 2000,

  // Query engine errors.
  PlanQuery = 3000,
  EngineExecuteQuery = 3001,

  // Catalog and table errors.
  TableAlreadyExists = 4000,
  TableNotFound = 4001,
  TableColumnNotFound = 4002,
  TableColumnExists = 4003,
  DatabaseNotFound = 4004,
  RegionNotFound = 4005,
  RegionAlreadyExists = 4006,
  RegionReadonly = 4007,
  RegionNotReady = 4008,
  RegionBusy = 4009,
  TableUnavailable = 4010,
  DatabaseAlreadyExists = 4011,

  // Storage errors.
  StorageUnavailable = 5000,
  RequestOutdated = 5001,

  // Server errors.
  RuntimeResourcesExhausted = 6000,
  RateLimited = 6001,

  // Authentication and authorization errors.
  UserNotFound = 7000,
  UnsupportedPasswordType = 7001,
  UserPasswordMismatch = 7002,
  AuthHeaderNotFound = 7003,
  InvalidAuthHeader = 7004,
  AccessDenied = 7005,
  PermissionDenied = 7006,

  // Flow errors.
  FlowAlreadyExists = 8000,
  FlowNotFound = 8001,

  // Trigger errors.
  TriggerAlreadyExists = 9000,
  TriggerNotFound = 9001,
}

/** The name a client sees next to a code, e.g. `Error: 4001(TableNotFound), …`. */
export function statusCodeName(code: StatusCode): string {
  return StatusCode[code] ?? 'Unknown';
}

/**
 * HTTP status for each code (reference api.md §2). A missing code fails to compile. One departure:
 * RuntimeResourcesExhausted (a query past its memory, spill or result limits) is 400, not the
 * reference's 500 — the query must change before it can succeed, so it is the request's matter, and
 * a 5xx would invite clients and proxies to retry it as a server fault. Waiting too long for a query
 * slot is RateLimited, 429, which is worth retrying. Likewise EngineExecuteQuery (3001) is 400: in tsdb
 * it is a query failing on its own input — a value a cast cannot convert, a function's bad argument,
 * sketches of different parameters — answered with GreptimeDB's code and text, but the client's
 * matter, never a server fault (failures of tsdb itself are Internal, 500).
 */
export const HTTP_STATUS: Record<StatusCode, number> = {
  [StatusCode.Success]: 200,
  [StatusCode.Unknown]: 500,
  [StatusCode.Unsupported]: 400,
  [StatusCode.Unexpected]: 500,
  [StatusCode.Internal]: 500,
  [StatusCode.InvalidArguments]: 400,
  [StatusCode.Cancelled]: 504,
  [StatusCode.IllegalState]: 500,
  [StatusCode.External]: 503,
  [StatusCode.DeadlineExceeded]: 504,
  [StatusCode.Suspended]: 503,
  [StatusCode.InvalidSyntax]: 400,
  [StatusCode.PlanQuery]: 400,
  [StatusCode.EngineExecuteQuery]: 400,
  [StatusCode.TableAlreadyExists]: 400,
  [StatusCode.TableNotFound]: 400,
  [StatusCode.TableColumnNotFound]: 400,
  [StatusCode.TableColumnExists]: 400,
  [StatusCode.DatabaseNotFound]: 400,
  [StatusCode.RegionNotFound]: 400,
  [StatusCode.RegionAlreadyExists]: 400,
  [StatusCode.RegionReadonly]: 401,
  [StatusCode.RegionNotReady]: 503,
  [StatusCode.RegionBusy]: 503,
  [StatusCode.TableUnavailable]: 503,
  [StatusCode.DatabaseAlreadyExists]: 400,
  [StatusCode.StorageUnavailable]: 503,
  [StatusCode.RequestOutdated]: 400,
  [StatusCode.RuntimeResourcesExhausted]: 400,
  [StatusCode.RateLimited]: 429,
  [StatusCode.UserNotFound]: 401,
  [StatusCode.UnsupportedPasswordType]: 401,
  [StatusCode.UserPasswordMismatch]: 401,
  [StatusCode.AuthHeaderNotFound]: 401,
  [StatusCode.InvalidAuthHeader]: 401,
  [StatusCode.AccessDenied]: 403,
  [StatusCode.PermissionDenied]: 403,
  [StatusCode.FlowAlreadyExists]: 400,
  [StatusCode.FlowNotFound]: 400,
  [StatusCode.TriggerAlreadyExists]: 400,
  [StatusCode.TriggerNotFound]: 400,
};

/** Codes whose errors are worth an error log line; the rest are the client's mistakes. */
export function shouldLogError(code: StatusCode): boolean {
  switch (code) {
    case StatusCode.Unknown:
    case StatusCode.Unexpected:
    case StatusCode.Internal:
    case StatusCode.IllegalState:
    case StatusCode.External:
    case StatusCode.StorageUnavailable:
    case StatusCode.RuntimeResourcesExhausted:
      return true;
    default:
      return false;
  }
}
