/**
 * Errors of the PostgreSQL wire layer, each with the SQLSTATE the server sends in its ErrorResponse
 * (PostgreSQL `src/backend/utils/errcodes.txt`), and the SQLSTATE of every tsdb status code
 * (reference api.md §2).
 */
import { StatusCode } from '../../common/error/status-code.js';

/** SQLSTATEs the wire layer itself raises. */
export const SQLSTATE = {
  PROTOCOL_VIOLATION: '08P01',
  INVALID_AUTHORIZATION: '28000',
  INVALID_PASSWORD: '28P01',
  INVALID_TEXT_REPRESENTATION: '22P02',
  INVALID_BINARY_REPRESENTATION: '22P03',
  NUMERIC_VALUE_OUT_OF_RANGE: '22003',
  FEATURE_NOT_SUPPORTED: '0A000',
  INVALID_CATALOG_NAME: '3D000',
  INVALID_PARAMETER_VALUE: '22023',
  SYNTAX_ERROR: '42601',
  INVALID_SQL_STATEMENT_NAME: '26000',
  INVALID_CURSOR_NAME: '34000',
  INTERNAL_ERROR: 'XX000',
  TOO_MANY_CONNECTIONS: '53300',
} as const;

/**
 * An error with its SQLSTATE. `fatal` marks errors after which the connection must be closed
 * (malformed framing, failed authentication).
 */
export class PgWireError extends Error {
  override readonly name = 'PgWireError';

  constructor(
    readonly sqlstate: string,
    message: string,
    readonly fatal = false,
    opts?: { cause?: unknown },
  ) {
    super(message, opts);
  }
}

/** A framing or message-format violation: the connection cannot go on (SQLSTATE 08P01, FATAL). */
export function protocolError(message: string): PgWireError {
  return new PgWireError(SQLSTATE.PROTOCOL_VIOLATION, message, true);
}

/** The SQLSTATE of each tsdb status code (reference api.md §2). A missing code fails to compile. */
export const PG_SQLSTATE: Record<StatusCode, string> = {
  [StatusCode.Success]: '00000',
  [StatusCode.Unknown]: 'XX000',
  [StatusCode.Unsupported]: '0A000',
  [StatusCode.Unexpected]: 'XX000',
  [StatusCode.Internal]: 'XX000',
  [StatusCode.InvalidArguments]: '22023',
  [StatusCode.Cancelled]: '57014',
  [StatusCode.IllegalState]: 'XX000',
  [StatusCode.External]: 'XX000',
  [StatusCode.DeadlineExceeded]: '57014',
  [StatusCode.Suspended]: 'XX000',
  [StatusCode.InvalidSyntax]: '42601',
  [StatusCode.PlanQuery]: 'P0000',
  [StatusCode.EngineExecuteQuery]: 'P0000',
  [StatusCode.TableAlreadyExists]: '42P07',
  [StatusCode.TableNotFound]: '42P01',
  [StatusCode.TableColumnNotFound]: '42703',
  [StatusCode.TableColumnExists]: 'XX000',
  [StatusCode.DatabaseNotFound]: '42704',
  [StatusCode.RegionNotFound]: 'XX000',
  [StatusCode.RegionAlreadyExists]: 'XX000',
  [StatusCode.RegionReadonly]: 'XX000',
  [StatusCode.RegionNotReady]: 'XX000',
  [StatusCode.RegionBusy]: 'XX000',
  [StatusCode.TableUnavailable]: 'XX000',
  [StatusCode.DatabaseAlreadyExists]: 'XX000',
  [StatusCode.StorageUnavailable]: 'XX000',
  [StatusCode.RequestOutdated]: 'XX000',
  [StatusCode.RuntimeResourcesExhausted]: 'XX000',
  [StatusCode.RateLimited]: 'XX000',
  [StatusCode.UserNotFound]: '28P01',
  [StatusCode.UnsupportedPasswordType]: '28P01',
  [StatusCode.UserPasswordMismatch]: '28P01',
  [StatusCode.AuthHeaderNotFound]: '28000',
  [StatusCode.InvalidAuthHeader]: '28000',
  [StatusCode.AccessDenied]: '42501',
  [StatusCode.PermissionDenied]: '42501',
  [StatusCode.FlowAlreadyExists]: 'XX000',
  [StatusCode.FlowNotFound]: 'XX000',
  [StatusCode.TriggerAlreadyExists]: 'XX000',
  [StatusCode.TriggerNotFound]: 'XX000',
};
