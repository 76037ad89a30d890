/**
 * Durations as written in configuration: `30s`, `10m`, `1h`, `1h30m`, `1h 30m`, `500ms`, `0`.
 * Held in code as milliseconds (a number, fractional below one millisecond).
 */

/** Milliseconds. */
export type Millis = number;

/** humantime's month and year. */
export const MONTH_MS = 2_630_016_000;
export const YEAR_MS = 31_557_600_000;

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  nsec: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  usec: 1e-3,
  ms: 1,
  msec: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
  // humantime's (GreptimeDB's TTLs): a month is 30.44 days, a year 365.25 days.
  month: MONTH_MS,
  months: MONTH_MS,
  y: YEAR_MS,
  year: YEAR_MS,
  years: YEAR_MS,
};

const PART = /(\d+(?:\.\d+)?)\s*([a-zµ]+)\s*/gy;

/** Parses a duration; throws an Error saying what is wrong and what is expected. */
export function parseDuration(text: string): Millis {
  const s = text.trim().toLowerCase();
  if (s === '0') return 0;
  if (s === '') throw new Error('empty duration; expected e.g. "30s", "10m", "1h"');
  let total = 0;
  PART.lastIndex = 0;
  let pos = 0;
  while (pos < s.length) {
    PART.lastIndex = pos;
    const m = PART.exec(s);
    if (!m) {
      throw new Error(
        `invalid duration "${text}"; expected a number followed by a unit (ns, us, ms, s, m, h, d, w), e.g. "30s", "10m", "1h30m"`,
      );
    }
    const unit = UNIT_MS[m[2]!];
    if (unit === undefined) {
      throw new Error(`invalid duration "${text}": unknown unit "${m[2]}"; units are ns, us, ms, s, m, h, d, w`);
    }
    total += Number(m[1]) * unit;
    pos = PART.lastIndex;
  }
  if (!Number.isFinite(total)) throw new Error(`invalid duration "${text}": too large`);
  return total;
}

const FORMAT_UNITS: Array<[string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
  ['ms', 1],
  ['us', 1e-3],
  ['ns', 1e-6],
];

/** Formats milliseconds the way configuration writes them: `30s`, `1h30m`, `0s`. */
export function formatDuration(ms: Millis): string {
  if (ms <= 0) return '0s';
  // Work in whole nanoseconds so that fractions of a millisecond format exactly.
  let ns = Math.round(ms * 1e6);
  let out = '';
  for (const [unit, unitMs] of FORMAT_UNITS) {
    const unitNs = Math.round(unitMs * 1e6);
    const n = Math.floor(ns / unitNs);
    if (n > 0) {
      out += `${n}${unit}`;
      ns -= n * unitNs;
    }
  }
  return out;
}

/** The longest delay `setTimeout` keeps (a longer one fires after 1 ms): about 24.8 days. */
export const MAX_TIMER_DELAY: Millis = 2 ** 31 - 1;

/** `ms` as a `setTimeout` delay: at most MAX_TIMER_DELAY, so that a long limit does not fire at once. */
export function timerDelay(ms: Millis): Millis {
  return Math.min(ms, MAX_TIMER_DELAY);
}
