/**
 * HyperLogLog of GreptimeDB's `hll`, `hll_merge`, `hll_count` and `approx_distinct`: 2^14
 * registers (GreptimeDB's precision, a standard error of 0.81%), each the largest rank (leading
 * zeros + 1 of the hash's low 50 bits) of the values whose 64-bit hash's top 14 bits name it.
 * The count is Ertl's improved estimator ("New cardinality estimation algorithms for HyperLogLog
 * sketches", 2017), which needs no bias tables and is close to exact for small counts.
 *
 * DuckDB hashes the values and gathers the distinct (register, rank) codes of a group
 * (`sketch-functions.ts`: code = register · 64 + rank); this module keeps each register's largest
 * rank. Merging takes each register's largest rank of the states: exact, in any order.
 *
 * The state is tsdb's own binary layout (GreptimeDB's is its Rust crate's serialization):
 *   0 'TSHL', 4 version (1), 5 precision (14), 6 form: 0 sparse, 1 dense;
 *   sparse: 7 count u32, then per set register: index u16, rank u8 (ascending index);
 *   dense: 7 one rank byte per register.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';

export const HLL_PRECISION = 14;
const M = 1 << HLL_PRECISION;
/** Bits of the hash below the register index. */
export const HLL_RANK_BITS = 64 - HLL_PRECISION;
const MAGIC = 0x4c485354; // 'TSHL' read little-endian

/** Registers from (register · 64 + rank) codes. */
export function registersOfCodes(codes: ArrayLike<bigint | number>): Uint8Array {
  const r = new Uint8Array(M);
  for (let i = 0; i < codes.length; i++) {
    const code = Number(codes[i]!);
    const reg = Math.floor(code / 64);
    const rank = code % 64;
    if (reg >= 0 && reg < M && rank > r[reg]!) r[reg] = rank;
  }
  return r;
}

/** Each register's largest rank of `states`; a state that does not decode is left out, as GreptimeDB does. */
export function mergeRegisters(states: readonly Uint8Array[]): Uint8Array {
  const r = new Uint8Array(M);
  for (const s of states) {
    let other: Uint8Array;
    try {
      other = decodeRegisters(s);
    } catch {
      continue;
    }
    for (let i = 0; i < M; i++) if (other[i]! > r[i]!) r[i] = other[i]!;
  }
  return r;
}

function sigma(x: number): number {
  if (x === 1) return Infinity;
  let y = 1;
  let z = x;
  for (;;) {
    x *= x;
    const before = z;
    z += x * y;
    y += y;
    if (z === before) return z;
  }
}

function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  for (;;) {
    x = Math.sqrt(x);
    const before = z;
    y *= 0.5;
    z -= (1 - x) ** 2 * y;
    if (z === before) return z / 3;
  }
}

/** The estimated number of distinct values. */
export function estimateCount(registers: Uint8Array): number {
  const q = HLL_RANK_BITS;
  const histogram = new Float64Array(q + 2);
  for (let i = 0; i < M; i++) histogram[Math.min(registers[i]!, q + 1)]! += 1;
  let z = M * tau(1 - histogram[q + 1]! / M);
  for (let k = q; k >= 1; k--) z = 0.5 * (z + histogram[k]!);
  z += M * sigma(histogram[0]! / M);
  return Math.round(M * M / (2 * Math.LN2) / z);
}

export function encodeRegisters(r: Uint8Array): Uint8Array {
  let set = 0;
  for (let i = 0; i < M; i++) if (r[i] !== 0) set++;
  const sparse = set * 3 + 11 < M + 7;
  const out = new Uint8Array(sparse ? 11 + set * 3 : 7 + M);
  const v = new DataView(out.buffer);
  v.setUint32(0, MAGIC, true);
  out[4] = 1;
  out[5] = HLL_PRECISION;
  out[6] = sparse ? 0 : 1;
  if (!sparse) {
    out.set(r, 7);
    return out;
  }
  v.setUint32(7, set, true);
  let at = 11;
  for (let i = 0; i < M; i++) {
    if (r[i] === 0) continue;
    v.setUint16(at, i, true);
    out[at + 2] = r[i]!;
    at += 3;
  }
  return out;
}

function invalidState(): TsdbError {
  return new TsdbError(StatusCode.EngineExecuteQuery, 'Execution error: Failed to deserialize HyperLogLogPlus from binary');
}

export function decodeRegisters(bytes: Uint8Array): Uint8Array {
  if (bytes.length < 7) throw invalidState();
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (v.getUint32(0, true) !== MAGIC || bytes[4] !== 1 || bytes[5] !== HLL_PRECISION) throw invalidState();
  if (bytes[6] === 1) {
    if (bytes.length !== 7 + M) throw invalidState();
    return bytes.slice(7);
  }
  if (bytes[6] !== 0 || bytes.length < 11) throw invalidState();
  const set = v.getUint32(7, true);
  if (bytes.length !== 11 + set * 3) throw invalidState();
  const r = new Uint8Array(M);
  for (let i = 0, at = 11; i < set; i++, at += 3) {
    const reg = v.getUint16(at, true);
    if (reg >= M) throw invalidState();
    r[reg] = bytes[at + 2]!;
  }
  return r;
}
