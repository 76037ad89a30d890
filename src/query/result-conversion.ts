/**
 * DuckDB results to tsdb outputs: type names as clients see them (reference api.md §1.2 `data_type`)
 * and cells encoded as GreptimeDB does (timestamps as integers in their unit, dates as days, decimals
 * as strings, binaries as byte arrays). NaN and the infinities stay numbers: each output format
 * writes them its own way (`null` in JSON, `NaN`/`inf` over MySQL, `NaN`/`Infinity` over PostgreSQL).
 */
import {
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBIntervalValue,
  DuckDBListValue,
  DuckDBTimeNSValue,
  DuckDBTimeValue,
  DuckDBStructValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTypeId,
  DuckDBArrayValue,
  DuckDBBlobVector,
  DuckDBVarCharVector,
  type DuckDBConnection,
  type DuckDBResultReader,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { shortestFloat32 } from '../common/float32.js';
import duckdb from '@duckdb/node-bindings';
import { StatusCode } from '../common/error/status-code.js';
import { intervalText } from '../common/time/interval-text.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { int64Cell, type Cell, type OutputColumn } from './output.js';
import { vectorBytes } from '../common/vector-text.js';
import { CELL_BYTES, cellBytes, NO_RESULT_LIMITS, resultsTooLarge, ROW_BYTES, tooManyBytes, tooManyRows, type ResultLimits } from './resource-limits.js';

/** The tsdb type name of a DuckDB type. */
export function dataTypeName(t: DuckDBType): string {
  switch (t.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return 'Boolean';
    case DuckDBTypeId.TINYINT:
      return 'Int8';
    case DuckDBTypeId.SMALLINT:
      return 'Int16';
    case DuckDBTypeId.INTEGER:
      return 'Int32';
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.HUGEINT:
      return 'Int64';
    case DuckDBTypeId.UTINYINT:
      return 'UInt8';
    case DuckDBTypeId.USMALLINT:
      return 'UInt16';
    case DuckDBTypeId.UINTEGER:
      return 'UInt32';
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.UHUGEINT:
      return 'UInt64';
    case DuckDBTypeId.FLOAT:
      return 'Float32';
    case DuckDBTypeId.DOUBLE:
      return 'Float64';
    case DuckDBTypeId.VARCHAR:
      // DuckDB's JSON type is a VARCHAR named JSON: a JSON column's values and the json_* functions' documents.
      return t.alias === 'JSON' ? 'Json' : 'String';
    case DuckDBTypeId.UUID:
    case DuckDBTypeId.ENUM:
      return 'String';
    case DuckDBTypeId.BLOB:
      return 'Binary';
    case DuckDBTypeId.DATE:
      return 'Date';
    case DuckDBTypeId.TIMESTAMP_S:
      return 'TimestampSecond';
    case DuckDBTypeId.TIMESTAMP_MS:
      return 'TimestampMillisecond';
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ:
      return 'TimestampMicrosecond';
    case DuckDBTypeId.TIMESTAMP_NS:
      return 'TimestampNanosecond';
    case DuckDBTypeId.TIME:
      return 'TimeMicrosecond';
    case DuckDBTypeId.TIME_NS:
      return 'TimeNanosecond';
    case DuckDBTypeId.INTERVAL:
      return 'IntervalMonthDayNano';
    case DuckDBTypeId.DECIMAL: {
      const d = t as unknown as { width: number; scale: number };
      return `Decimal(${d.width}, ${d.scale})`;
    }
    case DuckDBTypeId.ARRAY:
      // FLOAT[n]: a VECTOR(n) column (`frontend/json-columns.ts`).
      if (isVectorArray(t)) return `Vector(${(t as unknown as { length: number }).length})`;
      return `List<${dataTypeName((t as unknown as { valueType: DuckDBType }).valueType)}>`;
    case DuckDBTypeId.LIST:
      return `List<${dataTypeName((t as unknown as { valueType: DuckDBType }).valueType)}>`;
    case DuckDBTypeId.STRUCT:
      return 'Struct';
    case DuckDBTypeId.SQLNULL:
      return 'Null';
    default:
      return 'String';
  }
}

/** A DuckDB value as an output cell. */
export function cellOf(v: DuckDBValue): Cell {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return int64Cell(v);
  if (v instanceof DuckDBTimestampMillisecondsValue) return cellOf(v.millis);
  if (v instanceof DuckDBTimestampSecondsValue) return cellOf(v.seconds);
  if (v instanceof DuckDBTimestampNanosecondsValue) return cellOf(v.nanos);
  if (v instanceof DuckDBTimestampValue || v instanceof DuckDBTimestampTZValue) return cellOf(v.micros);
  if (v instanceof DuckDBDateValue) return v.days;
  if (v instanceof DuckDBDecimalValue) return v.toString();
  if (v instanceof DuckDBBlobValue) return Array.from(v.bytes);
  // Intervals as Arrow displays them (what GreptimeDB's results show); times as integers of their unit.
  if (v instanceof DuckDBIntervalValue) return intervalText({ months: v.months, days: v.days, nanos: v.micros * 1000n });
  if (v instanceof DuckDBTimeValue) return int64Cell(v.micros);
  if (v instanceof DuckDBTimeNSValue) return int64Cell(v.nanos);
  if (v instanceof DuckDBListValue || v instanceof DuckDBArrayValue) return v.items.map(cellOf);
  if (v instanceof DuckDBStructValue) return Object.fromEntries(Object.entries(v.entries).map(([k, x]) => [k, cellOf(x)]));
  return String(v);
}

/** A result's columns as clients see them (DuckDB's `count_star()` is GreptimeDB's `count(*)`). */
export function outputColumns(names: readonly string[], types: readonly DuckDBType[]): OutputColumn[] {
  return names.map((name, i) => ({ name: name === 'count_star()' ? 'count(*)' : name, data_type: dataTypeName(types[i]!) }));
}

/** A converter of one column's values, chosen once per column from its type (the hot path of results). */
function converterFor(t: DuckDBType): (v: DuckDBValue) => Cell {
  switch (t.typeId) {
    case DuckDBTypeId.FLOAT:
      return (v) => (typeof v === 'number' ? shortestFloat32(v) : (v as Cell));
    case DuckDBTypeId.DOUBLE:
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.BOOLEAN:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UTINYINT:
      return (v) => v as Cell;
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
      return (v) => (typeof v === 'bigint' ? int64Cell(v) : (v as Cell));
    case DuckDBTypeId.TIMESTAMP_MS:
      return (v) => (v === null ? null : int64Cell((v as DuckDBTimestampMillisecondsValue).millis));
    case DuckDBTypeId.TIMESTAMP_S:
      return (v) => (v === null ? null : int64Cell((v as DuckDBTimestampSecondsValue).seconds));
    case DuckDBTypeId.TIMESTAMP_NS:
      return (v) => (v === null ? null : int64Cell((v as DuckDBTimestampNanosecondsValue).nanos));
    case DuckDBTypeId.ARRAY:
      // A vector's cell is its stored bytes (float32, little-endian), as GreptimeDB shows them.
      if (isVectorArray(t)) return (v) => (v === null ? null : Array.from(vectorBytes(Float32Array.from((v as DuckDBArrayValue).items as number[]))));
      return cellOf;
    default:
      return cellOf;
  }
}

function isVectorArray(t: DuckDBType): boolean {
  return t.typeId === DuckDBTypeId.ARRAY && (t as unknown as { valueType: DuckDBType }).valueType.typeId === DuckDBTypeId.FLOAT;
}

/**
 * Bytes of the strings (VARCHAR) or blobs (BLOB) of a vector's first `n` items, read from DuckDB's
 * 16-byte string records (length first; NULL items skipped) without making JS values of them — so that a
 * 2 GB string is refused before it is copied. Undefined when the vector is of another kind.
 */
function textBytes(vector: unknown, n: number): number | undefined {
  if (!(vector instanceof DuckDBVarCharVector || vector instanceof DuckDBBlobVector)) return undefined;
  const { dataView: view, validity } = vector as unknown as { dataView?: unknown; validity?: { itemValid?(i: number): boolean } };
  if (!(view instanceof DataView) || view.byteLength < n * 16 || typeof validity?.itemValid !== 'function') return undefined;
  let bytes = 0;
  // A NULL item's record is not written: its length field holds whatever was there.
  for (let i = 0; i < n; i++) if (validity.itemValid(i)) bytes += view.getUint32(i * 16, true);
  // A blob's cell is an array of numbers, one per byte.
  return vector instanceof DuckDBBlobVector ? bytes * CELL_BYTES : bytes;
}

/**
 * Runs `sql` and converts its result chunk by chunk, column by column (a converter per column):
 * several times faster than converting DuckDB's row values one by one. The result is streamed:
 * DuckDB computes the next chunk while the event loop is free, and a result past `limits` fails
 * (RuntimeResourcesExhausted, `resource-limits.ts`) as soon as it passes them, before the rest is
 * computed or copied.
 */
/** A query that failed while its result was read (DuckDB's message is not exposed by node-api then). */
function failedMidStream(): TsdbError {
  return new TsdbError(StatusCode.EngineExecuteQuery, 'the query failed while its result was read (an error of the query on a later row, such as a failed cast, or an interrupt); DuckDB gives no message here');
}

export async function readResult(conn: DuckDBConnection, sql: string, limits: ResultLimits = NO_RESULT_LIMITS): Promise<{ columns: OutputColumn[]; rows: Cell[][] }> {
  const result = await conn.stream(sql);
  const names = result.columnNames();
  const types = result.columnTypes();
  const columns = outputColumns(names, types);
  const converters = types.map(converterFor);
  // Columns whose converted cells are counted one by one (the others: a fixed size per cell).
  const nested = types.map((t) => t.typeId === DuckDBTypeId.LIST || t.typeId === DuckDBTypeId.ARRAY || t.typeId === DuckDBTypeId.STRUCT || t.typeId === DuckDBTypeId.MAP);
  const rows: Cell[][] = [];
  let bytes = 0;
  // What this result holds of the process's pool of result memory (`ResultMemory`).
  let taken = 0;
  const check = () => {
    if (limits.maxBytes > 0 && bytes > limits.maxBytes) throw tooManyBytes(limits.maxBytes);
    if (limits.memory !== undefined && bytes > taken) {
      if (!limits.memory.take(bytes - taken)) throw resultsTooLarge(limits.memory.max);
      taken = bytes;
    }
  };
  try {
    for (;;) {
      const chunk = await result.fetchChunk();
      if (chunk === null || chunk.rowCount === 0) {
        // A query failing mid-stream (a cast of a later row, an interrupt) looks like the end of the
        // result: node-api's fetch_chunk does not report it, DuckDB marks the result invalid. Its
        // rows so far are not the answer.
        if (result.returnType === duckdb.ResultType.INVALID) throw failedMidStream();
        break;
      }
      const n = chunk.rowCount;
      if (limits.maxRows > 0 && rows.length + n > limits.maxRows) throw tooManyRows(limits.maxRows);
      bytes += n * (ROW_BYTES + CELL_BYTES * names.length);
      const vectors = names.map((_, c) => chunk.getColumnVector(c));
      for (const v of vectors) bytes += textBytes(v, n) ?? 0;
      check();
      const base = rows.length;
      for (let r = 0; r < n; r++) rows.push(new Array<Cell>(names.length));
      for (let c = 0; c < names.length; c++) {
        const items = vectors[c]!.toArray();
        const convert = converters[c]!;
        for (let r = 0; r < n; r++) rows[base + r]![c] = convert(items[r]!);
        if (nested[c]) for (let r = 0; r < n; r++) bytes += cellBytes(rows[base + r]![c]);
      }
      check();
    }
  } finally {
    // Given back once read: the answer is then the caller's to send.
    limits.memory?.give(taken);
  }
  return { columns, rows };
}

/** The columns and rows of a materialized result. */
export function convertResult(result: DuckDBResultReader): { columns: OutputColumn[]; rows: Cell[][] } {
  const columns = outputColumns(result.columnNames(), result.columnTypes());
  const rows = result.getRows().map((row) => row.map(cellOf));
  return { columns, rows };
}
