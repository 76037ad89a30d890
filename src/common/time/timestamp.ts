/**
 * Timestamp strings as users write them in SQL (reference api.md §4.3, §7): RFC 3339 and
 * `YYYY-MM-DD[ HH:MM[:SS[.fffffffff]]][Z|±hh[:mm]]`. A string without an offset is a time in the
 * session's time zone (`UTC`, `+08:00`, or an IANA name such as `Asia/Shanghai`).
 */

import { StatusCode } from '../error/status-code.js';
import { TsdbError } from '../error/tsdb-error.js';
import type { TimeUnit } from '../../types/time-unit.js';

/** Nanoseconds in one tick of each unit. */
export const NS_PER_UNIT: Record<TimeUnit, bigint> = { s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };

/** A time of unit `from` in unit `to`, floored (toward minus infinity, for times before 1970). */
export function convertTime(value: bigint, from: TimeUnit, to: TimeUnit): bigint {
  const ns = value * NS_PER_UNIT[from];
  const per = NS_PER_UNIT[to];
  const q = ns / per;
  return ns % per !== 0n && ns < 0n ? q - 1n : q;
}

const PATTERN =
  /^\s*([+-]?\d{4,6})-(\d{1,2})-(\d{1,2})(?:[T\s]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|UTC|[+-]\d{1,2}(?::?\d{2})?)?\s*$/i;

/** Offset in minutes of `+08:00`, `-0530`, `+8`, `UTC`, `Z`; undefined when not an offset. */
export function parseOffset(text: string): number | undefined {
  const t = text.trim();
  if (/^(z|utc)$/i.test(t)) return 0;
  const m = /^([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(t);
  if (!m) return undefined;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  if (Number(m[2]) > 23 || Number(m[3] ?? 0) > 59) return undefined;
  return m[1] === '-' ? -minutes : minutes;
}

/** Whether `zone` is a time zone tsdb accepts: `UTC`, `SYSTEM`, an offset, or an IANA name. */
export function isValidTimeZone(zone: string): boolean {
  if (parseOffset(zone) !== undefined || /^system$/i.test(zone.trim())) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone.trim() });
    return true;
  } catch {
    return false;
  }
}

/** The name ICU and Intl know an IANA zone by (`europe/berlin` → `Europe/Berlin`); other zones as they are. */
export function canonicalTimeZone(zone: string): string {
  const z = zone.trim();
  if (parseOffset(z) !== undefined || /^system$/i.test(z)) return z;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: z }).resolvedOptions().timeZone;
  } catch {
    return z;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat | undefined {
  let f = formatters.get(zone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        era: 'short',
      });
    } catch {
      return undefined;
    }
    if (formatters.size > 256) formatters.clear();
    formatters.set(zone, f);
  }
  return f;
}

/** Offset in minutes of `zone` (`UTC`, `SYSTEM` = UTC, `+08:00`, IANA name) at UTC second `utcSeconds`. */
export function zoneOffsetMinutes(zone: string, utcSeconds: number): number {
  const fixed = parseOffset(zone);
  if (fixed !== undefined) return fixed;
  if (/^system$/i.test(zone.trim()) || zone.trim() === '') return 0;
  const f = formatterOf(zone.trim());
  const ms = utcSeconds * 1000;
  if (f === undefined || !Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return 0;
  const parts = f.formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  let year = get('year');
  if (parts.find((p) => p.type === 'era')?.value === 'BC') year = 1 - year;
  const d = new Date(0);
  d.setUTCFullYear(year, get('month') - 1, get('day'));
  d.setUTCHours(get('hour'), get('minute'), get('second'), 0);
  return Math.round((d.getTime() - ms) / 60_000);
}

/**
 * Days since 1970-01-01 of a date of the proleptic Gregorian calendar, for any year (astronomical:
 * 0 is 1 BC), by the days-from-civil algorithm of Howard Hinnant's "chrono-compatible low-level
 * date algorithms" (integer arithmetic only, so not bound to the range of `Date`).
 */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The date of `days` since 1970-01-01 (the inverse of `daysFromCivil`). */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp + (mp < 10 ? 3 : -9);
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/**
 * The offset (minutes) that maps the wall-clock time `localSeconds` (seconds since the epoch, read
 * as if the wall clock were UTC) of `zone` to an instant. The rule for the hours a daylight-saving
 * change makes ambiguous or skips (docs/time-zones.md):
 * - a time that happens twice (the clock goes back) is its first occurrence, the earlier instant;
 * - a time that never happens (the clock goes forward) is read with the offset in force before the
 *   change, so it lands as far after the change as it is after its start (02:30 on the day New
 *   York goes from 02:00 EST to 03:00 EDT is 03:30 EDT), as PostgreSQL and java.time read it.
 */
export function localOffsetMinutes(zone: string, localSeconds: number): number {
  const fixed = parseOffset(zone);
  if (fixed !== undefined) return fixed;
  if (/^system$/i.test(zone.trim()) || zone.trim() === '') return 0;
  // The offsets in force a day either side of the wall-clock time (no zone changes twice within two days).
  const before = zoneOffsetMinutes(zone, localSeconds - 86_400);
  const after = zoneOffsetMinutes(zone, localSeconds + 86_400);
  const valid = [before, after].filter((o) => zoneOffsetMinutes(zone, localSeconds - o * 60) === o);
  if (valid.length === 0) return before;
  // The larger offset is the earlier instant.
  return Math.max(...valid);
}

/**
 * The epoch value of a timestamp string in `unit` (floored), or undefined when the string is not a
 * timestamp. `zone` applies to strings without an offset (`localOffsetMinutes`). Years may have 4 to
 * 6 digits and a sign; the value may lie outside every column's range (`checkTimestampRange`).
 */
export function parseTimestamp(text: string, unit: TimeUnit, zone = 'UTC'): bigint | undefined {
  const m = PATTERN.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', off] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) return undefined;
  const days = daysFromCivil(year, month, day);
  if (civilFromDays(days).day !== day) return undefined; // e.g. February 30
  const localSeconds = days * 86_400 + Number(h) * 3600 + Number(mi) * 60 + Number(s);
  let offset: number;
  if (off !== undefined) {
    const o = parseOffset(off);
    if (o === undefined) return undefined;
    offset = o;
  } else {
    offset = localOffsetMinutes(zone, localSeconds);
  }
  const ns = BigInt(localSeconds - offset * 60) * 1_000_000_000n + BigInt(frac.padEnd(9, '0') || '0');
  return convertTime(ns, 'ns', unit);
}

/**
 * The values a timestamp column of each unit holds: those DuckDB, which reads every column, can
 * convert (measured on DuckDB 1.5: a TIMESTAMP_NS from 1677-09-22 to 2262-04-11T23:47:16.854775806,
 * the other units from 290309 BC (-290308-12-22) to 294247-01-10T04:00:54.775806, their microsecond
 * range). Outside them DuckDB fails or, written as raw 64-bit integers, a value would wrap.
 */
export const TIMESTAMP_RANGE: Readonly<Record<TimeUnit, { readonly min: bigint; readonly max: bigint }>> = {
  s: { min: -9_223_372_022_400n, max: 9_223_372_036_854n },
  ms: { min: -9_223_372_022_400_000n, max: 9_223_372_036_854_775n },
  us: { min: -9_223_372_022_400_000_000n, max: 9_223_372_036_854_775_806n },
  ns: { min: -9_223_286_400_000_000_000n, max: 9_223_372_036_854_775_806n },
};

/** Whether `value` (in `unit`) is a timestamp a column of that unit holds. */
export function inTimestampRange(value: bigint, unit: TimeUnit): boolean {
  const r = TIMESTAMP_RANGE[unit];
  return value >= r.min && value <= r.max;
}

/** The UTC calendar date, time of day and nanoseconds of an instant (nanoseconds since the epoch; any year). */
export function utcParts(ns: bigint): { year: number; month: number; day: number; hour: number; minute: number; second: number; nanos: bigint } {
  let secs = ns / 1_000_000_000n;
  let nanos = ns % 1_000_000_000n;
  if (nanos < 0n) {
    nanos += 1_000_000_000n;
    secs -= 1n;
  }
  let days = secs / 86_400n;
  let sod = Number(secs % 86_400n);
  if (sod < 0) {
    sod += 86_400;
    days -= 1n;
  }
  return { ...civilFromDays(Number(days)), hour: Math.floor(sod / 3600), minute: Math.floor((sod % 3600) / 60), second: sod % 60, nanos };
}

/** `value` ticks of `unit` as UTC RFC 3339 text (any year; fraction in the unit's digits, none when zero). */
export function formatTimestamp(value: bigint, unit: TimeUnit): string {
  const { year, month, day, hour, minute, second, nanos } = utcParts(value * NS_PER_UNIT[unit]);
  const p2 = (n: number) => String(n).padStart(2, '0');
  const yearText = year < 0 ? `-${String(-year).padStart(4, '0')}` : year > 9999 ? `+${year}` : String(year).padStart(4, '0');
  const digits = { s: 0, ms: 3, us: 6, ns: 9 }[unit];
  const fraction = nanos === 0n || digits === 0 ? '' : `.${nanos.toString().padStart(9, '0').slice(0, digits)}`;
  return `${yearText}-${p2(month)}-${p2(day)}T${p2(hour)}:${p2(minute)}:${p2(second)}${fraction}Z`;
}

const UNIT_NAMES: Record<TimeUnit, string> = { s: 'TimestampSecond', ms: 'TimestampMillisecond', us: 'TimestampMicrosecond', ns: 'TimestampNanosecond' };

/**
 * Throws InvalidArguments naming the value, the column (when given) and the range when `value` (in
 * `unit`) is outside what a column of that unit holds (`TIMESTAMP_RANGE`); `shown` is the value as
 * the user wrote it, when it was text.
 */
export function checkTimestampRange(value: bigint, unit: TimeUnit, column?: string, shown?: string): void {
  if (inTimestampRange(value, unit)) return;
  const r = TIMESTAMP_RANGE[unit];
  const what = shown !== undefined ? `'${shown}'` : `${value} (${formatTimestamp(value, unit)})`;
  const where = column !== undefined ? `column ${column} (${UNIT_NAMES[unit]})` : UNIT_NAMES[unit];
  throw new TsdbError(StatusCode.InvalidArguments, `Timestamp ${what} is out of range for ${where}: it must be between ${formatTimestamp(r.min, unit)} and ${formatTimestamp(r.max, unit)}`);
}
