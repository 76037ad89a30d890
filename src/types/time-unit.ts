/** Time units, and the time index column's: how many of its ticks make a millisecond, and conversions. */
import type { ColumnType, TimestampType } from './region-metadata.js';

/** A timestamp's unit: seconds, milliseconds, microseconds, nanoseconds. */
export type TimeUnit = 's' | 'ms' | 'us' | 'ns';

/** Ticks of the unit per millisecond (a second is 1/1000 of a tick per millisecond). */
export const TICKS_PER_MS: Record<TimestampType, number> = {
  TimestampSecond: 1 / 1000,
  TimestampMillisecond: 1,
  TimestampMicrosecond: 1000,
  TimestampNanosecond: 1_000_000,
};

const UNITS: Record<TimestampType, TimeUnit> = { TimestampSecond: 's', TimestampMillisecond: 'ms', TimestampMicrosecond: 'us', TimestampNanosecond: 'ns' };

/** The unit of a timestamp column type (s, ms, us, ns); undefined for other types. */
export function timeUnitOf(type: ColumnType): TimeUnit | undefined {
  return UNITS[type as TimestampType];
}

/** Milliseconds (floored) of a time index value in its unit. */
export function toMillis(value: number | bigint, unit: TimestampType): number {
  if (unit === 'TimestampSecond') return Number(value) * 1000;
  if (unit === 'TimestampMillisecond') return Number(value);
  const per = BigInt(TICKS_PER_MS[unit]);
  const v = BigInt(value);
  const q = v / per;
  return Number(v < 0n && q * per !== v ? q - 1n : q);
}

/** A time index value in its unit from milliseconds. */
export function fromMillis(ms: number, unit: TimestampType): bigint {
  if (unit === 'TimestampSecond') return BigInt(Math.floor(ms / 1000));
  return BigInt(Math.floor(ms)) * BigInt(Math.max(1, TICKS_PER_MS[unit]));
}

/**
 * A [min, max] range of int64 values as JSON-safe numbers, widened when a value does not fit a
 * double exactly (nanosecond timestamps): the range may grow a little, never shrink, so pruning by
 * it never drops rows.
 */
export function widenRange(min: bigint, max: bigint): [number, number] {
  let lo = Number(min);
  let hi = Number(max);
  if (BigInt(lo) > min) lo = nextDown(lo);
  if (BigInt(hi) < max) hi = nextUp(hi);
  return [lo, hi];
}

function nextUp(x: number): number {
  const buf = new Float64Array([x]);
  const bits = new BigInt64Array(buf.buffer);
  bits[0] = x >= 0 ? bits[0]! + 1n : bits[0]! - 1n;
  return buf[0]!;
}

function nextDown(x: number): number {
  return -nextUp(-x);
}
