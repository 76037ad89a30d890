/**
 * `TIMESTAMP_RANGE` checks on 64-bit timestamps kept as two 32-bit halves, as the ingestion decoders
 * build them and as a BigInt64Array's buffer holds them: exact comparisons of numbers, without a
 * BigInt per value (reading a BigInt64Array element allocates one).
 */
import { TIMESTAMP_RANGE } from './timestamp.js';
import type { TimeUnit } from '../../types/time-unit.js';

/** A range as halves: each bound is `hi · 2^32 + lo`, `hi` signed, `lo` in [0, 2^32). */
export interface HalvesRange {
  readonly minHi: number;
  readonly minLo: number;
  readonly maxHi: number;
  readonly maxLo: number;
}

function halvesOf(v: bigint): { hi: number; lo: number } {
  const hi = v >> 32n; // floor, also for negative values
  return { hi: Number(hi), lo: Number(v - (hi << 32n)) };
}

function rangeOf(unit: TimeUnit): HalvesRange {
  const min = halvesOf(TIMESTAMP_RANGE[unit].min);
  const max = halvesOf(TIMESTAMP_RANGE[unit].max);
  return { minHi: min.hi, minLo: min.lo, maxHi: max.hi, maxLo: max.lo };
}

/** `TIMESTAMP_RANGE` of each unit as halves. */
export const RANGE_HALVES: Readonly<Record<TimeUnit, HalvesRange>> = { s: rangeOf('s'), ms: rangeOf('ms'), us: rangeOf('us'), ns: rangeOf('ns') };

/** Whether `hi · 2^32 + lo` (`hi` any integer, `lo` in [0, 2^32)) lies in `r`. */
export function inRangeHalves(hi: number, lo: number, r: HalvesRange): boolean {
  return (hi > r.minHi || (hi === r.minHi && lo >= r.minLo)) && (hi < r.maxHi || (hi === r.maxHi && lo <= r.maxLo));
}

/** The value `hi · 2^32 + lo` (`hi` any integer, `lo` any uint32 or int32 bit pattern). */
export function fromHalves(hi: number, lo: number): bigint {
  return (BigInt(hi) << 32n) + BigInt(lo >>> 0);
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const LO = LITTLE_ENDIAN ? 0 : 1;
const HI = 1 - LO;

/** The index of the first value of `values` outside the range of `unit` (`TIMESTAMP_RANGE`), or -1. */
export function firstOutOfRange(values: BigInt64Array, unit: TimeUnit): number {
  const r = RANGE_HALVES[unit];
  const words = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
  for (let i = 0; i < values.length; i++) {
    const hi = words[2 * i + HI]!;
    if (hi > r.minHi && hi < r.maxHi) continue;
    if (!inRangeHalves(hi, words[2 * i + LO]! >>> 0, r)) return i;
  }
  return -1;
}
