/**
 * day_of_month, day_of_week, day_of_year, days_in_month, hour, minute, month, year: of the step
 * time when called without an argument, else of each sample's value taken as Unix seconds
 * (truncated to an integer as Go's int64 conversion does), in UTC, `__name__` dropped.
 */
import type { Vector } from '../values.js';
import { dropName } from './drop-name.js';
import type { InstantFunction } from './types.js';

/** The civil date parts of one Unix second in UTC (proleptic Gregorian calendar, as Go's time). */
interface Civil {
  year: number;
  month: number;
  day: number;
  yday: number;
  wday: number;
  hour: number;
  minute: number;
}

const SECONDS_PER_DAY = 86400;
const DAYS_BEFORE = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];

function isLeap(y: number): boolean {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

/** Go's int64(v) on amd64: truncation; NaN and out-of-range values become math.MinInt64. */
function goInt64(v: number): bigint {
  if (!Number.isFinite(v) || v >= 9223372036854775807 || v < -9223372036854775808) return -9223372036854775808n;
  return BigInt(Math.trunc(v));
}

function civil(sec: bigint): Civil {
  // Go works on "absolute" seconds since a year far before the Unix epoch, as uint64 (wrapping for
  // int64 values near the extremes); the same arithmetic here keeps even those cases equal.
  const abs = BigInt.asUintN(64, sec + 9223372028715321600n);
  const dayOfAbs = abs / 86400n;
  const secOfDay = Number(abs % 86400n);
  let d = dayOfAbs;
  let n = d / 146097n;
  let y = 400n * n;
  d -= 146097n * n;
  n = d / 36524n;
  n -= n >> 2n;
  y += 100n * n;
  d -= 36524n * n;
  n = d / 1461n;
  y += 4n * n;
  d -= 1461n * n;
  n = d / 365n;
  n -= n >> 2n;
  y += n;
  d -= 365n * n;
  const year = Number(BigInt.asIntN(64, y - 292277022399n));
  const yday = Number(d);
  let day = yday;
  let month: number;
  let dom: number;
  if (isLeap(year) && day === 31 + 29 - 1) {
    month = 2;
    dom = 29;
  } else {
    if (isLeap(year) && day > 31 + 29 - 1) day--;
    let m = Math.floor(day / 31);
    const end = DAYS_BEFORE[m + 1]!;
    let begin: number;
    if (day >= end) {
      m++;
      begin = end;
    } else begin = DAYS_BEFORE[m]!;
    month = m + 1;
    dom = day - begin + 1;
  }
  const wday = Number((BigInt.asUintN(64, abs + 86400n) % 604800n) / 86400n);
  return { year, month, day: dom, yday: yday + 1, wday, hour: Math.floor(secOfDay / 3600), minute: Math.floor((secOfDay % 3600) / 60) };
}

function daysInMonth(c: Civil): number {
  if (c.month === 2) return isLeap(c.year) ? 29 : 28;
  return DAYS_BEFORE[c.month]! - DAYS_BEFORE[c.month - 1]!;
}

function dateFunction(f: (c: Civil) => number): InstantFunction {
  return {
    kind: 'instant',
    apply: (args, ctx) => {
      if (args.length === 0) return [{ labels: [], t: ctx.evalTimeMs, v: f(civil(BigInt(Math.trunc(ctx.evalTimeMs / 1000)))) }];
      const vec = args[0] as Vector;
      const out: Vector = new Array(vec.length);
      for (let i = 0; i < vec.length; i++) {
        const s = vec[i]!;
        out[i] = { labels: dropName(s.labels), t: s.t, v: f(civil(goInt64(s.v))) };
      }
      return out;
    },
  };
}

export const TIME_FUNCTIONS: ReadonlyMap<string, InstantFunction> = new Map<string, InstantFunction>([
  ['day_of_month', dateFunction((c) => c.day)],
  ['day_of_week', dateFunction((c) => c.wday)],
  ['day_of_year', dateFunction((c) => c.yday)],
  ['days_in_month', dateFunction(daysInMonth)],
  ['hour', dateFunction((c) => c.hour)],
  ['minute', dateFunction((c) => c.minute)],
  ['month', dateFunction((c) => c.month)],
  ['year', dateFunction((c) => c.year)],
]);
