/**
 * One Arrow column of a COPY FROM read (DuckDB's result, already cast to the target column's type)
 * as the write path's vector (`types/write-batch.ts`): fixed-width values copied with typed-array
 * operations, validity bits unpacked in one loop, strings sliced from the UTF-8 buffer. No row object
 * is built: a million-row file costs one pass per column.
 */
import { Buffer } from 'node:buffer';
import type { Data } from 'apache-arrow';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { ColumnType } from '../../types/region-metadata.js';
import { vectorTypeOf, type Vector } from '../../types/write-batch.js';

/** Per row 1 = a value, 0 = NULL; undefined when the column has no NULL. */
function validity(data: Data): Uint8Array | undefined {
  if (data.nullCount === 0 || data.nullBitmap === undefined || data.nullBitmap.length === 0) return undefined;
  const bits = data.nullBitmap;
  const n = data.length;
  const off = data.offset;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const b = off + i;
    out[i] = (bits[b >> 3]! >> (b & 7)) & 1;
  }
  return out;
}

function fixed<T extends { subarray(a: number, b: number): T }>(data: Data): T {
  return (data.values as unknown as T).subarray(data.offset, data.offset + data.length);
}

/** The vector of column `name` (of type `type`) from an Arrow column of `rows` rows. */
export function vectorFromArrow(data: Data, type: ColumnType, name: string): Vector {
  const valid = validity(data);
  const n = data.length;
  const kind = vectorTypeOf(type);
  switch (kind) {
    case 'float64': {
      const values = fixed<Float64Array | Float32Array | Int32Array | Int16Array | Int8Array | Uint32Array | Uint16Array | Uint8Array>(data);
      const out = values instanceof Float64Array ? values.slice() : Float64Array.from(values as ArrayLike<number>);
      return valid !== undefined ? { type: 'float64', data: out, valid } : { type: 'float64', data: out };
    }
    case 'int64': {
      const out = fixed<BigInt64Array>(data).slice();
      if (!(out instanceof BigInt64Array)) throw new TsdbError(StatusCode.Unexpected, `COPY FROM: column ${name} is not read as 64-bit integers`);
      return valid !== undefined ? { type: 'int64', data: out, valid } : { type: 'int64', data: out };
    }
    case 'uint64': {
      const out = fixed<BigUint64Array>(data).slice();
      return valid !== undefined ? { type: 'uint64', data: out, valid } : { type: 'uint64', data: out };
    }
    case 'bool': {
      const bits = data.values as Uint8Array;
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        const b = data.offset + i;
        out[i] = (bits[b >> 3]! >> (b & 7)) & 1;
      }
      return valid !== undefined ? { type: 'bool', data: out, valid } : { type: 'bool', data: out };
    }
    case 'string':
    case 'binary': {
      const offsets = data.valueOffsets as Int32Array;
      const bytes = data.values as Uint8Array;
      const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (kind === 'string') {
        const out = new Array<string | null>(n);
        for (let i = 0; i < n; i++) out[i] = valid !== undefined && valid[i] === 0 ? null : buf.toString('utf8', offsets[data.offset + i]!, offsets[data.offset + i + 1]!);
        return { type: 'string', data: out };
      }
      const out = new Array<Uint8Array | null>(n);
      for (let i = 0; i < n; i++) out[i] = valid !== undefined && valid[i] === 0 ? null : bytes.slice(offsets[data.offset + i]!, offsets[data.offset + i + 1]!);
      return { type: 'binary', data: out };
    }
  }
}
