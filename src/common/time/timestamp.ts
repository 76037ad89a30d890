/**
 * Timestamp strings as users write them in SQL (reference api.md §4.3, §7): RFC 3339 and
 * `YYYY-MM-DD[ HH:MM[:SS[.fffffffff]]][Z|±hh[:mm]]`. A string without an offset is a time in the
 * session's time zone (`UTC`, `+08:00`, or an IANA name such as `Asia/Shanghai`).
 */

export type TimeUnit = 's' | 'ms' | 'us' | 'ns';

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
  /^\s*([+-]?\d{4,})-(\d{1,2})-(\d{1,2})(?:[T\s]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|UTC|[+-]\d{1,2}(?::?\d{2})?)?\s*$/i;

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

/** Offset in minutes of zone `zone` at UTC instant `utcMs`. */
function zoneOffsetAt(zone: string, utcMs: number): number {
  return zoneOffsetMinutes(zone, Math.floor(utcMs / 1000));
}

/** Offset in minutes of the session zone for a local wall-clock time given as if it were UTC. */
function sessionOffset(zone: string, localAsUtcMs: number): number {
  const fixed = parseOffset(zone);
  if (fixed !== undefined) return fixed;
  if (/^system$/i.test(zone.trim())) return 0;
  // Two steps find the offset in force at that wall-clock time (DST changes included).
  let offset = zoneOffsetAt(zone, localAsUtcMs);
  offset = zoneOffsetAt(zone, localAsUtcMs - offset * 60_000);
  return offset;
}

/**
 * The epoch value of a timestamp string in `unit` (floored), or undefined when the string is not a
 * timestamp. `zone` applies to strings without an offset.
 */
export function parseTimestamp(text: string, unit: TimeUnit, zone = 'UTC'): bigint | undefined {
  const m = PATTERN.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', off] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCMonth() !== month - 1) return undefined; // e.g. February 30
  const localMs = date.getTime() + Number(h) * 3_600_000 + Number(mi) * 60_000 + Number(s) * 1000;
  let offset: number;
  if (off !== undefined) {
    const o = parseOffset(off);
    if (o === undefined) return undefined;
    offset = o;
  } else {
    offset = sessionOffset(zone, localMs);
  }
  const ns = BigInt(localMs - offset * 60_000) * 1_000_000n + BigInt(frac.padEnd(9, '0') || '0');
  return convertTime(ns, 'ns', unit);
}
