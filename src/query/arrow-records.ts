/**
 * An answer received as Arrow record batches (a region's answer to a query run whole there,
 * `TableSource.pushdown`) as output rows, without a second DuckDB query over it: the same column
 * types and cells `readResult` gives for the DuckDB types `queryArrow` sent them as. A per-query
 * cost of a cluster's frontend (publishing the batches, planning and running a query over them,
 * reading its chunks) is then a loop over typed arrays. Columns of the types below only; any other
 * (times, blobs, intervals, lists…) leaves the answer to DuckDB (`arrowRecords` gives undefined).
 * `readRecords` reads a query's own result this way: DuckDB's vectors copied in bulk to Arrow, then
 * converted column by column, about twice as fast as `readResult`'s value per cell.
 */
import { DateUnit, Type, type Data, type Date_ as DateType, type Field, type RecordBatch, type Schema, type Timestamp, TimeUnit } from 'apache-arrow';
import type { DuckDBConnection } from '@duckdb/node-api';
import { shortestFloat32 } from '../common/float32.js';
import type { RegionQueryStream } from '../types/region-server.js';
import { isArrowTypeUnsupported, queryArrow } from './arrow-result.js';
import { readResult } from './result-conversion.js';
import { DUCKDB_TYPE_KEY } from './arrow-scan-function.js';
import type { ArrowRows, Cell, OutputColumn } from './output.js';
import { CELL_BYTES, NO_RESULT_LIMITS, resultsTooLarge, ROW_BYTES, tooManyBytes, tooManyRows, type ResultLimits } from './resource-limits.js';

/**
 * Writes column `c` of rows `base`… from one batch's data of it (its `length` rows, its offset
 * applied); NULLs are written afterwards by the caller.
 */
type ColumnFill = (rows: Cell[][], base: number, c: number, d: Data) => void;

interface ColumnPlan {
  readonly dataType: string;
  readonly fill: ColumnFill;
  /** Whether its cells are strings (their bytes count against the limits). */
  readonly text: boolean;
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function safeInteger(v: bigint): number | bigint {
  return v >= MIN_SAFE && v <= MAX_SAFE ? Number(v) : v;
}

const numbers: ColumnFill = (rows, base, c, d) => {
  const values = d.values as ArrayLike<number>;
  for (let r = 0, at = d.offset; r < d.length; r++, at++) rows[base + r]![c] = values[at]!;
};
// A float32 as its shortest decimal (`0.04`), as GreptimeDB shows a FLOAT.
const float32s: ColumnFill = (rows, base, c, d) => {
  const values = d.values as Float32Array;
  for (let r = 0, at = d.offset; r < d.length; r++, at++) rows[base + r]![c] = shortestFloat32(values[at]!);
};
const int64s: ColumnFill = (rows, base, c, d) => {
  const values = d.values as BigInt64Array | BigUint64Array;
  for (let r = 0, at = d.offset; r < d.length; r++, at++) rows[base + r]![c] = safeInteger(values[at]!);
};
const bools: ColumnFill = (rows, base, c, d) => {
  const bits = d.values as Uint8Array;
  for (let r = 0, at = d.offset; r < d.length; r++, at++) rows[base + r]![c] = (bits[at >> 3]! & (1 << (at & 7))) !== 0;
};
const nulls: ColumnFill = (rows, base, c, d) => {
  for (let r = 0; r < d.length; r++) rows[base + r]![c] = null;
};
/** A HUGEINT as `queryArrow` sends it: Decimal128(38, 0), four little-endian 32-bit words. */
const hugeints: ColumnFill = (rows, base, c, d) => {
  const w = d.values as Uint32Array;
  for (let r = 0, at = d.offset * 4; r < d.length; r++, at += 4) {
    const v = (BigInt(w[at + 3]!) << 96n) | (BigInt(w[at + 2]!) << 64n) | (BigInt(w[at + 1]!) << 32n) | BigInt(w[at]!);
    rows[base + r]![c] = safeInteger(BigInt.asIntN(128, v));
  }
};
/** Entries of a string column's table of values already decoded (a power of two). */
const STRING_SLOTS = 256;
/** Longest value looked up in that table: longer ones are decoded each time. */
const STRING_LOOKUP_BYTES = 64;

/**
 * Strings, decoded once per distinct value of a batch's column as far as a small table of recent
 * values (by a hash of the bytes, compared byte for byte) holds them: a result's tag columns repeat
 * a few values, and a JS loop over a short value's bytes costs less than decoding it again.
 */
const strings: ColumnFill = (rows, base, c, d) => {
  const offsets = d.valueOffsets as Int32Array;
  const values = d.values as Uint8Array;
  const buf = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  const starts = new Int32Array(STRING_SLOTS).fill(-1);
  const ends = new Int32Array(STRING_SLOTS);
  const texts = new Array<string>(STRING_SLOTS);
  for (let r = 0, at = d.offset; r < d.length; r++, at++) {
    const start = offsets[at]!;
    const end = offsets[at + 1]!;
    const len = end - start;
    if (len > STRING_LOOKUP_BYTES) {
      rows[base + r]![c] = buf.toString('utf8', start, end);
      continue;
    }
    // FNV-1a over the bytes.
    let h = 0x811c9dc5;
    for (let k = start; k < end; k++) h = Math.imul(h ^ values[k]!, 0x01000193);
    const slot = (h ^ (h >>> 16)) & (STRING_SLOTS - 1);
    const s0 = starts[slot]!;
    if (s0 >= 0 && ends[slot]! - s0 === len) {
      let same = true;
      for (let k = 0; k < len; k++) {
        if (values[s0 + k] !== values[start + k]) {
          same = false;
          break;
        }
      }
      if (same) {
        rows[base + r]![c] = texts[slot]!;
        continue;
      }
    }
    const text = buf.toString('utf8', start, end);
    starts[slot] = start;
    ends[slot] = end;
    texts[slot] = text;
    rows[base + r]![c] = text;
  }
};

const TIMESTAMP_NAMES: Record<TimeUnit, string> = {
  [TimeUnit.SECOND]: 'TimestampSecond',
  [TimeUnit.MILLISECOND]: 'TimestampMillisecond',
  [TimeUnit.MICROSECOND]: 'TimestampMicrosecond',
  [TimeUnit.NANOSECOND]: 'TimestampNanosecond',
};

/** Decimal128 values as the row path writes DuckDB's decimals: digits with `scale` of them after the point. */
function decimals(scale: number): ColumnFill {
  const unit = 10n ** BigInt(scale);
  return (rows, base, c, d) => {
    const w = d.values as Uint32Array;
    for (let r = 0, at = d.offset * 4; r < d.length; r++, at += 4) {
      const v = BigInt.asIntN(128, (BigInt(w[at + 3]!) << 96n) | (BigInt(w[at + 2]!) << 64n) | (BigInt(w[at + 1]!) << 32n) | BigInt(w[at]!));
      if (scale === 0) {
        rows[base + r]![c] = v.toString();
        continue;
      }
      const abs = v < 0n ? -v : v;
      rows[base + r]![c] = `${v < 0n ? '-' : ''}${abs / unit}.${(abs % unit).toString().padStart(scale, '0')}`;
    }
  };
}

/** How one field is output, or undefined when DuckDB should read it. */
function planOf(field: Field): ColumnPlan | undefined {
  const t = field.type;
  const plain = (dataType: string, fill: ColumnFill): ColumnPlan => ({ dataType, fill, text: false });
  switch (t.typeId) {
    case Type.Bool:
      return plain('Boolean', bools);
    case Type.Int: {
      const { bitWidth, isSigned } = t as { bitWidth: number; isSigned: boolean };
      return plain(`${isSigned ? 'Int' : 'UInt'}${bitWidth}`, bitWidth === 64 ? int64s : numbers);
    }
    case Type.Float:
      return (t as { precision: number }).precision === 2 ? plain('Float64', numbers) : plain('Float32', float32s);
    case Type.Utf8:
      // DuckDB's JSON (`queryArrow` marks it): a JSON column's canonical text, shown as Json.
      return { dataType: field.metadata.get(DUCKDB_TYPE_KEY) === 'JSON' ? 'Json' : 'String', fill: strings, text: true };
    case Type.Date:
      return (t as DateType).unit === DateUnit.DAY ? plain('Date', numbers) : undefined;
    case Type.Timestamp: {
      const ts = t as Timestamp;
      // TIMESTAMPTZ comes as µs since the epoch in UTC, which the row path gives it as.
      if (ts.timezone !== null && ts.timezone !== undefined) return ts.unit === TimeUnit.MICROSECOND ? plain('TimestampMicrosecond', int64s) : undefined;
      return plain(TIMESTAMP_NAMES[ts.unit], int64s);
    }
    case Type.Decimal: {
      if (field.metadata.get(DUCKDB_TYPE_KEY) === 'HUGEINT') return plain('Int64', hugeints);
      const { precision, scale, bitWidth } = t as { precision: number; scale: number; bitWidth: number };
      return bitWidth === 128 ? plain(`Decimal(${precision}, ${scale})`, decimals(scale)) : undefined;
    }
    case Type.Null:
      return plain('Null', nulls);
    default:
      return undefined;
  }
}

/**
 * A result's rows as output cells, converted batch by batch as they come: its columns named as in
 * its schema (DuckDB's `count_star()` as GreptimeDB's `count(*)`), within `limits` as `readResult`
 * counts them, each batch refused before it is converted when it would pass them. The bytes taken
 * from the process's pool of result memory are held until `release()`.
 */
export class RecordsReader {
  readonly columns: OutputColumn[];
  readonly rows: Cell[][] = [];
  private bytes = 0;
  private taken = 0;

  private constructor(
    private readonly plans: readonly ColumnPlan[],
    fields: readonly Field[],
    private readonly limits: ResultLimits,
  ) {
    this.columns = fields.map((f, c) => ({ name: f.name === 'count_star()' ? 'count(*)' : f.name, data_type: plans[c]!.dataType }));
  }

  /** A reader of results of `schema`, or undefined when a column is of a type this does not convert. */
  static of(schema: Schema, limits: ResultLimits = NO_RESULT_LIMITS): RecordsReader | undefined {
    const plans: ColumnPlan[] = [];
    for (const f of schema.fields) {
      const plan = planOf(f);
      if (plan === undefined) return undefined;
      plans.push(plan);
    }
    return new RecordsReader(plans, schema.fields, limits);
  }

  add(batch: RecordBatch): void {
    const { plans, limits, rows } = this;
    const width = plans.length;
    const n = batch.numRows;
    if (limits.maxRows > 0 && rows.length + n > limits.maxRows) throw tooManyRows(limits.maxRows);
    let bytes = n * (ROW_BYTES + CELL_BYTES * width);
    for (let c = 0; c < width; c++) {
      if (!plans[c]!.text) continue;
      const d = batch.data.children[c]!;
      const offsets = d.valueOffsets as Int32Array;
      bytes += offsets[d.offset + d.length]! - offsets[d.offset]!;
    }
    this.bytes += bytes;
    if (limits.maxBytes > 0 && this.bytes > limits.maxBytes) throw tooManyBytes(limits.maxBytes);
    if (limits.memory !== undefined) {
      if (!limits.memory.take(this.bytes - this.taken)) throw resultsTooLarge(limits.memory.max);
      this.taken = this.bytes;
    }
    const base = rows.length;
    for (let r = 0; r < n; r++) rows.push(new Array<Cell>(width));
    for (let c = 0; c < width; c++) {
      const d = batch.data.children[c]!;
      plans[c]!.fill(rows, base, c, d);
      if (d.nullCount === 0 || d.nullBitmap === undefined) continue;
      const valid = d.nullBitmap;
      for (let r = 0, bit = d.offset; r < n; r++, bit++) if ((valid[bit >> 3]! & (1 << (bit & 7))) === 0) rows[base + r]![c] = null;
    }
  }

  /** Gives back what the rows took of the pool of result memory: the answer is then the caller's to send. */
  release(): void {
    this.limits.memory?.give(this.taken);
    this.taken = 0;
  }
}

/**
 * `answer`'s rows as output cells (`RecordsReader`), or undefined when a column is of a type this
 * does not convert.
 */
export function arrowRecords(answer: ArrowRows, limits: ResultLimits = NO_RESULT_LIMITS): { columns: OutputColumn[]; rows: Cell[][] } | undefined {
  const reader = RecordsReader.of(answer.schema, limits);
  if (reader === undefined) return undefined;
  try {
    for (const b of answer.batches) reader.add(b);
    return { columns: reader.columns, rows: reader.rows };
  } finally {
    reader.release();
  }
}

/**
 * Runs `sql` and reads its rows through Arrow (`queryArrow`: DuckDB's vectors copied in bulk, then a
 * typed loop per column) when every column of its result is of a type `RecordsReader` converts;
 * otherwise through `readResult`. The same columns and cells either way; on the Arrow path about
 * twice as fast for a result of many rows (docs/benchmarks.md).
 */
export async function readRecords(conn: DuckDBConnection, sql: string, limits: ResultLimits = NO_RESULT_LIMITS, signal?: AbortSignal): Promise<{ columns: OutputColumn[]; rows: Cell[][] }> {
  let reader: RecordsReader | undefined;
  let stream: RegionQueryStream;
  try {
    stream = await queryArrow(conn, sql, {
      ...(signal !== undefined && { signal }),
      accept: (schema) => (reader = RecordsReader.of(schema, limits)) !== undefined,
    });
  } catch (err) {
    // Refused before it ran: a column of a type with no Arrow reader, or none this converts.
    if (isArrowTypeUnsupported(err)) return readResult(conn, sql, limits);
    throw err;
  }
  try {
    for await (const b of stream.batches) reader!.add(b);
    return { columns: reader!.columns, rows: reader!.rows };
  } catch (err) {
    await stream.batches.return?.();
    throw err;
  } finally {
    reader!.release();
  }
}
