/**
 * PromQL errors carry the Prometheus API's error type, which decides the HTTP status
 * (`bad_data` 400, `execution` 422, `timeout` 503, `canceled` 499→422, `internal` 500).
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';

export type PromErrorType = 'bad_data' | 'execution' | 'timeout' | 'canceled' | 'internal' | 'not_found' | 'unavailable';

export class PromqlError extends TsdbError {
  constructor(
    readonly errorType: PromErrorType,
    message: string,
    opts?: { cause?: unknown },
  ) {
    super(statusOfType(errorType), message, opts);
  }
}

function statusOfType(t: PromErrorType): StatusCode {
  switch (t) {
    case 'bad_data':
      return StatusCode.InvalidArguments;
    case 'execution':
      return StatusCode.EngineExecuteQuery;
    case 'timeout':
      return StatusCode.DeadlineExceeded;
    case 'canceled':
      return StatusCode.Cancelled;
    case 'not_found':
      return StatusCode.TableNotFound;
    case 'unavailable':
      return StatusCode.StorageUnavailable;
    case 'internal':
      return StatusCode.Internal;
  }
}

/** Prometheus's error for a query past `query.max-samples`. */
export const TOO_MANY_SAMPLES = 'query processing would load too many samples into memory in query execution';

/** Prometheus's default `query.max-samples`. */
export const DEFAULT_MAX_SAMPLES = 50_000_000;
/** Prometheus's limit of points per series in a range query's answer. */
export const MAX_POINTS_PER_SERIES = 11_000;
/** The default lookback delta (`query.lookback-delta`). */
export const DEFAULT_LOOKBACK_MS = 5 * 60 * 1000;
