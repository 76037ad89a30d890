/**
 * Intervals (months, days, nanoseconds: Arrow's IntervalMonthDayNano) as GreptimeDB shows them:
 * Arrow's display in query results (`14 mons 3 days 4 hours 5 mins 6.000100000 secs`, what its HTTP
 * answers and sqlness print) and ISO 8601 over MySQL (`P1Y2M3DT4H5M6.0001S`). Query results carry the
 * display text; the protocols that show intervals otherwise read it back with `parseIntervalText`.
 */

export interface Interval {
  readonly months: number;
  readonly days: number;
  readonly nanos: bigint;
}

const NS_PER_SEC = 1_000_000_000n;

/** Arrow's display of an interval: zero parts left out (a zero interval is empty text). */
export function intervalText(iv: Interval): string {
  const parts: string[] = [];
  if (iv.months !== 0) parts.push(`${iv.months} mons`);
  if (iv.days !== 0) parts.push(`${iv.days} days`);
  if (iv.nanos !== 0n) {
    // Truncating division, as Rust's: every part carries the interval's sign.
    const secs = iv.nanos / NS_PER_SEC;
    const mins = secs / 60n;
    const hours = mins / 60n;
    const s = secs - mins * 60n;
    const m = mins - hours * 60n;
    const ns = iv.nanos % NS_PER_SEC;
    if (hours !== 0n) parts.push(`${hours} hours`);
    if (m !== 0n) parts.push(`${m} mins`);
    if (s !== 0n || ns !== 0n) {
      const sign = s < 0n || ns < 0n ? '-' : '';
      parts.push(`${sign}${s < 0n ? -s : s}.${(ns < 0n ? -ns : ns).toString().padStart(9, '0')} secs`);
    }
  }
  return parts.join(' ');
}

const UNITS: Readonly<Record<string, 'months' | 'days' | bigint>> = { mons: 'months', days: 'days', hours: 3_600n * NS_PER_SEC, mins: 60n * NS_PER_SEC };

/** The interval of `intervalText`'s text; undefined for other text. */
export function parseIntervalText(text: string): Interval | undefined {
  let months = 0;
  let days = 0;
  let nanos = 0n;
  const tokens = text.trim().split(/\s+/).filter((t) => t !== '');
  if (tokens.length % 2 !== 0) return undefined;
  for (let i = 0; i < tokens.length; i += 2) {
    const [value, unit] = [tokens[i]!, tokens[i + 1]!];
    if (unit === 'secs') {
      const m = /^(-?)(\d+)\.(\d{9})$/.exec(value);
      if (m === null) return undefined;
      const v = BigInt(m[2]!) * NS_PER_SEC + BigInt(m[3]!);
      nanos += m[1] === '-' ? -v : v;
      continue;
    }
    const u = UNITS[unit];
    if (u === undefined || !/^-?\d+$/.test(value)) return undefined;
    if (u === 'months') months += Number(value);
    else if (u === 'days') days += Number(value);
    else nanos += BigInt(value) * u;
  }
  return { months, days, nanos };
}

/** GreptimeDB's ISO 8601 text of an interval (`PnYnMnDTnHnMnS`, `PT0S` when zero). */
export function intervalIso8601(iv: Interval): string {
  if (iv.months === 0 && iv.days === 0 && iv.nanos === 0n) return 'PT0S';
  const hours = iv.nanos / (3_600n * NS_PER_SEC);
  const minutes = (iv.nanos % (3_600n * NS_PER_SEC)) / (60n * NS_PER_SEC);
  const seconds = (iv.nanos % (60n * NS_PER_SEC)) / NS_PER_SEC;
  const micros = (iv.nanos % NS_PER_SEC) / 1_000n;
  const fraction = micros === 0n ? '' : `.${micros.toString().padStart(6, '0')}`.replace(/0+$/, '');
  return `P${Math.trunc(iv.months / 12)}Y${iv.months % 12}M${iv.days}DT${hours}H${minutes}M${seconds}${fraction}S`;
}
