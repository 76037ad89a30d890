/**
 * A query's whole result as Arrow record batches (`Output.arrow`), for Flight DoGet: read with
 * `queryArrow` (DuckDB's vectors copied in bulk, no JavaScript value per cell), under the same
 * result limits as `readResult` (rows, bytes, the shared pool of result memory), and shaped as the
 * row path shows the same columns: HUGEINT (DuckDB's `sum` of integers) as Int64, TIMESTAMP WITH
 * TIME ZONE as Timestamp(µs) without a zone. A result with a column the Arrow path has no type for
 * (intervals, lists, structs, …) is left to the row path.
 */
import { Field, Int64, makeData, RecordBatch, Schema, Struct, TimestampMicrosecond, Type, type Data, type DataType } from 'apache-arrow';
import type { DuckDBConnection } from '@duckdb/node-api';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { isArrowTypeUnsupported, queryArrow } from './arrow-result.js';
import { DUCKDB_TYPE_KEY } from './arrow-scan-function.js';
import type { OutputColumn } from './output.js';
import { NO_RESULT_LIMITS, resultsTooLarge, tooManyBytes, tooManyRows, type ResultLimits } from './resource-limits.js';

const TIME_UNITS = ['Second', 'Millisecond', 'Microsecond', 'Nanosecond'];

/** The tsdb type name (`OutputColumn.data_type`) of an Arrow type the row path would give the column. */
function dataTypeOf(t: DataType): string {
  switch (t.typeId) {
    case Type.Bool:
      return 'Boolean';
    case Type.Int: {
      const { bitWidth, isSigned } = t as unknown as { bitWidth: number; isSigned: boolean };
      return `${isSigned ? 'Int' : 'UInt'}${bitWidth}`;
    }
    case Type.Float: {
      const precision = (t as unknown as { precision: number }).precision;
      return precision === 1 ? 'Float32' : 'Float64';
    }
    case Type.Utf8:
      return 'String';
    case Type.Binary:
      return 'Binary';
    case Type.Date:
      return 'Date';
    case Type.Timestamp:
      return `Timestamp${TIME_UNITS[(t as unknown as { unit: number }).unit]}`;
    case Type.Time:
      return 'TimeMicrosecond';
    case Type.Decimal: {
      const { precision, scale } = t as unknown as { precision: number; scale: number };
      return `Decimal(${precision}, ${scale})`;
    }
    default:
      return 'Null';
  }
}

/** Bytes the buffers of `data` hold (a slice counts its whole buffers). */
export function arrowDataBytes(data: Data): number {
  let n = (data.values as ArrayBufferView | undefined)?.byteLength ?? 0;
  n += data.valueOffsets?.byteLength ?? 0;
  n += data.nullBitmap?.byteLength ?? 0;
  for (const c of data.children) n += arrowDataBytes(c);
  return n;
}

/**
 * HUGEINT values (Decimal128(38, 0), little-endian 128-bit) as Int64 data; a value beyond 64 bits
 * fails as the row path fails on it.
 */
function hugeintToInt64(data: Data, name: string): Data {
  const words = data.values as Uint32Array;
  const pairs = new BigInt64Array(words.buffer, words.byteOffset, words.length / 2);
  const out = new BigInt64Array(data.length);
  for (let i = 0; i < data.length; i++) {
    const j = (data.offset + i) * 2;
    const low = pairs[j]!;
    const high = pairs[j + 1]!;
    // The value fits 64 bits when its high word is the sign extension of its low one.
    if (high !== (low < 0n ? -1n : 0n) && (data.nullBitmap === undefined || data.nullCount === 0 || ((data.nullBitmap[(data.offset + i) >> 3]! >> ((data.offset + i) & 7)) & 1) === 1)) {
      throw new TsdbError(StatusCode.InvalidArguments, `the value of column ${name} in row ${i} does not fit a 64-bit integer`);
    }
    out[i] = low;
  }
  return makeData({ type: new Int64(), length: data.length, nullCount: data.nullCount, nullBitmap: data.nullBitmap, offset: 0, data: out } as never);
}

/**
 * Runs `sql` and reads its whole result as Arrow record batches; undefined (nothing read) when a
 * column has no Arrow type on this path: the caller reads it as rows instead.
 */
export async function readArrowResult(
  conn: DuckDBConnection,
  sql: string,
  limits: ResultLimits = NO_RESULT_LIMITS,
  signal?: AbortSignal,
): Promise<{ columns: OutputColumn[]; schema: Schema; batches: RecordBatch[] } | undefined> {
  let stream;
  try {
    stream = await queryArrow(conn, sql, { ...(signal !== undefined && { signal }) });
  } catch (err) {
    // queryArrow refuses a result of other types before it runs.
    if (isArrowTypeUnsupported(err)) return undefined;
    throw err;
  }
  const fields = stream.schema.fields;
  const huge = fields.map((f) => f.metadata.get(DUCKDB_TYPE_KEY) === 'HUGEINT');
  const zoned = fields.map((f) => f.type.typeId === Type.Timestamp && ((f.type as unknown as { timezone?: string | null }).timezone ?? null) !== null);
  const reshape = huge.some(Boolean) || zoned.some(Boolean);
  const schema = reshape
    ? new Schema(fields.map((f, i) => (huge[i] ? new Field(f.name, new Int64(), true) : zoned[i] ? new Field(f.name, new TimestampMicrosecond(), true) : f)))
    : stream.schema;
  const batches: RecordBatch[] = [];
  let rows = 0;
  let bytes = 0;
  let taken = 0;
  try {
    for await (const b of stream.batches) {
      rows += b.numRows;
      if (limits.maxRows > 0 && rows > limits.maxRows) throw tooManyRows(limits.maxRows);
      bytes += arrowDataBytes(b.data);
      if (limits.maxBytes > 0 && bytes > limits.maxBytes) throw tooManyBytes(limits.maxBytes);
      if (limits.memory !== undefined && bytes > taken) {
        if (!limits.memory.take(bytes - taken)) throw resultsTooLarge(limits.memory.max);
        taken = bytes;
      }
      if (!reshape) {
        batches.push(b);
        continue;
      }
      const children = (b.data.children as Data[]).map((c, i) => (huge[i] ? hugeintToInt64(c, fields[i]!.name) : zoned[i] ? c.clone(new TimestampMicrosecond()) : c));
      batches.push(new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: b.numRows, nullCount: 0, children })));
    }
  } catch (err) {
    await stream.batches.return?.();
    throw err;
  } finally {
    // Given back once read, as readResult does: the answer is then the caller's to send.
    limits.memory?.give(taken);
  }
  return { columns: schema.fields.map((f) => ({ name: f.name, data_type: f.metadata.get(DUCKDB_TYPE_KEY) === 'JSON' ? 'Json' : dataTypeOf(f.type) })), schema, batches };
}
