/**
 * An answer received as Arrow record batches (a region's answer to a query run whole there,
 * `TableSource.pushdown`) as output rows, without a second DuckDB query over it: the same column
 * types and cells `readResult` gives for the DuckDB types `queryArrow` sent them as. A per-query
 * cost of a cluster's frontend (publishing the batches, planning and running a query over them,
 * reading its chunks) is then a loop over typed arrays. Columns of the types below only; any other
 * (decimals, times, blobs, a time zone) leaves the answer to DuckDB (`arrowRecords` gives undefined).
 */
import { DateUnit, Type, type Data, type Date_ as DateType, type Field, type Timestamp, TimeUnit } from 'apache-arrow';
import { DUCKDB_TYPE_KEY } from './arrow-scan-function.js';
import type { ArrowRows, Cell, OutputColumn } from './output.js';
import { CELL_BYTES, NO_RESULT_LIMITS, resultsTooLarge, ROW_BYTES, tooManyBytes, tooManyRows, type ResultLimits } from './resource-limits.js';

/** Reads row `i` (of the data's own rows, its offset not applied) of one column's data. */
type CellReader = (data: Data, i: number) => Cell;

interface ColumnPlan {
  readonly dataType: string;
  readonly read: CellReader;
  /** Whether its cells are strings (their bytes count against the limits). */
  readonly text: boolean;
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function safeInteger(v: bigint): number | bigint {
  return v >= MIN_SAFE && v <= MAX_SAFE ? Number(v) : v;
}

const number: CellReader = (d, i) => (d.values as ArrayLike<number>)[d.offset + i]!;
const int64: CellReader = (d, i) => safeInteger((d.values as BigInt64Array | BigUint64Array)[d.offset + i]!);
const bool: CellReader = (d, i) => {
  const bit = d.offset + i;
  return ((d.values as Uint8Array)[bit >> 3]! & (1 << (bit & 7))) !== 0;
};
const utf8: CellReader = (d, i) => {
  const offsets = d.valueOffsets as Int32Array;
  const values = d.values as Uint8Array;
  const at = d.offset + i;
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('utf8', offsets[at]!, offsets[at + 1]!);
};
/** A HUGEINT as `queryArrow` sends it: Decimal128(38, 0), four little-endian 32-bit words. */
const hugeint: CellReader = (d, i) => {
  const w = d.values as Uint32Array;
  const at = (d.offset + i) * 4;
  const v = (BigInt(w[at + 3]!) << 96n) | (BigInt(w[at + 2]!) << 64n) | (BigInt(w[at + 1]!) << 32n) | BigInt(w[at]!);
  return safeInteger(BigInt.asIntN(128, v));
};

const TIMESTAMP_NAMES: Record<TimeUnit, string> = {
  [TimeUnit.SECOND]: 'TimestampSecond',
  [TimeUnit.MILLISECOND]: 'TimestampMillisecond',
  [TimeUnit.MICROSECOND]: 'TimestampMicrosecond',
  [TimeUnit.NANOSECOND]: 'TimestampNanosecond',
};

/** How one field is output, or undefined when DuckDB should read it. */
function planOf(field: Field): ColumnPlan | undefined {
  const t = field.type;
  const plain = (dataType: string, read: CellReader): ColumnPlan => ({ dataType, read, text: false });
  switch (t.typeId) {
    case Type.Bool:
      return plain('Boolean', bool);
    case Type.Int: {
      const { bitWidth, isSigned } = t as { bitWidth: number; isSigned: boolean };
      return plain(`${isSigned ? 'Int' : 'UInt'}${bitWidth}`, bitWidth === 64 ? int64 : number);
    }
    case Type.Float:
      return plain((t as { precision: number }).precision === 2 ? 'Float64' : 'Float32', number);
    case Type.Utf8:
      return { dataType: 'String', read: utf8, text: true };
    case Type.Date:
      return (t as DateType).unit === DateUnit.DAY ? plain('Date', number) : undefined;
    case Type.Timestamp: {
      const ts = t as Timestamp;
      // TIMESTAMPTZ (UTC) is written as DuckDB writes it: left to DuckDB.
      if (ts.timezone !== null && ts.timezone !== undefined) return undefined;
      return plain(TIMESTAMP_NAMES[ts.unit], int64);
    }
    case Type.Decimal:
      return field.metadata.get(DUCKDB_TYPE_KEY) === 'HUGEINT' ? plain('Int64', hugeint) : undefined;
    case Type.Null:
      return plain('Null', () => null);
    default:
      return undefined;
  }
}

/**
 * `answer`'s rows as output cells, its columns named as in its schema (DuckDB's `count_star()` as
 * GreptimeDB's `count(*)`), within `limits` as `readResult` counts them (the rows' bytes held from
 * the process's pool while converting). Undefined when a column is of a type this does not convert.
 */
export function arrowRecords(answer: ArrowRows, limits: ResultLimits = NO_RESULT_LIMITS): { columns: OutputColumn[]; rows: Cell[][] } | undefined {
  const fields = answer.schema.fields;
  const plans: ColumnPlan[] = [];
  for (const f of fields) {
    const plan = planOf(f);
    if (plan === undefined) return undefined;
    plans.push(plan);
  }
  const columns = fields.map((f, c) => ({ name: f.name === 'count_star()' ? 'count(*)' : f.name, data_type: plans[c]!.dataType }));
  const total = answer.batches.reduce((n, b) => n + b.numRows, 0);
  if (limits.maxRows > 0 && total > limits.maxRows) throw tooManyRows(limits.maxRows);
  let bytes = total * (ROW_BYTES + CELL_BYTES * fields.length);
  for (const b of answer.batches) {
    for (let c = 0; c < fields.length; c++) {
      if (!plans[c]!.text) continue;
      const d = b.data.children[c]!;
      const offsets = d.valueOffsets as Int32Array;
      bytes += offsets[d.offset + d.length]! - offsets[d.offset]!;
    }
  }
  if (limits.maxBytes > 0 && bytes > limits.maxBytes) throw tooManyBytes(limits.maxBytes);
  if (limits.memory !== undefined && !limits.memory.take(bytes)) throw resultsTooLarge(limits.memory.max);
  try {
    const rows: Cell[][] = [];
    for (const b of answer.batches) {
      const base = rows.length;
      const n = b.numRows;
      for (let r = 0; r < n; r++) rows.push(new Array<Cell>(fields.length));
      for (let c = 0; c < fields.length; c++) {
        const d = b.data.children[c]!;
        const read = plans[c]!.read;
        const valid = d.nullCount > 0 ? d.nullBitmap : undefined;
        for (let r = 0; r < n; r++) {
          const bit = d.offset + r;
          rows[base + r]![c] = valid !== undefined && (valid[bit >> 3]! & (1 << (bit & 7))) === 0 ? null : read(d, r);
        }
      }
    }
    return { columns, rows };
  } finally {
    // Given back once converted, as `readResult` does: the answer is then the caller's to send.
    limits.memory?.give(bytes);
  }
}
