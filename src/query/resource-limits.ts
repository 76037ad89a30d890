/**
 * Limits on what one query may produce (`[query] max_result_rows`, `max_result_bytes`) and the
 * errors past them: RuntimeResourcesExhausted (6000) with a message naming the option. A limit
 * that only DuckDB can check while the query runs (the slots of a RANGE query's FILL) raises a
 * DuckDB `error()` whose message carries a per-process marker, turned back into that error by
 * `limitErrorOf`.
 */
import { randomBytes } from 'node:crypto';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { formatSize } from '../common/size/size.js';
import { quoteLiteral } from '../common/sql-quote.js';

export interface ResultLimits {
  /** Rows one result may have; 0 = no limit. Also the most slots a RANGE query may fill. */
  readonly maxRows: number;
  /** Bytes one result may hold (as `resultBytes` counts them); 0 = no limit. */
  readonly maxBytes: number;
  /** What the results being read hold together (one pool per process); none: not bounded together. */
  readonly memory?: ResultMemory;
}

/**
 * The bytes (as `readResult` counts them) of every result being read at once: several queries each
 * within `max_result_bytes` could together pass Node's heap and take the process down; past `max`
 * the query that asks for more fails (RateLimited, retryable: it is the others' load) and gives
 * back what it took.
 */
export class ResultMemory {
  private used = 0;

  constructor(readonly max: number) {}

  /** Takes `bytes` more; false, taking nothing, when that would pass `max`. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.max) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  inUse(): number {
    return this.used;
  }
}

export function resultsTooLarge(max: number): TsdbError {
  return new TsdbError(StatusCode.RateLimited, `Results being read use more than ${formatSize(max)} of the server's memory together (a quarter of Node's heap); try again later, or narrow the query`);
}

export const NO_RESULT_LIMITS: ResultLimits = { maxRows: 0, maxBytes: 0 };

export function tooManyRows(limit: number): TsdbError {
  return new TsdbError(StatusCode.RuntimeResourcesExhausted, `Result too large: more than ${limit} rows (query.max_result_rows); add a LIMIT or narrow the query`);
}

export function tooManyBytes(limit: number): TsdbError {
  return new TsdbError(StatusCode.RuntimeResourcesExhausted, `Result too large: more than ${formatSize(limit)} (query.max_result_bytes); select fewer or shorter columns, add a LIMIT or narrow the query`);
}

/**
 * Bytes counted for a row besides its cells, and for a cell besides its text: about what V8 holds
 * for them (an array and its elements; a number or a pointer), so that `max_result_bytes` bounds
 * the server's heap, not only the answer's size.
 */
export const ROW_BYTES = 48;
export const CELL_BYTES = 16;

/** Bytes a converted cell counts for (strings by length; lists and structs by their items). */
export function cellBytes(v: unknown): number {
  if (typeof v === 'string') return CELL_BYTES + v.length;
  if (Array.isArray(v)) {
    let n = CELL_BYTES;
    for (const x of v) n += cellBytes(x);
    return n;
  }
  if (v !== null && typeof v === 'object') {
    let n = CELL_BYTES;
    for (const [k, x] of Object.entries(v)) n += k.length + cellBytes(x);
    return n;
  }
  return CELL_BYTES;
}

const MARKER = `__tsdb_limit_${randomBytes(6).toString('hex')}:`;

/** SQL that fails the query with the limit error `message` (an SQL string expression). */
export function limitErrorSql(message: string): string {
  return `error(${quoteLiteral(MARKER)} || ${message})`;
}

/** The limit error a DuckDB error message carries (from `limitErrorSql`), if it does. */
export function limitErrorOf(message: string): TsdbError | undefined {
  const at = message.indexOf(MARKER);
  if (at < 0) return undefined;
  return new TsdbError(StatusCode.RuntimeResourcesExhausted, message.slice(at + MARKER.length));
}
