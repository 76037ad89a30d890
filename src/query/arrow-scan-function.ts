/**
 * `tsdb_arrow_scan('<id>')`: a DuckDB table function reading published Arrow record batches, the
 * frontend's side of a region query (DESIGN.md D13): the batches a region server answers with become
 * a relation of the frontend's DuckDB, without a copy into a DuckDB table and without row objects.
 * DuckDB here has no arrow extension, so this is a C-API table function (`DuckDBTableFunction`),
 * filling each output chunk (≤ 2,048 rows, only the projected columns) from the batches' buffers,
 * as `engine/read/memtable-scan-function.ts` fills chunks from memtable runs:
 *
 * - fixed-width values whose Arrow layout is DuckDB's (integers, floats, dates, timestamps, 128-bit
 *   decimals) are copied from the Arrow buffer into the vector in one call per column and batch
 *   piece (`copy_data_to_vector`), with no scratch copy;
 * - strings and binaries of at most 12 bytes are written as DuckDB's inlined `duckdb_string_t`
 *   (length, then the bytes, zero-padded: 16 bytes, duckdb.h) into a scratch buffer copied in one
 *   call; longer ones are assigned one native call each from a view of the Arrow bytes. No value is
 *   decoded to a JS string. A dictionary's entries are built once per dictionary, then copied per row;
 * - booleans (bits) and narrow decimals (DuckDB stores DECIMAL(p ≤ 18) in 2, 4 or 8 bytes) go
 *   through a typed-array loop into a scratch buffer;
 * - NULLs are Arrow's validity bits, copied a byte at a time into one mask per column (`copyBits`).
 *
 * Type mapping (Arrow → DuckDB): Null → "NULL" (all NULL), Bool → BOOLEAN, Int8..Int64 →
 * TINYINT..BIGINT, Uint8..Uint64 → UTINYINT..UBIGINT, Float32/64 → FLOAT/DOUBLE, Utf8 and LargeUtf8 →
 * VARCHAR, Binary and LargeBinary → BLOB, Dictionary<integer ≤ 32 bits, Utf8 | Binary> → VARCHAR |
 * BLOB, DateDay → DATE, Timestamp(s|ms|µs|ns) without a zone → TIMESTAMP_S | TIMESTAMP_MS | TIMESTAMP
 * | TIMESTAMP_NS, Timestamp(µs) with a zone → TIMESTAMP WITH TIME ZONE (the values are instants),
 * Time64(µs) → TIME, Decimal128(p ≤ 38, 0 ≤ s ≤ p) → DECIMAL(p, s), or HUGEINT when the field's
 * metadata says so (`DUCKDB_TYPE_KEY`, as `queryArrow` marks a HUGEINT column). Anything else is
 * refused at publish time (TsdbError Unsupported, naming the column and its type).
 *
 * Each chunk is one call from a DuckDB thread into the JS thread: a scan is bound by that round
 * trip more than by the copies. One thread calls it (rows in the batches' order) unless the
 * publication is unordered (`ordered: false`), when two may, so that DuckDB works on one chunk
 * while the next is filled.
 *
 * One function per DuckDB instance; batches are published under an id until disposed. A scan that
 * has started keeps reading what it bound even if its publication is disposed meanwhile.
 */
import { randomUUID } from 'node:crypto';
import duckdb from '@duckdb/node-bindings';
import {
  BIGINT,
  BLOB,
  BOOLEAN,
  DATE,
  DECIMAL,
  DOUBLE,
  DuckDBTableFunction,
  DuckDBVarCharType,
  FLOAT,
  HUGEINT,
  INTEGER,
  SMALLINT,
  SQLNULL,
  TIME,
  TIMESTAMP,
  TIMESTAMP_MS,
  TIMESTAMP_NS,
  TIMESTAMP_S,
  TIMESTAMPTZ,
  TINYINT,
  UBIGINT,
  UINTEGER,
  USMALLINT,
  UTINYINT,
  VARCHAR,
  type DuckDBConnection,
  type DuckDBDataChunk,
  type DuckDBType,
} from '@duckdb/node-api';
import { DateUnit, Precision, TimeUnit, Type, type Data, type DataType, type Field, type RecordBatch, type Schema, type Vector } from 'apache-arrow';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { copyBits } from './copy-bits.js';

/** DuckDB's JSON type: a VARCHAR named JSON (a JSON column, marked so by `queryArrow`). */
const JSON_TYPE = DuckDBVarCharType.create('JSON');

export const ARROW_SCAN_FUNCTION = 'tsdb_arrow_scan';

/**
 * Field metadata naming the DuckDB type an Arrow field stands for when Arrow has no exact one:
 * `HUGEINT` on a Decimal128(38, 0) field (what `queryArrow` gives for HUGEINT, e.g. `sum(BIGINT)`).
 */
export const DUCKDB_TYPE_KEY = 'tsdb:duckdb_type';

const CHUNK_ROWS = duckdb.vector_size();
/** Bytes of a `duckdb_string_t`, and the longest string stored inline in it (duckdb.h). */
const STRING_T_BYTES = 16;
const STRING_INLINE_BYTES = 12;

/** How a column's values get into a DuckDB vector. */
type Kind =
  /** Every value NULL. */
  | 'null'
  /** Arrow bits → one byte per value. */
  | 'bool'
  /** Same bytes in Arrow and DuckDB (`width` per value): copied as they are. */
  | 'fixed'
  /** Decimal128 → DuckDB's 2-, 4- or 8-byte decimal storage (`width`). */
  | 'decimal'
  /** Int32 offsets + bytes. */
  | 'string'
  /** Int64 offsets + bytes. */
  | 'large-string'
  /** Integer indices into a Utf8 or Binary dictionary. */
  | 'dictionary';

interface ColumnPlan {
  readonly name: string;
  readonly duckdbType: DuckDBType;
  readonly kind: Kind;
  /** Bytes per value in the DuckDB vector. */
  readonly width: number;
}

/** The plan of a column of `field`'s name and metadata holding `t` (the field's type, or a batch's), or why it has none. */
function planOf(field: Field, t: DataType = field.type as DataType): ColumnPlan | string {
  const plan = (duckdbType: DuckDBType, kind: Kind, width = 0): ColumnPlan => ({ name: field.name, duckdbType, kind, width });
  switch (t.typeId) {
    case Type.Null:
      return plan(SQLNULL, 'null');
    case Type.Bool:
      return plan(BOOLEAN, 'bool', 1);
    case Type.Int: {
      const { bitWidth, isSigned } = t as unknown as { bitWidth: number; isSigned: boolean };
      const types: Record<number, readonly [DuckDBType, DuckDBType]> = {
        8: [TINYINT, UTINYINT],
        16: [SMALLINT, USMALLINT],
        32: [INTEGER, UINTEGER],
        64: [BIGINT, UBIGINT],
      };
      const pair = types[bitWidth];
      return pair === undefined ? `${bitWidth}-bit integers` : plan(pair[isSigned ? 0 : 1], 'fixed', bitWidth / 8);
    }
    case Type.Float: {
      const precision = (t as unknown as { precision: Precision }).precision;
      if (precision === Precision.SINGLE) return plan(FLOAT, 'fixed', 4);
      if (precision === Precision.DOUBLE) return plan(DOUBLE, 'fixed', 8);
      return 'half-precision floats';
    }
    case Type.Utf8:
      return plan(field.metadata.get(DUCKDB_TYPE_KEY) === 'JSON' ? JSON_TYPE : VARCHAR, 'string', STRING_T_BYTES);
    case Type.LargeUtf8:
      return plan(VARCHAR, 'large-string', STRING_T_BYTES);
    case Type.Binary:
      return plan(BLOB, 'string', STRING_T_BYTES);
    case Type.LargeBinary:
      return plan(BLOB, 'large-string', STRING_T_BYTES);
    case Type.Date:
      return (t as unknown as { unit: DateUnit }).unit === DateUnit.DAY ? plan(DATE, 'fixed', 4) : 'dates in milliseconds (DateMillisecond)';
    case Type.Timestamp: {
      const { unit, timezone } = t as unknown as { unit: TimeUnit; timezone?: string | null };
      if (timezone !== undefined && timezone !== null && timezone !== '') {
        return unit === TimeUnit.MICROSECOND ? plan(TIMESTAMPTZ, 'fixed', 8) : 'timestamps with a time zone in a unit other than microseconds';
      }
      const types: Record<number, DuckDBType> = {
        [TimeUnit.SECOND]: TIMESTAMP_S,
        [TimeUnit.MILLISECOND]: TIMESTAMP_MS,
        [TimeUnit.MICROSECOND]: TIMESTAMP,
        [TimeUnit.NANOSECOND]: TIMESTAMP_NS,
      };
      return plan(types[unit]!, 'fixed', 8);
    }
    case Type.Time: {
      const { unit, bitWidth } = t as unknown as { unit: TimeUnit; bitWidth: number };
      return unit === TimeUnit.MICROSECOND && bitWidth === 64 ? plan(TIME, 'fixed', 8) : 'times in a unit other than microseconds';
    }
    case Type.Decimal: {
      const { precision, scale, bitWidth } = t as unknown as { precision: number; scale: number; bitWidth: number };
      if (bitWidth !== 128) return `${bitWidth}-bit decimals`;
      if (!(precision >= 1 && precision <= 38 && scale >= 0 && scale <= precision)) return `decimals of precision ${precision} and scale ${scale}`;
      if (field.metadata.get(DUCKDB_TYPE_KEY) === 'HUGEINT' && precision === 38 && scale === 0) return plan(HUGEINT, 'fixed', 16);
      const type = DECIMAL(precision, scale);
      return precision > 18 ? plan(type, 'fixed', 16) : plan(type, 'decimal', precision > 9 ? 8 : precision > 4 ? 4 : 2);
    }
    case Type.Dictionary: {
      const { dictionary, indices } = t as unknown as { dictionary: DataType; indices: { bitWidth: number } };
      if (indices.bitWidth > 32) return 'dictionaries with 64-bit indices';
      if (dictionary.typeId === Type.Utf8) return plan(VARCHAR, 'dictionary', STRING_T_BYTES);
      if (dictionary.typeId === Type.Binary) return plan(BLOB, 'dictionary', STRING_T_BYTES);
      return 'dictionaries of values other than Utf8 or Binary';
    }
    default:
      return 'this type';
  }
}

/** Whether `data` holds what `plan` reads, with buffers long enough: the copies into DuckDB are not bounds-checked. */
function fits(plan: ColumnPlan, data: Data): boolean {
  const n = data.length;
  const bitsFit = (bits: Uint8Array | undefined | null) => bits !== undefined && bits !== null && bits.length * 8 >= data.offset + n;
  // A column without NULLs may have no bitmap, or an empty one; its bitmap is read only when it has NULLs.
  if (plan.kind !== 'null' && data.nullCount > 0 && !bitsFit(data.nullBitmap)) return false;
  const values = data.values as ArrayBufferView | undefined;
  switch (plan.kind) {
    case 'null':
      return true;
    case 'bool':
      return values instanceof Uint8Array && bitsFit(values);
    case 'fixed':
      return ArrayBuffer.isView(values) && values.byteLength >= n * plan.width;
    case 'decimal':
      return values instanceof Uint32Array && values.length >= n * 4;
    case 'string':
      return values instanceof Uint8Array && data.valueOffsets instanceof Int32Array && data.valueOffsets.length >= n + 1;
    case 'large-string':
      return values instanceof Uint8Array && data.valueOffsets instanceof BigInt64Array && data.valueOffsets.length >= n + 1;
    case 'dictionary':
      return ArrayBuffer.isView(values) && !(values instanceof BigInt64Array || values instanceof BigUint64Array) && (values as Int32Array).length >= n && data.dictionary !== undefined;
  }
}

/** A column's values of one dictionary as `duckdb_string_t` entries, built once per dictionary. */
interface DictionaryEntries {
  /** STRING_T_BYTES per value: inlined strings, zeros for longer or NULL ones. */
  readonly words: Int32Array;
  /** Per value: 0 inlined, 1 longer (its bytes in `long`), 2 NULL. */
  readonly state: Uint8Array;
  readonly long: Map<number, Uint8Array>;
}

function dictionaryEntries(dictionary: Vector): DictionaryEntries {
  const count = dictionary.length;
  const words = new Int32Array(count * (STRING_T_BYTES / 4));
  const bytes = new Uint8Array(words.buffer);
  const state = new Uint8Array(count);
  const long = new Map<number, Uint8Array>();
  let at = 0;
  for (const data of dictionary.data as Data[]) {
    const offsets = data.valueOffsets as Int32Array;
    const values = data.values as Uint8Array;
    const nulls = data.nullCount > 0 ? data.nullBitmap : undefined;
    for (let i = 0; i < data.length; i++, at++) {
      const bit = data.offset + i;
      if (nulls !== undefined && (nulls[bit >> 3]! & (1 << (bit & 7))) === 0) {
        state[at] = 2;
        continue;
      }
      const start = offsets[i]!;
      const len = offsets[i + 1]! - start;
      if (len >= 0 && len <= STRING_INLINE_BYTES) {
        words[at * 4] = len;
        const base = at * STRING_T_BYTES + 4;
        for (let k = 0; k < len; k++) bytes[base + k] = values[start + k]!;
      } else {
        state[at] = 1;
        long.set(at, values.subarray(start, start + Math.max(0, len)));
      }
    }
  }
  return { words, state, long };
}

interface Publication {
  readonly id: string;
  readonly plans: readonly ColumnPlan[];
  /** Per batch, its columns' data (`batch.data.children`), and its rows. */
  readonly columns: ReadonlyArray<readonly Data[]>;
  readonly rows: readonly number[];
  readonly totalRows: number;
  /** Dictionary entries by dictionary, built when a scan first meets one. */
  readonly dictionaries: Map<Vector, DictionaryEntries>;
  /** DuckDB threads that may call the scan at once (1: the batches' order). */
  readonly threads: number;
}

const published = new Map<string, Publication>();

/** Handle of published batches: `sql` is the table function call, usable where a table name is (`SELECT … FROM ${sql}`). */
export interface ArrowPublication {
  readonly id: string;
  /** `tsdb_arrow_scan('<id>')`. */
  readonly sql: string;
  /** Ends the publication: a query binding `sql` afterwards fails. */
  dispose(): void;
}

/**
 * Threads of an unordered scan. Every call fills its chunk on the one JS thread, so more threads
 * only queue there; two let DuckDB work on one chunk (aggregate it) while the next is filled, which
 * halves a grouped average over 1M rows (bench/arrow-bridge). DuckDB uses at most its own threads.
 */
const UNORDERED_THREADS = 2;

export interface PublishArrowOptions {
  /**
   * Whether a scan yields the rows in the batches' order (default true): one DuckDB thread calls
   * it. False lets UNORDERED_THREADS threads call it, chunks then coming in any order: for a
   * relation whose order nothing depends on (an aggregate, or a query with its own ORDER BY).
   */
  readonly ordered?: boolean;
}

/**
 * Makes `batches` (of `schema`) readable as `tsdb_arrow_scan('<id>')` until `dispose`, columns named
 * as the schema's fields. The batches are read in place: they must not change meanwhile. Throws
 * TsdbError Unsupported for a field of a type DuckDB cannot be given, InvalidArguments for a batch
 * that does not match the schema or a schema naming a column twice.
 */
export function publishArrow(schema: Schema, batches: readonly RecordBatch[], opts: PublishArrowOptions = {}): ArrowPublication {
  const plans = schema.fields.map((field) => {
    const plan = planOf(field);
    if (typeof plan === 'string') throw new TsdbError(StatusCode.Unsupported, `column ${field.name} of type ${String(field.type)}: ${plan} cannot be read by DuckDB here`);
    return plan;
  });
  const names = new Set<string>();
  for (const f of schema.fields) {
    // DuckDB compares column names without case and refuses a relation that repeats one.
    const key = f.name.toLowerCase();
    if (names.has(key)) throw new TsdbError(StatusCode.InvalidArguments, `column ${f.name} is named twice (DuckDB compares names without case): a relation's columns need distinct names`);
    names.add(key);
  }
  const columns: (readonly Data[])[] = [];
  const rows: number[] = [];
  let totalRows = 0;
  for (const [b, batch] of batches.entries()) {
    const children = batch.data.children as Data[];
    if (children.length !== plans.length) throw new TsdbError(StatusCode.InvalidArguments, `record batch ${b} has ${children.length} columns, its schema ${plans.length}`);
    for (let c = 0; c < plans.length; c++) {
      const plan = plans[c]!;
      const data = children[c]!;
      const own = planOf(schema.fields[c]!, data.type as DataType);
      const sameType = typeof own !== 'string' && own.kind === plan.kind && own.width === plan.width && String(own.duckdbType) === String(plan.duckdbType);
      // An empty batch is never read: its buffers may be empty.
      if (data.length !== batch.numRows || !sameType || (batch.numRows > 0 && !fits(plan, data))) {
        throw new TsdbError(StatusCode.InvalidArguments, `record batch ${b}: column ${plan.name} does not hold ${String(schema.fields[c]!.type)} values of ${batch.numRows} rows`);
      }
    }
    if (batch.numRows === 0) continue;
    columns.push(children);
    rows.push(batch.numRows);
    totalRows += batch.numRows;
  }
  const id = randomUUID();
  published.set(id, { id, plans, columns, rows, totalRows, dictionaries: new Map(), threads: opts.ordered === false ? UNORDERED_THREADS : 1 });
  return { id, sql: `${ARROW_SCAN_FUNCTION}('${id}')`, dispose: () => published.delete(id) };
}

interface Cursor {
  readonly data: Publication;
  /** The projected columns, by index in the publication. */
  readonly columns: readonly number[];
  batch: number;
  row: number;
  /** The chunk being filled, as (batch, first row, rows) triples. */
  readonly pieces: number[];
}

/** Scratch buffers of one fill (one thread at a time: the function runs on the JS thread). */
const scratch = new Uint8Array(CHUNK_ROWS * STRING_T_BYTES);
const scratchWords = new Int32Array(scratch.buffer);
const scratchShorts = new Int16Array(scratch.buffer);
const validity = new Uint8Array(CHUNK_ROWS / 8);
const noNulls = new Uint8Array(CHUNK_ROWS / 8);
/** Rows of longer strings, and their bytes, assigned after the chunk's entries are copied. */
const longRows: number[] = [];
const longBytes: Uint8Array[] = [];

/**
 * Registers `tsdb_arrow_scan(VARCHAR)` in the DuckDB instance of `conn` (visible to all its
 * connections). Once per instance; registering again changes nothing.
 */
export function registerArrowScan(conn: DuckDBConnection): void {
  const fn = DuckDBTableFunction.create({
    name: ARROW_SCAN_FUNCTION,
    parameterTypes: [VARCHAR],
    supportsProjectionPushdown: true,
    bindFunction: (info) => {
      const id = String(info.getParameter(0));
      const data = published.get(id);
      if (data === undefined) {
        info.setError(`no Arrow record batches published as ${id} (disposed, or never published)`);
        return;
      }
      for (const p of data.plans) info.addResultColumn(p.name, p.duckdbType);
      info.setBindData(data);
      info.setCardinality(data.totalRows, true);
    },
    initFunction: (info) => {
      const data = info.bindData as Publication;
      // One cursor for all threads: each call takes the next rows whole (the calls run one at a time, on the JS thread).
      const cursor: Cursor = { data, columns: info.getColumnIndexes(), batch: 0, row: 0, pieces: [] };
      info.setInitData(cursor);
      info.setMaxThreads(data.threads);
    },
    mainFunction: (info, output) => {
      const cur = info.initData as Cursor;
      const { rows: batchRows } = cur.data;
      const pieces = cur.pieces;
      pieces.length = 0;
      let rows = 0;
      while (rows < CHUNK_ROWS && cur.batch < batchRows.length) {
        const n = batchRows[cur.batch]!;
        const take = Math.min(CHUNK_ROWS - rows, n - cur.row);
        pieces.push(cur.batch, cur.row, take);
        rows += take;
        cur.row += take;
        if (cur.row >= n) {
          cur.batch++;
          cur.row = 0;
        }
      }
      output.rowCount = rows;
      if (rows === 0) return;
      const error = fillChunk(output, cur, rows);
      if (error !== undefined) info.setError(error);
    },
  });
  conn.registerTableFunction(fn);
}

/** Fills the projected columns of `output` with the cursor's pieces; an error message, or undefined. */
function fillChunk(output: DuckDBDataChunk, cur: Cursor, rows: number): string | undefined {
  const { plans, columns } = cur.data;
  const pieces = cur.pieces;
  for (let k = 0; k < cur.columns.length; k++) {
    const c = cur.columns[k]!;
    const plan = plans[c]!;
    const vector = duckdb.data_chunk_get_vector(output.chunk, k);
    let hasNull = false;
    validity.fill(0xff);
    for (let p = 0, at = 0; p < pieces.length; p += 3) {
      const data = columns[pieces[p]!]![c]!;
      const start = pieces[p + 1]!;
      const n = pieces[p + 2]!;
      if (plan.kind === 'null') {
        copyBits(noNulls, 0, validity, at, n);
        hasNull = true;
      } else if (data.nullCount > 0) {
        copyBits(data.nullBitmap!, data.offset + start, validity, at, n);
        hasNull = true;
      }
      at += n;
    }
    switch (plan.kind) {
      case 'null':
        break;
      case 'fixed':
        for (let p = 0, at = 0; p < pieces.length; p += 3) {
          const values = columns[pieces[p]!]![c]!.values as ArrayBufferView;
          const start = pieces[p + 1]!;
          const n = pieces[p + 2]!;
          duckdb.copy_data_to_vector(vector, at * plan.width, values.buffer as ArrayBuffer, values.byteOffset + start * plan.width, n * plan.width);
          at += n;
        }
        break;
      case 'bool':
        for (let p = 0, at = 0; p < pieces.length; p += 3) {
          const data = columns[pieces[p]!]![c]!;
          const bits = data.values as Uint8Array;
          const n = pieces[p + 2]!;
          for (let i = 0, b = data.offset + pieces[p + 1]!; i < n; i++, b++) scratch[at + i] = (bits[b >> 3]! >> (b & 7)) & 1;
          at += n;
        }
        duckdb.copy_data_to_vector(vector, 0, scratch.buffer, 0, rows);
        break;
      case 'decimal':
        fillDecimals(columns, c, pieces, plan.width);
        duckdb.copy_data_to_vector(vector, 0, scratch.buffer, 0, rows * plan.width);
        break;
      case 'string':
      case 'large-string':
      case 'dictionary': {
        longRows.length = 0;
        longBytes.length = 0;
        dictionaryNulls.length = 0;
        const error = plan.kind === 'dictionary' ? fillDictionary(cur.data, c, pieces) : fillStrings(columns, c, pieces, plan.kind === 'large-string');
        if (error !== undefined) return `column ${plan.name}: ${error}`;
        duckdb.copy_data_to_vector(vector, 0, scratch.buffer, 0, rows * STRING_T_BYTES);
        for (let i = 0; i < longRows.length; i++) duckdb.vector_assign_string_element_len(vector, longRows[i]!, longBytes[i]!);
        // Rows a dictionary's NULL entries made NULL.
        if (dictionaryNulls.length > 0) {
          for (const row of dictionaryNulls) validity[row >> 3]! &= ~(1 << (row & 7));
          hasNull = true;
        }
        break;
      }
    }
    if (hasNull) {
      // The validity mask is allocated lazily: without this the copy would write through a null pointer.
      duckdb.vector_ensure_validity_writable(vector);
      duckdb.copy_data_to_vector_validity(vector, 0, validity.buffer, 0, Math.ceil(rows / 64) * 8);
    }
  }
  return undefined;
}

/** Decimal128 values (two's complement, little-endian words) narrowed to DuckDB's `width`-byte storage in `scratch`. */
function fillDecimals(columns: ReadonlyArray<readonly Data[]>, c: number, pieces: readonly number[], width: number): void {
  for (let p = 0, at = 0; p < pieces.length; p += 3) {
    const values = columns[pieces[p]!]![c]!.values as Uint32Array;
    const words = new Int32Array(values.buffer, values.byteOffset, values.length);
    const n = pieces[p + 2]!;
    // A value that fits the narrow width is its low word(s).
    for (let i = 0, w = 4 * pieces[p + 1]!; i < n; i++, w += 4) {
      if (width === 2) scratchShorts[at + i] = words[w]!;
      else if (width === 4) scratchWords[at + i] = words[w]!;
      else {
        scratchWords[2 * (at + i)] = words[w]!;
        scratchWords[2 * (at + i) + 1] = words[w + 1]!;
      }
    }
    at += n;
  }
}

/**
 * Strings or binaries (Int32 or Int64 offsets) as `duckdb_string_t` entries in `scratch`: inlined
 * when at most 12 bytes, else zero and listed in `longRows`/`longBytes`.
 */
function fillStrings(columns: ReadonlyArray<readonly Data[]>, c: number, pieces: readonly number[], large: boolean): string | undefined {
  for (let p = 0, at = 0; p < pieces.length; p += 3) {
    const data = columns[pieces[p]!]![c]!;
    const bytes = data.values as Uint8Array;
    const start = pieces[p + 1]!;
    const n = pieces[p + 2]!;
    const nulls = data.nullCount > 0 ? data.nullBitmap : undefined;
    // Int64 offsets read as two 32-bit words: no BigInt per row.
    const offsets = large ? undefined : (data.valueOffsets as Int32Array);
    const wide = large ? new Int32Array((data.valueOffsets as BigInt64Array).buffer, (data.valueOffsets as BigInt64Array).byteOffset, (data.valueOffsets as BigInt64Array).length * 2) : undefined;
    for (let i = 0; i < n; i++) {
      const row = at + i;
      const e = row * 4;
      scratchWords[e] = 0;
      scratchWords[e + 1] = 0;
      scratchWords[e + 2] = 0;
      scratchWords[e + 3] = 0;
      const r = start + i;
      if (nulls !== undefined) {
        const bit = data.offset + r;
        if ((nulls[bit >> 3]! & (1 << (bit & 7))) === 0) continue;
      }
      let from: number;
      let to: number;
      if (offsets !== undefined) {
        from = offsets[r]!;
        to = offsets[r + 1]!;
      } else {
        from = (wide![2 * r]! >>> 0) + wide![2 * r + 1]! * 0x1_0000_0000;
        to = (wide![2 * r + 2]! >>> 0) + wide![2 * r + 3]! * 0x1_0000_0000;
      }
      const len = to - from;
      if (len < 0 || to > bytes.length) return `row ${r} of a batch has offsets ${from}..${to} outside its ${bytes.length} bytes`;
      if (len <= STRING_INLINE_BYTES) {
        scratchWords[e] = len;
        const base = row * STRING_T_BYTES + 4;
        for (let k = 0; k < len; k++) scratch[base + k] = bytes[from + k]!;
      } else {
        longRows.push(row);
        longBytes.push(bytes.subarray(from, to));
      }
    }
    at += n;
  }
  return undefined;
}

/** Rows of a chunk whose dictionary entry is NULL (their index is valid). */
const dictionaryNulls: number[] = [];

/** Dictionary-encoded strings as `duckdb_string_t` entries in `scratch`, from each dictionary's entries. */
function fillDictionary(pub: Publication, c: number, pieces: readonly number[]): string | undefined {
  for (let p = 0, at = 0; p < pieces.length; p += 3) {
    const data = pub.columns[pieces[p]!]![c]!;
    const dictionary = data.dictionary!;
    let entries = pub.dictionaries.get(dictionary);
    if (entries === undefined) {
      entries = dictionaryEntries(dictionary);
      pub.dictionaries.set(dictionary, entries);
    }
    const { words, state, long } = entries;
    const count = state.length;
    const indices = data.values as Int32Array;
    const start = pieces[p + 1]!;
    const n = pieces[p + 2]!;
    const nulls = data.nullCount > 0 ? data.nullBitmap : undefined;
    for (let i = 0; i < n; i++) {
      const row = at + i;
      const e = row * 4;
      const r = start + i;
      if (nulls !== undefined) {
        const bit = data.offset + r;
        if ((nulls[bit >> 3]! & (1 << (bit & 7))) === 0) {
          scratchWords[e] = scratchWords[e + 1] = scratchWords[e + 2] = scratchWords[e + 3] = 0;
          continue;
        }
      }
      const x = indices[r]!;
      if (!(x >= 0 && x < count)) return `dictionary index ${x} outside its ${count} values`;
      const s = state[x]!;
      if (s === 0) {
        const w = x * 4;
        scratchWords[e] = words[w]!;
        scratchWords[e + 1] = words[w + 1]!;
        scratchWords[e + 2] = words[w + 2]!;
        scratchWords[e + 3] = words[w + 3]!;
      } else {
        scratchWords[e] = scratchWords[e + 1] = scratchWords[e + 2] = scratchWords[e + 3] = 0;
        if (s === 1) {
          longRows.push(row);
          longBytes.push(long.get(x)!);
        } else dictionaryNulls.push(row);
      }
    }
    at += n;
  }
  return undefined;
}
