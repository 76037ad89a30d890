/**
 * Whole-vector operations the memtables read with: gathering rows by position, joining vectors.
 */
import type { Vector, VectorType } from '../../types/write-batch.js';

type Numeric = Float64Array | BigInt64Array | BigUint64Array | Uint8Array;
const CTORS = { float64: Float64Array, int64: BigInt64Array, uint64: BigUint64Array, bool: Uint8Array } as const;

/** Rows `indices` of `v` (-1 = NULL), as a new vector. */
export function gatherVector(v: Vector, indices: Int32Array): Vector {
  const n = indices.length;
  if (v.type === 'string' || v.type === 'binary') {
    const out: Array<string | Uint8Array | null> = new Array(n);
    for (let i = 0; i < n; i++) {
      const j = indices[i]!;
      out[i] = j < 0 ? null : v.data[j]!;
    }
    return { type: v.type, data: out } as Vector;
  }
  const src = v.data as Numeric;
  const out = new (src.constructor as { new (n: number): Numeric })(n);
  let valid: Uint8Array | undefined;
  for (let i = 0; i < n; i++) {
    const j = indices[i]!;
    if (j < 0 || (v.valid !== undefined && v.valid[j] === 0)) {
      valid ??= new Uint8Array(n).fill(1);
      valid[i] = 0;
      continue;
    }
    (out as unknown as Array<number | bigint>)[i] = (src as unknown as Array<number | bigint>)[j]!;
  }
  return { type: v.type, data: out, ...(valid && { valid }) } as Vector;
}

/** `parts` one after another (all of `type`). */
export function concatVectors(type: VectorType, parts: readonly Vector[]): Vector {
  if (parts.length === 1) return parts[0]!;
  const total = parts.reduce((n, p) => n + p.data.length, 0);
  if (type === 'string' || type === 'binary') {
    const out: Array<string | Uint8Array | null> = [];
    for (const p of parts) for (const x of p.data as ReadonlyArray<string | Uint8Array | null>) out.push(x);
    return { type, data: out } as Vector;
  }
  const out = new CTORS[type](total);
  let valid: Uint8Array | undefined;
  if (parts.some((p) => 'valid' in p && p.valid !== undefined)) valid = new Uint8Array(total).fill(1);
  let at = 0;
  for (const p of parts) {
    (out as unknown as { set(a: ArrayLike<unknown>, at: number): void }).set(p.data as ArrayLike<unknown>, at);
    if (valid && 'valid' in p && p.valid !== undefined) valid.set(p.valid, at);
    at += p.data.length;
  }
  return { type, data: out, ...(valid && { valid }) } as Vector;
}

/** Bytes held by a vector (strings and binaries estimated from their lengths). */
export function vectorBytes(v: Vector): number {
  if (v.type === 'string') return v.data.reduce((n, s) => n + 8 + (s === null ? 0 : 16 + s.length * 2), 0);
  if (v.type === 'binary') return v.data.reduce((n, b) => n + 8 + (b === null ? 0 : 64 + b.length), 0);
  return v.data.byteLength + (v.valid?.byteLength ?? 0);
}
