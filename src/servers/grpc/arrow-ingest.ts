/**
 * Arrow record batches (Flight DoPut) as rows for an existing table: the columns of the batch are
 * matched to the table's by name, each of an Arrow type that holds the column's type exactly
 * (Int32 for Int32, Timestamp(ms) for TimestampMillisecond, Utf8 or LargeUtf8 for String, …); an
 * unknown column, a type that differs or a missing time index refuses the upload before anything
 * is written. String columns also take dictionary-encoded strings. Columns of the table that the batch lacks are written as their default (NULL).
 */
import { DataType, DateUnit, type Data, type Field, type RecordBatch, type Schema, TimeUnit } from 'apache-arrow';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Vector } from '../../types/write-batch.js';
import { decimalOf, type ColumnType } from '../../types/region-metadata.js';
import { unscaledText } from '../../types/decimal.js';
import type { IngestColumn, IngestTable } from '../../frontend/ingest-request.js';
import type { TableSummary } from '../../frontend/table-summary.js';

type Reader = (data: Data, rows: number) => Vector;

interface PlannedColumn {
  readonly index: number;
  readonly name: string;
  readonly semantic: IngestColumn['semantic'];
  readonly type: ColumnType;
  readonly read: Reader;
}

/** How the columns of an upload's schema go into a table. */
export interface IngestPlan {
  readonly table: string;
  readonly columns: readonly PlannedColumn[];
}

const TIMESTAMP_UNITS: Partial<Record<string, TimeUnit>> = {
  TimestampSecond: TimeUnit.SECOND,
  TimestampMillisecond: TimeUnit.MILLISECOND,
  TimestampMicrosecond: TimeUnit.MICROSECOND,
  TimestampNanosecond: TimeUnit.NANOSECOND,
};

const INT_TYPES: Partial<Record<string, { bits: number; signed: boolean }>> = {
  Int8: { bits: 8, signed: true },
  Int16: { bits: 16, signed: true },
  Int32: { bits: 32, signed: true },
  Int64: { bits: 64, signed: true },
  UInt8: { bits: 8, signed: false },
  UInt16: { bits: 16, signed: false },
  UInt32: { bits: 32, signed: false },
  UInt64: { bits: 64, signed: false },
};

/** The reader of an Arrow type into a column of `type`, or undefined when the type does not hold it. */
function readerFor(type: ColumnType, arrow: DataType): Reader | undefined {
  const int = INT_TYPES[type];
  if (int !== undefined) {
    if (!DataType.isInt(arrow) || arrow.bitWidth !== int.bits || arrow.isSigned !== int.signed) return undefined;
    if (int.bits < 64) return readFloat64;
    return int.signed ? readInt64 : readUint64;
  }
  const unit = TIMESTAMP_UNITS[type];
  if (unit !== undefined) return DataType.isTimestamp(arrow) && arrow.unit === unit ? readInt64 : undefined;
  const decimal = decimalOf(type);
  if (decimal !== undefined) {
    // Arrow's Decimal128 of the column's scale; a value beyond the column's precision is refused.
    return DataType.isDecimal(arrow) && arrow.bitWidth === 128 && arrow.scale === decimal.scale ? decimalReader(decimal.precision, decimal.scale) : undefined;
  }
  switch (type) {
    case 'Float32':
    case 'Float64':
      return DataType.isFloat(arrow) && arrow.precision === (type === 'Float32' ? 1 : 2) ? readFloat64 : undefined;
    case 'Boolean':
      return DataType.isBool(arrow) ? readBool : undefined;
    case 'String':
      if (DataType.isDictionary(arrow)) return DataType.isUtf8(arrow.dictionary) || DataType.isLargeUtf8(arrow.dictionary) ? readDictionaryString : undefined;
      return DataType.isUtf8(arrow) || DataType.isLargeUtf8(arrow) ? readString : undefined;
    case 'Json':
      // JSON text; each value is checked and made canonical where the rows are written.
      return DataType.isUtf8(arrow) || DataType.isLargeUtf8(arrow) ? readString : undefined;
    case 'Binary':
      return DataType.isBinary(arrow) || DataType.isLargeBinary(arrow) ? readBinary : undefined;
    case 'Date':
      return DataType.isDate(arrow) && arrow.unit === DateUnit.DAY ? readFloat64 : undefined;
    default:
      return undefined;
  }
}

/** Checks an upload's schema against the table and plans the conversion of its batches. */
export function planIngest(schema: Schema, table: TableSummary): IngestPlan {
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  const seen = new Set<string>();
  const columns: PlannedColumn[] = [];
  schema.fields.forEach((field: Field, index) => {
    const column = byName.get(field.name);
    if (column === undefined) {
      throw new TsdbError(StatusCode.TableColumnNotFound, `Column ${field.name} not found in table ${table.name} (its columns: ${table.columns.map((c) => c.name).join(', ')})`);
    }
    if (seen.has(field.name)) throw new TsdbError(StatusCode.InvalidArguments, `Column ${field.name} appears twice in the uploaded schema`);
    seen.add(field.name);
    const read = readerFor(column.type as ColumnType, field.type);
    if (read === undefined) {
      throw new TsdbError(
        StatusCode.InvalidArguments,
        `Column ${field.name} of table ${table.name} is ${column.type}; the uploaded Arrow type ${String(field.type)} does not hold it (expected ${expectedArrowType(column.type)})`,
      );
    }
    columns.push({ index, name: field.name, semantic: column.semantic, type: column.type as ColumnType, read });
  });
  const timeIndex = table.columns.find((c) => c.semantic === 'timestamp');
  if (timeIndex !== undefined && !seen.has(timeIndex.name)) {
    throw new TsdbError(StatusCode.InvalidArguments, `The uploaded schema lacks the time index column ${timeIndex.name} of table ${table.name}`);
  }
  return { table: table.name, columns };
}

function expectedArrowType(type: string): string {
  const decimal = decimalOf(type as ColumnType);
  if (decimal !== undefined) return `Decimal128(${decimal.precision}, ${decimal.scale})`;
  const unit = TIMESTAMP_UNITS[type];
  if (unit !== undefined) return `Timestamp<${TimeUnit[unit]}>`;
  switch (type) {
    case 'String':
      return 'Utf8';
    case 'Date':
      return 'Date32<DAY>';
    case 'Boolean':
      return 'Bool';
    default:
      return type.replace(/^UInt/, 'Uint');
  }
}

/** The rows of one batch, ready for IngestHandler.ingest. */
export function ingestTableOf(plan: IngestPlan, batch: RecordBatch): IngestTable {
  const rows = batch.numRows;
  const columns = plan.columns.map((c): IngestColumn => {
    const data = batch.data.children[c.index]!;
    const vector = c.read(data, rows);
    if (c.semantic === 'timestamp' && data.nullCount > 0) {
      let row = 0;
      while (row < rows && data.getValid(row)) row++;
      throw new TsdbError(StatusCode.InvalidArguments, `Time index column ${c.name} is NULL in row ${row} of the batch`);
    }
    return { name: c.name, semantic: c.semantic, type: c.type, vector };
  });
  return { name: plan.table, rowCount: rows, columns };
}

function validity(data: Data, rows: number): Uint8Array | undefined {
  if (data.nullCount <= 0) return undefined;
  const valid = new Uint8Array(rows);
  for (let i = 0; i < rows; i++) valid[i] = data.getValid(i) ? 1 : 0;
  return valid;
}

function withValid<V extends Vector>(v: V, valid: Uint8Array | undefined): V {
  return valid === undefined ? v : ({ ...v, valid } as V);
}

const readFloat64: Reader = (data, rows) => {
  const values = data.values as ArrayLike<number>;
  const out = new Float64Array(rows);
  for (let i = 0; i < rows; i++) out[i] = values[i]!;
  return withValid({ type: 'float64', data: out }, validity(data, rows));
};

const readInt64: Reader = (data, rows) => {
  const values = data.values as BigInt64Array;
  return withValid({ type: 'int64', data: BigInt64Array.from(values.subarray(0, rows)) }, validity(data, rows));
};

const readUint64: Reader = (data, rows) => {
  const values = data.values as BigUint64Array;
  return withValid({ type: 'uint64', data: BigUint64Array.from(values.subarray(0, rows)) }, validity(data, rows));
};

const readBool: Reader = (data, rows) => {
  const bits = data.values as Uint8Array;
  const out = new Uint8Array(rows);
  for (let i = 0; i < rows; i++) {
    const bit = data.offset + i;
    out[i] = (bits[bit >> 3]! >> (bit & 7)) & 1;
  }
  return withValid({ type: 'bool', data: out }, validity(data, rows));
};

/** Decimal128 values (four little-endian 32-bit words each) as the canonical text of `scale` (types/decimal.ts). */
function decimalReader(precision: number, scale: number): Reader {
  const limit = 10n ** BigInt(precision);
  return (data, rows) => {
    const words = data.values as Uint32Array;
    const out: (string | null)[] = new Array(rows);
    const checkNulls = data.nullCount > 0;
    for (let i = 0; i < rows; i++) {
      if (checkNulls && !data.getValid(i)) {
        out[i] = null;
        continue;
      }
      const w = i * 4;
      const v = BigInt.asIntN(128, (BigInt(words[w + 3]!) << 96n) | (BigInt(words[w + 2]!) << 64n) | (BigInt(words[w + 1]!) << 32n) | BigInt(words[w]!));
      const abs = v < 0n ? -v : v;
      if (abs >= limit) throw new TsdbError(StatusCode.InvalidArguments, `Decimal value ${v} (unscaled) does not fit DECIMAL(${precision}, ${scale})`);
      out[i] = unscaledText(v, scale);
    }
    return { type: 'string', data: out };
  };
}

function offsetsOf(data: Data): ArrayLike<number | bigint> {
  return data.valueOffsets as ArrayLike<number | bigint>;
}

const readString: Reader = (data, rows) => {
  const offsets = offsetsOf(data);
  const bytes = data.values as Uint8Array;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: (string | null)[] = new Array(rows);
  const checkNulls = data.nullCount > 0;
  for (let i = 0; i < rows; i++) {
    out[i] = checkNulls && !data.getValid(i) ? null : buf.toString('utf8', Number(offsets[i]!), Number(offsets[i + 1]!));
  }
  return { type: 'string', data: out };
};

/** Dictionary-encoded strings (pyarrow's `dictionary_encode()`, Arrow's categorical columns). */
const readDictionaryString: Reader = (data, rows) => {
  const dictionary = data.dictionary;
  if (dictionary === undefined) throw new TsdbError(StatusCode.InvalidArguments, 'A dictionary-encoded column came without its dictionary batch');
  const words: (string | null)[] = dictionary.toArray() as (string | null)[];
  const keys = data.values as ArrayLike<number | bigint>;
  const out: (string | null)[] = new Array(rows);
  const checkNulls = data.nullCount > 0;
  for (let i = 0; i < rows; i++) {
    if (checkNulls && !data.getValid(i)) {
      out[i] = null;
      continue;
    }
    const key = Number(keys[i]!);
    if (!(key >= 0 && key < words.length)) throw new TsdbError(StatusCode.InvalidArguments, `Dictionary key ${key} is out of range (the dictionary has ${words.length} entries)`);
    out[i] = words[key] ?? null;
  }
  return { type: 'string', data: out };
};

const readBinary: Reader = (data, rows) => {
  const offsets = offsetsOf(data);
  const bytes = data.values as Uint8Array;
  const out: (Uint8Array | null)[] = new Array(rows);
  const checkNulls = data.nullCount > 0;
  for (let i = 0; i < rows; i++) {
    out[i] = checkNulls && !data.getValid(i) ? null : bytes.slice(Number(offsets[i]!), Number(offsets[i + 1]!));
  }
  return { type: 'binary', data: out };
};
