/**
 * The cell budget of an ingestion request: how many values (cells) the tables a decoder builds from
 * one request body may hold, counted as rows × columns of each table, NULLs included, summed over
 * the request's tables. The InfluxDB line protocol, OpenTSDB and Prometheus remote write decoders
 * all build dense columns (a slot per row per column), and so does everything after them (the
 * frontend's write batches, the WAL, the memtables), so a request's memory follows its cells.
 *
 * Dense data needs few cells per byte: a line-protocol value takes at least 3 bytes (`,k=v`), TSBS
 * cpu lines have 0.1 cells per byte, a Prometheus sample with its labels well under 1. Only sparse
 * shapes need more — points of one table with different tags or fields, each a column for every
 * row — and they can need far more: one line with 4,000 tags and then 200,000 short lines is a
 * 2.5 MB body and 800 million cells (about 10 GB), which ran the server out of memory. The budget
 * keeps every request within a bounded multiple of its size, and within a fixed ceiling:
 *
 *   limit = min(INGEST_MAX_CELLS, max(INGEST_MIN_CELLS, INGEST_CELLS_PER_BYTE × body bytes))
 *
 * `body bytes` is the body as decoded: after gzip / deflate, and for remote write after snappy. A
 * request over its limit is refused whole (InvalidArguments: HTTP 400) while it is decoded, before
 * the memory is taken, with a message that says how to split it.
 *
 * GreptimeDB sets no such limit (its decoders build rows of `Value`s, dense too).
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';

/**
 * Cells per byte of body: 10 times what the densest line protocol needs (`m f=1\n`: 2 cells in 6
 * bytes), so that ordinary sparse tables (a measurement whose lines carry different fields, as
 * Telegraf's `prometheus` input writes) still fit.
 */
export const INGEST_CELLS_PER_BYTE = 4;

/** Cells any request may have, however small (2^20: some 25 MB of memory through the write): small requests are never refused for their shape. */
export const INGEST_MIN_CELLS = 1 << 20;

/**
 * Cells no request may pass (2^25, 33,554,432: about 1 GB of memory from the decoder through the
 * write). A 64 MiB body (the default `http.body_limit`) of TSBS cpu lines has 6.7 million; of the
 * shortest lines possible, 22 million.
 */
export const INGEST_MAX_CELLS = 1 << 25;

/** The cell limit of a request whose decoded body has `bodyBytes` bytes. */
export function ingestCellLimit(bodyBytes: number): number {
  return Math.min(INGEST_MAX_CELLS, Math.max(INGEST_MIN_CELLS, INGEST_CELLS_PER_BYTE * bodyBytes));
}

/** The problem of a request over its cell limit, and what to do about it (for messages). */
export function cellLimitProblem(limit: number, bodyBytes: number): string {
  return (
    `the request decodes to more than ${limit} values (rows × columns of each table, NULLs included), ` +
    `the limit for a body of ${bodyBytes} bytes (${INGEST_CELLS_PER_BYTE} per byte, at least ${INGEST_MIN_CELLS}, at most ${INGEST_MAX_CELLS}); ` +
    'split it into smaller requests, and send points whose tags or fields differ widely in separate requests'
  );
}

/** Counts the cells of one request's tables against its limit. */
export class CellBudget {
  /** Cells counted so far. */
  used = 0;
  readonly limit: number;

  constructor(
    /** The size of the decoded body. */
    readonly bodyBytes: number,
    /** What to name in messages (`invalid WriteRequest`, `Invalid OpenTSDB Json request`). */
    private readonly what: string,
    limit = ingestCellLimit(bodyBytes),
  ) {
    this.limit = limit;
  }

  /** Counts `cells` more; throws InvalidArguments when the total passes the limit. */
  charge(cells: number): void {
    this.used += cells;
    if (this.used > this.limit) throw new TsdbError(StatusCode.InvalidArguments, `${this.what}: ${cellLimitProblem(this.limit, this.bodyBytes)}`);
  }
}
