/**
 * Primary keys of memtable series: values taken from a batch and their order; time index values
 * compared as 32-bit words (no BigInt per row).
 */
import type { Vector } from '../../types/write-batch.js';
import type { ColumnMetadata } from '../../types/region-metadata.js';
import type { PkValue } from './memtable.js';

/** Row `row`'s value of a primary key column (its default when the batch lacks the column). */
export function pkValue(v: Vector | undefined, row: number, col: ColumnMetadata): PkValue {
  if (v === undefined) return col.default === undefined ? null : (col.default as PkValue);
  switch (v.type) {
    case 'string':
      return v.data[row] ?? null;
    case 'binary':
      throw new TypeError(`binary column ${col.name} cannot be part of the primary key`);
    case 'bool':
      return v.valid?.[row] === 0 ? null : v.data[row] === 1;
    default:
      return v.valid?.[row] === 0 ? null : v.data[row]!;
  }
}

/** Orders primary keys: NULL first, then by value. */
export function comparePk(a: readonly PkValue[], b: readonly PkValue[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

/** Compares two int64 values given as (high signed, low unsigned) 32-bit words. */
export function compareWords(hiA: number, loA: number, hiB: number, loB: number): number {
  if (hiA !== hiB) return hiA < hiB ? -1 : 1;
  const a = loA >>> 0;
  const b = loB >>> 0;
  return a === b ? 0 : a < b ? -1 : 1;
}

/** An int64 array's 32-bit words (low, high per value): read without making BigInts. */
export function wordsOf(a: BigInt64Array, n = a.length): Int32Array {
  return new Int32Array(a.buffer, a.byteOffset, n * 2);
}

/** Rows holding the smallest and the largest of `n` times (-1 when n = 0). */
export function timeBounds(words: Int32Array, n: number): [number, number] {
  let minRow = -1;
  let maxRow = -1;
  for (let row = 0; row < n; row++) {
    const lo = words[2 * row]!;
    const hi = words[2 * row + 1]!;
    if (minRow < 0 || compareWords(hi, lo, words[2 * minRow + 1]!, words[2 * minRow]!) < 0) minRow = row;
    if (maxRow < 0 || compareWords(hi, lo, words[2 * maxRow + 1]!, words[2 * maxRow]!) > 0) maxRow = row;
  }
  return [minRow, maxRow];
}

/** Estimated bytes of the string and binary values of `vectors` (typed arrays are counted apart). */
export function stringBytes(vectors: ReadonlyArray<Vector | undefined>): number {
  let n = 0;
  for (const v of vectors) {
    if (v?.type === 'string') for (const s of v.data) n += s === null ? 0 : 16 + s.length * 2;
    else if (v?.type === 'binary') for (const b of v.data) n += b === null ? 0 : 64 + b.length;
  }
  return n;
}
