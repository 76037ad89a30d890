/**
 * Query outputs as Arrow record batches, for Flight DoGet. Each tsdb `data_type` has its Arrow type
 * (as GreptimeDB's `ConcreteDataType::as_arrow_type`): Int8..Int64, UInt8..UInt64, Float32/64,
 * Boolean, String → Utf8, Binary, Date → Date32 (days), Timestamp<unit> → Timestamp(unit) without a
 * zone, TimeMicrosecond → Time64(µs), Decimal(p, s) → Decimal128(p, s), Null → Null. Types Arrow
 * cannot take from an Output faithfully (intervals, lists, structs, JSON) go as Utf8: the text the
 * HTTP API shows (lists and structs as JSON). Every field is nullable. Cells are what
 * `query/output.ts` holds: integers as number or bigint, timestamps in their unit, dates as days,
 * decimals as strings, binaries as byte arrays.
 */
import { arrowDataBytes } from '../../query/arrow-output.js';
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
  makeData,
  type Data,
  type DataType,
} from 'apache-arrow';
import type { Cell, OutputColumn } from '../../query/output.js';
import { vectorDimOf } from '../../types/region-metadata.js';

/** Rows per batch (DataFusion's and so GreptimeDB's batch size). */
export const DEFAULT_BATCH_ROWS = 8192;
/** A batch is cut before its estimated size passes this (under the 4 MiB gRPC clients take by default). */
export const DEFAULT_BATCH_BYTES = 2 * 1024 * 1024;

type Kind = 'int' | 'bigint' | 'float' | 'bool' | 'utf8' | 'binary' | 'time' | 'decimal' | 'null' | 'text';

interface ColumnPlan {
  readonly type: DataType;
  readonly kind: Kind;
}

const DECIMAL = /^Decimal\((\d+),\s*(\d+)\)$/;

function plan(dataType: string): ColumnPlan {
  switch (dataType) {
    case 'Int8':
      return { type: new Int8(), kind: 'int' };
    case 'Int16':
      return { type: new Int16(), kind: 'int' };
    case 'Int32':
      return { type: new Int32(), kind: 'int' };
    case 'Int64':
      return { type: new Int64(), kind: 'bigint' };
    case 'UInt8':
      return { type: new Uint8(), kind: 'int' };
    case 'UInt16':
      return { type: new Uint16(), kind: 'int' };
    case 'UInt32':
      return { type: new Uint32(), kind: 'int' };
    case 'UInt64':
      return { type: new Uint64(), kind: 'bigint' };
    case 'Float32':
      return { type: new Float32(), kind: 'float' };
    case 'Float64':
      return { type: new Float64(), kind: 'float' };
    case 'Boolean':
      return { type: new Bool(), kind: 'bool' };
    case 'String':
    case 'Json':
      return { type: new Utf8(), kind: 'utf8' };
    case 'Binary':
      return { type: new Binary(), kind: 'binary' };
    case 'Date':
      return { type: new DateDay(), kind: 'int' };
    case 'TimestampSecond':
      return { type: new TimestampSecond(), kind: 'bigint' };
    case 'TimestampMillisecond':
      return { type: new TimestampMillisecond(), kind: 'bigint' };
    case 'TimestampMicrosecond':
      return { type: new TimestampMicrosecond(), kind: 'bigint' };
    case 'TimestampNanosecond':
      return { type: new TimestampNanosecond(), kind: 'bigint' };
    case 'TimeMicrosecond':
      return { type: new TimeMicrosecond(), kind: 'time' };
    case 'Null':
      return { type: new Null(), kind: 'null' };
    default: {
      if (vectorDimOf(dataType) !== undefined) return { type: new Binary(), kind: 'binary' };
      const d = DECIMAL.exec(dataType);
      if (d) {
        const precision = Number(d[1]);
        const scale = Number(d[2]);
        if (precision >= 1 && precision <= 38 && scale <= precision) return { type: new Decimal(scale, precision, 128), kind: 'decimal' };
      }
      return { type: new Utf8(), kind: 'text' };
    }
  }
}

/** The Arrow schema of a result's columns. */
export function arrowSchemaOf(columns: readonly OutputColumn[]): Schema {
  return new Schema(columns.map((c) => new Field(c.name, plan(c.data_type).type, true)));
}

/**
 * The rows of a result as record batches of `schema` (from arrowSchemaOf), at most `maxRows` rows
 * and about `maxBytes` each; lazily, so that a caller can stop between batches.
 */
export function* arrowBatches(
  schema: Schema,
  columns: readonly OutputColumn[],
  rows: ReadonlyArray<readonly Cell[]>,
  opts: { maxRows?: number; maxBytes?: number } = {},
): Generator<RecordBatch> {
  const maxRows = Math.max(1, opts.maxRows ?? DEFAULT_BATCH_ROWS);
  const maxBytes = Math.max(1, opts.maxBytes ?? DEFAULT_BATCH_BYTES);
  const plans = columns.map((c) => plan(c.data_type));
  const fixedRowBytes = plans.reduce((n, p) => n + (p.kind === 'decimal' ? 16 : 8), 0);
  const variable = plans.flatMap((p, i) => (p.kind === 'utf8' || p.kind === 'binary' || p.kind === 'text' ? [i] : []));
  let start = 0;
  while (start < rows.length) {
    let end = start;
    let bytes = 0;
    while (end < rows.length && end - start < maxRows) {
      let rowBytes = fixedRowBytes;
      const row = rows[end]!;
      for (const c of variable) rowBytes += approxCellBytes(row[c] ?? null);
      if (end > start && bytes + rowBytes > maxBytes) break;
      bytes += rowBytes;
      end++;
    }
    yield batchOf(schema, plans, rows, start, end);
    start = end;
  }
}

function approxCellBytes(cell: Cell): number {
  if (typeof cell === 'string') return cell.length * 3;
  if (Array.isArray(cell)) return cell.length * 4;
  return 8;
}

function batchOf(schema: Schema, plans: readonly ColumnPlan[], rows: ReadonlyArray<readonly Cell[]>, start: number, end: number): RecordBatch {
  const length = end - start;
  const children = plans.map((p, c) => columnData(p, rows, c, start, end));
  const data = makeData({ type: new Struct(schema.fields), length, nullCount: 0, children });
  return new RecordBatch(schema, data);
}

/** A validity bitmap builder: all valid until a NULL is set. */
class Validity {
  bitmap: Uint8Array | undefined;
  nulls = 0;
  constructor(private readonly length: number) {}
  setNull(i: number): void {
    if (this.bitmap === undefined) this.bitmap = new Uint8Array((this.length + 7) >> 3).fill(0xff);
    this.bitmap[i >> 3]! &= ~(1 << (i & 7));
    this.nulls++;
  }
}

function columnData(p: ColumnPlan, rows: ReadonlyArray<readonly Cell[]>, c: number, start: number, end: number): Data {
  const length = end - start;
  const v = new Validity(length);
  const common = () => ({ type: p.type, length, nullCount: v.nulls, nullBitmap: v.nulls > 0 ? v.bitmap : undefined });
  switch (p.kind) {
    case 'null':
      return makeData({ type: p.type as Null, length });
    case 'int':
    case 'float': {
      const data = new (p.type as unknown as { ArrayType: new (n: number) => Int32Array | Float64Array }).ArrayType(length);
      for (let i = 0; i < length; i++) {
        const cell = rows[start + i]![c] ?? null;
        if (cell === null) v.setNull(i);
        else data[i] = Number(cell);
      }
      return makeData({ ...common(), data } as never);
    }
    case 'bigint': {
      const unsigned = p.type instanceof Uint64;
      const data = unsigned ? new BigUint64Array(length) : new BigInt64Array(length);
      // Numbers (what most cells are) go in as two 32-bit halves, without making a BigInt each.
      const words = new Uint32Array(data.buffer);
      for (let i = 0; i < length; i++) {
        const cell = rows[start + i]![c] ?? null;
        if (cell === null) v.setNull(i);
        else if (typeof cell === 'number' && Number.isSafeInteger(cell)) {
          const hi = Math.floor(cell / 4294967296);
          words[2 * i] = cell - hi * 4294967296;
          words[2 * i + 1] = hi >>> 0;
        } else data[i] = BigInt(cell as number | bigint);
      }
      return makeData({ ...common(), data } as never);
    }
    case 'bool': {
      const data = new Uint8Array((length + 7) >> 3);
      for (let i = 0; i < length; i++) {
        const cell = rows[start + i]![c] ?? null;
        if (cell === null) v.setNull(i);
        else if (cell === true) data[i >> 3]! |= 1 << (i & 7);
      }
      return makeData({ ...common(), data } as never);
    }
    case 'time': {
      const data = new BigInt64Array(length);
      for (let i = 0; i < length; i++) {
        const cell = rows[start + i]![c] ?? null;
        const micros = cell === null ? undefined : timeMicros(cell);
        if (micros === undefined) v.setNull(i);
        else data[i] = micros;
      }
      return makeData({ ...common(), data } as never);
    }
    case 'decimal': {
      const scale = (p.type as Decimal).scale;
      const data = new Uint32Array(length * 4);
      for (let i = 0; i < length; i++) {
        const cell = rows[start + i]![c] ?? null;
        const unscaled = cell === null ? undefined : decimalUnscaled(cell, scale);
        if (unscaled === undefined) v.setNull(i);
        else writeInt128(data, i * 4, unscaled);
      }
      return makeData({ ...common(), data } as never);
    }
    case 'utf8':
    case 'text': {
      // Two passes over the strings: their UTF-8 lengths, then written into one buffer.
      const texts: (string | undefined)[] = new Array(length);
      const valueOffsets = new Int32Array(length + 1);
      let total = 0;
      for (let i = 0; i < length; i++) {
        const cell = rows[start + i]![c] ?? null;
        if (cell === null) v.setNull(i);
        else {
          const text = typeof cell === 'string' ? cell : textOf(cell);
          texts[i] = text;
          total += Buffer.byteLength(text, 'utf8');
        }
        valueOffsets[i + 1] = total;
      }
      const data = Buffer.allocUnsafe(total);
      for (let i = 0; i < length; i++) {
        const text = texts[i];
        if (text !== undefined && text.length > 0) data.write(text, valueOffsets[i]!, 'utf8');
      }
      return makeData({ ...common(), valueOffsets, data } as never);
    }
    case 'binary': {
      const encoded: (Uint8Array | undefined)[] = new Array(length);
      let total = 0;
      for (let i = 0; i < length; i++) {
        const cell = rows[start + i]![c] ?? null;
        if (cell === null) {
          v.setNull(i);
          continue;
        }
        const bytes = binaryOf(cell);
        encoded[i] = bytes;
        total += bytes.byteLength;
      }
      const valueOffsets = new Int32Array(length + 1);
      const data = new Uint8Array(total);
      let at = 0;
      for (let i = 0; i < length; i++) {
        const bytes = encoded[i];
        if (bytes !== undefined) {
          data.set(bytes, at);
          at += bytes.byteLength;
        }
        valueOffsets[i + 1] = at;
      }
      return makeData({ ...common(), valueOffsets, data } as never);
    }
  }
}

/** A cell of a type Arrow gets as text: strings as they are, anything else as JSON. */
function textOf(cell: Cell): string {
  if (typeof cell === 'string') return cell;
  return JSON.stringify(cell, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
}

function binaryOf(cell: Cell): Uint8Array {
  if (cell instanceof Uint8Array) return cell;
  if (Array.isArray(cell)) return Uint8Array.from(cell as number[]);
  return Buffer.from(textOf(cell), 'utf8');
}

/** `HH:MM:SS[.ffffff]` (or a number of microseconds) as microseconds since midnight. */
function timeMicros(cell: Cell): bigint | undefined {
  if (typeof cell === 'number' || typeof cell === 'bigint') return BigInt(cell);
  if (typeof cell !== 'string') return undefined;
  const m = /^(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(cell);
  if (!m) return undefined;
  const frac = BigInt((m[4] ?? '').padEnd(6, '0').slice(0, 6));
  return ((BigInt(m[1]!) * 60n + BigInt(m[2]!)) * 60n + BigInt(m[3]!)) * 1_000_000n + frac;
}

/** A decimal's text (`-12.345`) as an integer scaled by 10^scale. */
function decimalUnscaled(cell: Cell, scale: number): bigint | undefined {
  const text = typeof cell === 'string' ? cell.trim() : typeof cell === 'number' || typeof cell === 'bigint' ? String(cell) : undefined;
  if (text === undefined) return undefined;
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const frac = (m[3] ?? '').padEnd(scale, '0').slice(0, scale);
  const v = BigInt(`${m[2] || '0'}${frac}` || '0');
  return m[1] === '-' ? -v : v;
}

/** A 128-bit two's complement integer, little-endian words. */
function writeInt128(words: Uint32Array, at: number, v: bigint): void {
  let x = BigInt.asUintN(128, v);
  for (let k = 0; k < 4; k++) {
    words[at + k] = Number(x & 0xffffffffn);
    x >>= 32n;
  }
}


/**
 * Record batches cut to at most `maxRows` rows and about `maxBytes` bytes each (by their average row
 * size), so that each fits a client's message limit; batches within both pass unchanged.
 */
export function* cutBatches(batches: readonly RecordBatch[], opts: { maxRows?: number; maxBytes?: number } = {}): Generator<RecordBatch> {
  const maxRows = Math.max(1, opts.maxRows ?? DEFAULT_BATCH_ROWS);
  const maxBytes = Math.max(1, opts.maxBytes ?? DEFAULT_BATCH_BYTES);
  for (const batch of batches) {
    const n = batch.numRows;
    const bytes = arrowDataBytes(batch.data);
    if (n <= maxRows && bytes <= maxBytes) {
      yield batch;
      continue;
    }
    const step = Math.max(1, Math.min(maxRows, Math.floor((n * maxBytes) / Math.max(1, bytes))));
    for (let start = 0; start < n; start += step) yield batch.slice(start, Math.min(n, start + step));
  }
}
