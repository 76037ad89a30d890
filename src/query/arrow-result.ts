/**
 * `queryArrow`: a DuckDB query's result streamed as Arrow record batches, the region side of a region
 * query (DESIGN.md D13: a region answers its fragment as Arrow batches; `types/region-server.ts`
 * `RegionQueryStream`). DuckDB here has no arrow extension, so the result is streamed through
 * @duckdb/node-api (prepared, then streamed: one `fetchChunk` per DuckDB chunk of ≤ 2,048 rows) and each
 * chunk's vectors are read in bulk: one native copy of a vector's data (`vector_get_data`) and of its
 * validity mask, appended to the batch's typed arrays by `set` (fixed-width types whose DuckDB
 * layout is Arrow's) or a typed-array loop (booleans to bits, narrow decimals widened). Strings of
 * at most 12 bytes are read from the inlined `duckdb_string_t` entries of that copy; longer ones
 * need one native read each (`get_data_from_pointer`); no value becomes a JS string. Chunks are
 * gathered into batches of `batchRows` rows (the last one shorter), and the next chunk is fetched
 * while one is converted, so that DuckDB produces in its thread meanwhile (1M rows: ~330 → ~180 ms,
 * bench/arrow-bridge).
 *
 * Type mapping (DuckDB → Arrow; every field nullable): BOOLEAN → Bool, TINYINT..BIGINT →
 * Int8..Int64, UTINYINT..UBIGINT → Uint8..Uint64, FLOAT/DOUBLE → Float32/64, VARCHAR → Utf8, BLOB →
 * Binary, DATE → DateDay, TIMESTAMP_S | TIMESTAMP_MS | TIMESTAMP | TIMESTAMP_NS → Timestamp(s | ms |
 * µs | ns) without a zone, TIMESTAMP WITH TIME ZONE → Timestamp(µs, "UTC") (DuckDB keeps instants in
 * µs), TIME → Time64(µs), DECIMAL(p, s) → Decimal128(p, s), HUGEINT → Decimal128(38, 0) marked
 * `tsdb:duckdb_type = HUGEINT` in the field's metadata (lossless, and `publishArrow` gives HUGEINT
 * back; `sum(BIGINT)` is HUGEINT in DuckDB), "NULL" → Null. Any other type (UHUGEINT, INTERVAL, LIST,
 * STRUCT, MAP, UUID, ENUM, …) fails the call with TsdbError Unsupported naming the column, once the
 * query is bound and before it runs (`isArrowTypeUnsupported`).
 */
import duckdb from '@duckdb/node-bindings';
import { DuckDBTypeId, type DuckDBConnection, type DuckDBDataChunk, type DuckDBDecimalType, type DuckDBResult, type DuckDBType } from '@duckdb/node-api';
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Field,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  makeData,
  Null,
  RecordBatch,
  Schema,
  Struct,
  TimeMicrosecond,
  TimestampMicrosecond,
  TimestampMillisecond,
  TimestampNanosecond,
  TimestampSecond,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
  type Data,
  type DataType,
} from 'apache-arrow';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { RegionQueryStream } from '../types/region-server.js';
import { DUCKDB_TYPE_KEY } from './arrow-scan-function.js';
import { copyBits } from './copy-bits.js';
import { duckdbError } from './duckdb-error.js';

/** The end of the message of a result refused for a column's type (it crosses a region server's wire unchanged). */
const ARROW_UNSUPPORTED = ' cannot be sent as Arrow';

/**
 * Whether `err` is `queryArrow`'s refusal of a result for a column's type (raised before the query
 * runs), in this process or a region server's: the caller reads the result another way.
 */
export function isArrowTypeUnsupported(err: unknown): boolean {
  return err instanceof TsdbError && err.code === StatusCode.Unsupported && err.message.endsWith(ARROW_UNSUPPORTED);
}

/** Rows per batch unless asked otherwise (DataFusion's batch size, so GreptimeDB's). */
export const DEFAULT_BATCH_ROWS = 8192;

/** How often an aborted query's DuckDB call in flight is interrupted again: DuckDB forgets an interrupt that comes before the call has started. */
const INTERRUPT_REPEAT_MS = 20;

const STRING_T_BYTES = 16;
const STRING_INLINE_BYTES = 12;

export interface QueryArrowOptions {
  /** Aborting stops the query: the DuckDB call in flight is interrupted and the next read rejects with the abort's reason. */
  readonly signal?: AbortSignal;
  /** Rows per batch (default DEFAULT_BATCH_ROWS); DuckDB's chunks (2,048 rows) are gathered up to it. */
  readonly batchRows?: number;
  /**
   * Asked once the result's schema is known, before the query runs: false refuses the result as a
   * column type without an Arrow reader is refused (`isArrowTypeUnsupported`).
   */
  readonly accept?: (schema: Schema) => boolean;
}

/**
 * Runs `sql` in `conn` as a streamed result: its Arrow schema, then its record batches. The caller
 * owns `conn` and must not run anything else on it until the batches are read or the iterator
 * returned (another query on the connection ends DuckDB's stream). A DuckDB error, at the start or
 * mid-stream, is a TsdbError: the call's rejection (`duckdbError`: DuckDB's message and the code it
 * implies) or the next read's. Mid-stream @duckdb/node-api hides DuckDB's message (its fetch gives
 * no chunk, as at the end, and the result is marked invalid): the read rejects with
 * EngineExecuteQuery saying so, never ends as if the rows were all read; an interrupt of `conn` by
 * someone else fails it the same way. Reading stops when `signal` aborts (the next read rejects with
 * its reason, a TsdbError Cancelled unless the reason is a TsdbError) or when the iterator's
 * `return()` is called; either drops the result (DuckDB closes the stream at the connection's next
 * query, or when the result is collected).
 */
export async function queryArrow(conn: DuckDBConnection, sql: string, opts: QueryArrowOptions = {}): Promise<RegionQueryStream> {
  const batchRows = opts.batchRows ?? DEFAULT_BATCH_ROWS;
  if (!Number.isSafeInteger(batchRows) || batchRows < 1) throw new TsdbError(StatusCode.InvalidArguments, `batchRows must be a positive integer, not ${batchRows}`);
  const guard = new InterruptGuard(conn, opts.signal);
  let result: DuckDBResult;
  let readers: ColumnReader[];
  try {
    guard.throwIfAborted();
    // Prepared first: a result of a type without an Arrow reader is refused once bound, before
    // anything runs (a caller falls back on it: `isArrowTypeUnsupported`).
    const prepared = await guard.call(() => conn.prepare(sql));
    try {
      // A parameter without a value (`$1`, `?`) leaves the result's types unknown: refused like a
      // type without a reader, so that the caller's other path reports what is missing.
      if (prepared.parameterCount > 0) throw new TsdbError(StatusCode.Unsupported, `a query with parameters and no values for them${ARROW_UNSUPPORTED}`);
      readers = Array.from({ length: prepared.columnCount }, (_, c) => columnReader(prepared.columnName(c), prepared.columnType(c)));
      if (opts.accept !== undefined && !opts.accept(new Schema(readers.map((r) => r.field)))) {
        throw new TsdbError(StatusCode.Unsupported, `the result of this query (a column of a type the caller does not read)${ARROW_UNSUPPORTED}`);
      }
      result = await guard.call(() => prepared.stream());
    } finally {
      prepared.destroySync();
    }
    guard.throwIfAborted();
  } catch (err) {
    guard.close();
    throw guard.abortError() ?? duckdbError(err);
  }
  const schema = new Schema(readers.map((r) => r.field));
  return { schema, batches: new BatchStream(result, schema, readers, batchRows, guard) };
}

/**
 * Interrupts `conn` when `signal` aborts while a DuckDB call of the stream is in flight, again every
 * INTERRUPT_REPEAT_MS until the call settles (an interrupt sent before DuckDB started the call is
 * lost); never while no call is in flight, so that nothing of the caller's later is hit.
 */
class InterruptGuard {
  private inFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Set by `stop()`: the call in flight is interrupted, as on an abort. */
  private stopped = false;
  private readonly onAbort = (): void => this.interrupt();

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly signal: AbortSignal | undefined,
  ) {
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  get aborted(): boolean {
    return this.signal?.aborted === true;
  }

  /** The error a read fails with once aborted: the reason when a TsdbError, else Cancelled; undefined when not aborted. */
  abortError(): TsdbError | undefined {
    if (!this.aborted) return undefined;
    const reason: unknown = this.signal!.reason;
    return reason instanceof TsdbError ? reason : new TsdbError(StatusCode.Cancelled, 'Query execution was cancelled', { cause: reason });
  }

  throwIfAborted(): void {
    const err = this.abortError();
    if (err !== undefined) throw err;
  }

  async call<T>(run: () => Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      if (this.aborted || this.stopped) this.interrupt();
      return await run();
    } finally {
      if (--this.inFlight === 0 && this.timer !== undefined) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    }
  }

  private interrupt(): void {
    if (this.inFlight === 0) return;
    this.conn.interrupt();
    this.timer ??= setInterval(() => {
      if (this.inFlight > 0) this.conn.interrupt();
    }, INTERRUPT_REPEAT_MS).unref();
  }

  /** Interrupts the call in flight, if any (until it settles), and forgets the signal. */
  stop(): void {
    this.stopped = true;
    this.close();
    this.interrupt();
  }

  /** Forgets the signal. */
  close(): void {
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}

/** One chunk's column as read from DuckDB: its data (a copy) and validity mask (null: no NULL). */
interface ChunkColumn {
  readonly data: Uint8Array;
  readonly validity: Uint8Array | null;
}

/** Builds one column of a batch from chunk columns. */
interface ColumnReader {
  readonly field: Field;
  /** Bytes per value of the vector's data (0: none read). */
  readonly width: number;
  /** Starts a batch of at most `capacity` rows. */
  begin(capacity: number): void;
  /** Appends rows `[from, from + n)` of `col` at row `at` of the batch (NULLs apart: `ColumnBuilder` sets them). */
  append(col: ChunkColumn, from: number, n: number, at: number): void;
  /** The batch's column of `length` rows, its validity bitmap given (undefined: no NULL). */
  finish(length: number, nullBitmap: Uint8Array | undefined): Data;
}

type FixedArray = Int8Array | Int16Array | Int32Array | BigInt64Array | Uint8Array | Uint16Array | Uint32Array | BigUint64Array | Float32Array | Float64Array;

/** A fixed-width column whose DuckDB bytes are Arrow's: copied as they are. */
class FixedReader implements ColumnReader {
  private values: FixedArray = new Uint8Array(0);
  private bytes: Uint8Array = new Uint8Array(0);

  constructor(
    readonly field: Field,
    readonly width: number,
    /** Arrow values per row (4 for Decimal128 as Uint32 words). */
    private readonly stride = 1,
  ) {}

  begin(capacity: number): void {
    const ArrayType = (this.field.type as DataType).ArrayType as new (n: number) => FixedArray;
    this.values = new ArrayType(capacity * this.stride);
    this.bytes = new Uint8Array(this.values.buffer);
  }

  append(col: ChunkColumn, from: number, n: number, at: number): void {
    this.bytes.set(col.data.subarray(from * this.width, (from + n) * this.width), at * this.width);
  }

  finish(length: number, nullBitmap: Uint8Array | undefined): Data {
    return makeData({ type: this.field.type, length, nullBitmap, data: this.values.subarray(0, length * this.stride) } as never);
  }
}

/** BOOLEAN: one byte per value → one bit. */
class BoolReader implements ColumnReader {
  readonly width = 1;
  private bits = new Uint8Array(0);
  constructor(readonly field: Field) {}

  begin(capacity: number): void {
    this.bits = new Uint8Array((capacity + 7) >> 3);
  }

  append(col: ChunkColumn, from: number, n: number, at: number): void {
    const src = col.data;
    const bits = this.bits;
    for (let i = 0; i < n; i++) {
      if (src[from + i] !== 0) {
        const b = at + i;
        bits[b >> 3]! |= 1 << (b & 7);
      }
    }
  }

  finish(length: number, nullBitmap: Uint8Array | undefined): Data {
    return makeData({ type: this.field.type as Bool, length, nullBitmap, data: this.bits });
  }
}

/** DECIMAL stored in 2, 4 or 8 bytes → Decimal128, sign-extended to four 32-bit words. */
class DecimalReader implements ColumnReader {
  private words = new Int32Array(0);
  constructor(
    readonly field: Field,
    readonly width: 2 | 4 | 8,
  ) {}

  begin(capacity: number): void {
    this.words = new Int32Array(capacity * 4);
  }

  append(col: ChunkColumn, from: number, n: number, at: number): void {
    const words = this.words;
    const data = col.data;
    if (this.width === 2) {
      const src = new Int16Array(data.buffer, data.byteOffset, data.byteLength >> 1);
      for (let i = 0, w = at * 4; i < n; i++, w += 4) {
        const v = src[from + i]!;
        words[w] = v;
        words[w + 1] = words[w + 2] = words[w + 3] = v >> 31;
      }
    } else {
      const src = new Int32Array(data.buffer, data.byteOffset, data.byteLength >> 2);
      const step = this.width === 4 ? 1 : 2;
      for (let i = 0, s = from * step, w = at * 4; i < n; i++, s += step, w += 4) {
        const lo = src[s]!;
        const hi = step === 1 ? lo >> 31 : src[s + 1]!;
        words[w] = lo;
        words[w + 1] = hi;
        words[w + 2] = words[w + 3] = hi >> 31;
      }
    }
  }

  finish(length: number, nullBitmap: Uint8Array | undefined): Data {
    return makeData({ type: this.field.type as Decimal, length, nullBitmap, data: new Uint32Array(this.words.buffer, 0, length * 4) });
  }
}

/** VARCHAR and BLOB: the bytes of each `duckdb_string_t` entry appended to one buffer. */
class StringReader implements ColumnReader {
  readonly width = STRING_T_BYTES;
  private offsets = new Int32Array(1);
  private bytes = new Uint8Array(0);
  private used = 0;
  constructor(readonly field: Field) {}

  begin(capacity: number): void {
    this.offsets = new Int32Array(capacity + 1);
    // A new buffer per batch (the last one was handed out), as large as the last batch needed.
    this.bytes = new Uint8Array(Math.max(1024, this.used > 0 ? this.used : capacity * 8));
    this.used = 0;
  }

  private room(extra: number): Uint8Array {
    if (this.used + extra > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.used + extra));
      grown.set(this.bytes.subarray(0, this.used));
      this.bytes = grown;
    }
    return this.bytes;
  }

  append(col: ChunkColumn, from: number, n: number, at: number): void {
    const entries = col.data;
    const lengths = new Uint32Array(entries.buffer, entries.byteOffset, entries.byteLength >> 2);
    const validity = col.validity;
    const offsets = this.offsets;
    // Room for every value inlined; longer ones make more.
    let bytes = this.room(n * STRING_INLINE_BYTES);
    let used = this.used;
    for (let i = 0; i < n; i++) {
      const r = from + i;
      if (validity === null || (validity[r >> 3]! & (1 << (r & 7))) !== 0) {
        const len = lengths[r * 4]!;
        if (len <= STRING_INLINE_BYTES) {
          for (let k = 0, s = r * STRING_T_BYTES + 4; k < len; k++) bytes[used + k] = entries[s + k]!;
        } else {
          const value = duckdb.get_data_from_pointer(entries.buffer as ArrayBuffer, entries.byteOffset + r * STRING_T_BYTES + 8, len);
          this.used = used;
          bytes = this.room(len + (n - i) * STRING_INLINE_BYTES);
          bytes.set(value, used);
        }
        used += len;
      }
      offsets[at + i + 1] = used;
    }
    this.used = used;
  }

  finish(length: number, nullBitmap: Uint8Array | undefined): Data {
    return makeData({ type: this.field.type as Utf8, length, nullBitmap, valueOffsets: this.offsets.subarray(0, length + 1), data: this.bytes.subarray(0, this.used) });
  }
}

/** "NULL": nothing to read. */
class NullReader implements ColumnReader {
  readonly width = 0;
  constructor(readonly field: Field) {}
  begin(): void {}
  append(): void {}
  finish(length: number): Data {
    return makeData({ type: this.field.type as Null, length });
  }
}

function columnReader(name: string, type: DuckDBType): ColumnReader {
  const field = (t: DataType, metadata?: Map<string, string>) => new Field(name, t, true, metadata);
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return new BoolReader(field(new Bool()));
    case DuckDBTypeId.TINYINT:
      return new FixedReader(field(new Int8()), 1);
    case DuckDBTypeId.SMALLINT:
      return new FixedReader(field(new Int16()), 2);
    case DuckDBTypeId.INTEGER:
      return new FixedReader(field(new Int32()), 4);
    case DuckDBTypeId.BIGINT:
      return new FixedReader(field(new Int64()), 8);
    case DuckDBTypeId.UTINYINT:
      return new FixedReader(field(new Uint8()), 1);
    case DuckDBTypeId.USMALLINT:
      return new FixedReader(field(new Uint16()), 2);
    case DuckDBTypeId.UINTEGER:
      return new FixedReader(field(new Uint32()), 4);
    case DuckDBTypeId.UBIGINT:
      return new FixedReader(field(new Uint64()), 8);
    case DuckDBTypeId.FLOAT:
      return new FixedReader(field(new Float32()), 4);
    case DuckDBTypeId.DOUBLE:
      return new FixedReader(field(new Float64()), 8);
    case DuckDBTypeId.DATE:
      return new FixedReader(field(new DateDay()), 4);
    case DuckDBTypeId.TIMESTAMP_S:
      return new FixedReader(field(new TimestampSecond()), 8);
    case DuckDBTypeId.TIMESTAMP_MS:
      return new FixedReader(field(new TimestampMillisecond()), 8);
    case DuckDBTypeId.TIMESTAMP:
      return new FixedReader(field(new TimestampMicrosecond()), 8);
    case DuckDBTypeId.TIMESTAMP_NS:
      return new FixedReader(field(new TimestampNanosecond()), 8);
    case DuckDBTypeId.TIMESTAMP_TZ:
      return new FixedReader(field(new TimestampMicrosecond('UTC')), 8);
    case DuckDBTypeId.TIME:
      return new FixedReader(field(new TimeMicrosecond()), 8);
    case DuckDBTypeId.HUGEINT:
      // hugeint_t is (lower u64, upper i64): the 128-bit two's complement little-endian words Arrow's Decimal128 holds.
      return new FixedReader(field(new Decimal(0, 38, 128), new Map([[DUCKDB_TYPE_KEY, 'HUGEINT']])), 16, 4);
    case DuckDBTypeId.DECIMAL: {
      const { width: precision, scale } = type as DuckDBDecimalType;
      const f = field(new Decimal(scale, precision, 128));
      // DuckDB's storage of DECIMAL(p, s) by p (duckdb.h: duckdb_decimal_internal_type).
      if (precision > 18) return new FixedReader(f, 16, 4);
      return new DecimalReader(f, precision > 9 ? 8 : precision > 4 ? 4 : 2);
    }
    case DuckDBTypeId.VARCHAR:
      // DuckDB's JSON (a VARCHAR named so) stays JSON on the other side (`publishArrow`).
      return new StringReader(field(new Utf8(), type.alias === 'JSON' ? new Map([[DUCKDB_TYPE_KEY, 'JSON']]) : undefined));
    case DuckDBTypeId.BLOB:
      return new StringReader(field(new Binary()));
    case DuckDBTypeId.SQLNULL:
      return new NullReader(field(new Null()));
    default:
      throw new TsdbError(StatusCode.Unsupported, `column ${name} of type ${String(type)}${ARROW_UNSUPPORTED}`);
  }
}

/**
 * The batches of a streamed result. Reads are serialized; after the end, an error, an abort or
 * `return()`, reads answer done (an error or abort rejects the one read that meets it).
 */
class BatchStream implements AsyncIterableIterator<RecordBatch> {
  private result: DuckDBResult | undefined;
  /**
   * The fetch of the next chunk, started as soon as the last one came: DuckDB produces it in its
   * thread while this one is converted and the batch is handed on.
   */
  private pending: Promise<DuckDBDataChunk | null> | undefined;
  /** A chunk read but not wholly appended, its columns, and its next row. */
  private carry: { chunk: DuckDBDataChunk; columns: ChunkColumn[]; rows: number; next: number } | undefined;
  private done = false;
  private tail: Promise<unknown> = Promise.resolve();
  private nullBitmaps: (Uint8Array | undefined)[];

  constructor(
    result: DuckDBResult,
    private readonly schema: Schema,
    private readonly readers: readonly ColumnReader[],
    private readonly batchRows: number,
    private readonly guard: InterruptGuard,
  ) {
    this.result = result;
    this.nullBitmaps = readers.map(() => undefined);
    this.fetchNext();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<RecordBatch> {
    return this;
  }

  next(): Promise<IteratorResult<RecordBatch>> {
    const read = this.tail.then(() => this.read());
    this.tail = read.catch(() => undefined);
    return read;
  }

  /**
   * Ends the stream: a fetch in flight is interrupted, and this resolves once it has settled, so
   * that the caller may use the connection again.
   */
  async return(): Promise<IteratorResult<RecordBatch>> {
    if (!this.done) {
      this.finish();
      this.guard.stop();
    }
    await this.tail;
    await this.settle();
    return { done: true, value: undefined };
  }

  private fetchNext(): void {
    const result = this.result;
    if (result === undefined || this.done) return;
    const fetch = this.guard.call(() => result.fetchChunk());
    // Its failure is met where it is awaited (or dropped with the stream).
    fetch.catch(() => undefined);
    this.pending = fetch;
  }

  /** Waits for the fetch in flight, if any, to settle, and drops it. */
  private async settle(): Promise<void> {
    const fetch = this.pending;
    this.pending = undefined;
    if (fetch !== undefined) await fetch.catch(() => undefined);
  }

  /** Ends the stream and drops what it holds. */
  private finish(): void {
    this.done = true;
    this.result = undefined;
    this.carry = undefined;
    this.guard.close();
  }

  private async read(): Promise<IteratorResult<RecordBatch>> {
    if (this.done) return { done: true, value: undefined };
    try {
      this.guard.throwIfAborted();
      const batch = await this.readBatch();
      // An interrupted fetch can end early: once aborted, what was read is not the answer.
      this.guard.throwIfAborted();
      if (this.done) return { done: true, value: undefined };
      if (batch === undefined) {
        this.finish();
        return { done: true, value: undefined };
      }
      return { done: false, value: batch };
    } catch (err) {
      const aborted = this.guard.abortError();
      const closed = this.done;
      this.finish();
      // The fetch ahead, interrupted when aborted, settles before the read fails: the connection is the caller's again then.
      await this.settle();
      if (aborted !== undefined) throw aborted;
      // A read that was in flight when `return()` came ends quietly.
      if (closed) return { done: true, value: undefined };
      throw duckdbError(err);
    }
  }

  /** The next batch, or undefined at the end of the result. */
  private async readBatch(): Promise<RecordBatch | undefined> {
    const cap = this.batchRows;
    const readers = this.readers;
    const bitmaps = this.nullBitmaps;
    for (const r of readers) r.begin(cap);
    bitmaps.fill(undefined);
    let rows = 0;
    while (rows < cap) {
      if (this.carry === undefined) {
        const result = this.result;
        const fetch = this.pending;
        if (result === undefined || fetch === undefined) break;
        const chunk = await fetch;
        this.pending = undefined;
        if (this.done || this.guard.aborted) return undefined;
        if (chunk === null || chunk.rowCount === 0) {
          this.result = undefined;
          // A failed fetch looks like the end of the stream (node-api's fetch_chunk does not check for
          // an error); DuckDB marks the result invalid then. Its message is not exposed.
          if (result.returnType === duckdb.ResultType.INVALID) throw streamFailed();
          break;
        }
        this.fetchNext();
        this.carry = { chunk, columns: readChunk(chunk, readers), rows: chunk.rowCount, next: 0 };
      }
      const carry = this.carry;
      const n = Math.min(cap - rows, carry.rows - carry.next);
      for (let c = 0; c < readers.length; c++) {
        const col = carry.columns[c]!;
        readers[c]!.append(col, carry.next, n, rows);
        if (col.validity !== null) {
          const bitmap = (bitmaps[c] ??= new Uint8Array((cap + 7) >> 3).fill(0xff));
          copyBits(col.validity, carry.next, bitmap, rows, n);
        }
      }
      rows += n;
      carry.next += n;
      if (carry.next >= carry.rows) this.carry = undefined;
    }
    if (rows === 0) return undefined;
    const children = readers.map((r, c) => r.finish(rows, bitmaps[c]));
    return new RecordBatch(this.schema, makeData({ type: new Struct(this.schema.fields), length: rows, nullCount: 0, children }));
  }

  /** A throw into the stream ends it as `return()` does, then rethrows. */
  async throw(err?: unknown): Promise<IteratorResult<RecordBatch>> {
    await this.return();
    throw err;
  }
}

/**
 * A DuckDB error met while streaming, or an interrupt of the connection: `duckdb_fetch_chunk` gives
 * no chunk and @duckdb/node-api neither rejects nor exposes `duckdb_result_error`.
 */
function streamFailed(): TsdbError {
  return new TsdbError(
    StatusCode.EngineExecuteQuery,
    'the query failed while its result was streamed (an error of the query, such as a failed cast, or an interrupt of its connection); @duckdb/node-api does not give DuckDB\'s message',
  );
}

const EMPTY = new Uint8Array(0);

/** The data and validity of each column of `chunk`, copied out of DuckDB in one call each. */
function readChunk(chunk: DuckDBDataChunk, readers: readonly ColumnReader[]): ChunkColumn[] {
  const rows = chunk.rowCount;
  const words = Math.ceil(rows / 64) * 8;
  return readers.map((r, c) => {
    const vector = duckdb.data_chunk_get_vector(chunk.chunk, c);
    const data = r.width === 0 ? EMPTY : aligned(duckdb.vector_get_data(vector, rows * r.width));
    const validity = duckdb.vector_get_validity(vector, words);
    return { data, validity: validity === null ? null : validity };
  });
}

/** `bytes`, or a copy of it starting at an 8-byte boundary (typed-array views of it need one). */
function aligned(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
}
