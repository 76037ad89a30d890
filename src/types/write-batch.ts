/**
 * A batch of rows for one region, by column (column id → vector): what a put or a delete carries
 * from the frontend through the WAL into the memtable.
 */
import { decimalOf, storedTypeOf, type ColumnType } from './region-metadata.js';
import { stringVectorLength } from './string-dictionary.js';

export const OP_DELETE = 0;
export const OP_PUT = 1;
export type OpType = typeof OP_DELETE | typeof OP_PUT;

/**
 * Values of one column. Numbers that fit a double exactly (integers up to 32 bits, floats, dates as
 * days) are `float64`; 64-bit integers and timestamps are `int64` / `uint64`. `valid[i] = 0` marks
 * row i NULL (absent = no NULLs); strings and binaries use `null` entries.
 */
export type Vector =
  | { readonly type: 'float64'; readonly data: Float64Array; readonly valid?: Uint8Array }
  | { readonly type: 'int64'; readonly data: BigInt64Array; readonly valid?: Uint8Array }
  | { readonly type: 'uint64'; readonly data: BigUint64Array; readonly valid?: Uint8Array }
  | { readonly type: 'bool'; readonly data: Uint8Array; readonly valid?: Uint8Array }
  | { readonly type: 'string'; readonly data: ReadonlyArray<string | null> }
  | { readonly type: 'binary'; readonly data: ReadonlyArray<Uint8Array | null> };

export type VectorType = Vector['type'];

export interface WriteBatch {
  readonly op: OpType;
  readonly rowCount: number;
  readonly columns: ReadonlyMap<number, Vector>;
}

/** The vector kind that holds a column type. */
export function vectorTypeOf(type: ColumnType): VectorType {
  switch (storedTypeOf(type)) {
    case 'Int64':
    case 'TimestampSecond':
    case 'TimestampMillisecond':
    case 'TimestampMicrosecond':
    case 'TimestampNanosecond':
      return 'int64';
    case 'UInt64':
      return 'uint64';
    case 'Boolean':
      return 'bool';
    case 'String':
    case 'Json':
      return 'string';
    case 'Binary':
      return 'binary';
    default:
      // DECIMAL: canonical text (`types/decimal.ts`).
      return decimalOf(type) === undefined ? 'float64' : 'string';
  }
}

/** The number of rows of a vector (a string vector made from a dictionary keeps its per-row strings unmade). */
export function vectorLength(v: Vector): number {
  return v.type === 'string' ? stringVectorLength(v) : v.data.length;
}

export function isNull(v: Vector, row: number): boolean {
  if (v.type === 'string' || v.type === 'binary') return v.data[row] === null;
  return v.valid !== undefined && v.valid[row] === 0;
}
