/**
 * Timestamps as MySQL text rows show them (reference api.md §5, §7): `YYYY-MM-DD HH:MM:SS` in the
 * session time zone, with the fraction in 3-digit groups (`.fff`, `.ffffff`, `.fffffffff`), none
 * when it is zero.
 */
import { NS_PER_UNIT, zoneOffsetMinutes } from '../../common/time/timestamp.js';
import type { TimeUnit } from '../../types/time-unit.js';

/** The unit of a tsdb timestamp or time type name (`TimestampMillisecond`, `TimeSecond`, …). */
export function timeUnitOf(dataType: string): TimeUnit | undefined {
  const m = /^(?:Timestamp|Time)(Second|Millisecond|Microsecond|Nanosecond)$/.exec(dataType);
  if (!m) return undefined;
  return ({ Second: 's', Millisecond: 'ms', Microsecond: 'us', Nanosecond: 'ns' } as const)[m[1] as 'Second'];
}

export { zoneOffsetMinutes };

export interface CivilTime {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  /** Nanoseconds within the second. */
  readonly nanos: number;
}

/** The wall-clock time in `zone` of `value` ticks of `unit` since the epoch. */
export function civilTime(value: bigint | number, unit: TimeUnit, zone: string): CivilTime {
  const ns = BigInt(value) * NS_PER_UNIT[unit];
  let secs = ns / 1_000_000_000n;
  let nanos = ns % 1_000_000_000n;
  if (nanos < 0n) {
    nanos += 1_000_000_000n;
    secs -= 1n;
  }
  const utcSeconds = Number(secs);
  const local = utcSeconds + zoneOffsetMinutes(zone, utcSeconds) * 60;
  const days = Math.floor(local / 86_400);
  const sod = local - days * 86_400;
  const d = new Date(0);
  d.setTime(days * 86_400_000);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: Math.floor(sod / 3600),
    minute: Math.floor((sod % 3600) / 60),
    second: sod % 60,
    nanos: Number(nanos),
  };
}

const pad = (n: number, w: number) => (n < 0 ? '-' + String(-n).padStart(w, '0') : String(n).padStart(w, '0'));

/** Fraction of a second in 3-digit groups, none when zero: `.5` ns → `.000000005`. */
export function fractionText(nanos: number): string {
  if (nanos === 0) return '';
  const s = String(nanos).padStart(9, '0');
  if (s.endsWith('000000')) return '.' + s.slice(0, 3);
  if (s.endsWith('000')) return '.' + s.slice(0, 6);
  return '.' + s;
}

/** `YYYY-MM-DD`. */
export function dateText(t: Pick<CivilTime, 'year' | 'month' | 'day'>): string {
  return `${pad(t.year, 4)}-${pad(t.month, 2)}-${pad(t.day, 2)}`;
}

/** `YYYY-MM-DD HH:MM:SS[.fff|.ffffff|.fffffffff]` of a timestamp in `zone`. */
export function formatTimestamp(value: bigint | number, unit: TimeUnit, zone: string): string {
  const t = civilTime(value, unit, zone);
  return `${dateText(t)} ${pad(t.hour, 2)}:${pad(t.minute, 2)}:${pad(t.second, 2)}${fractionText(t.nanos)}`;
}

/** `YYYY-MM-DD` of a Date value: days since 1970-01-01. */
export function formatDate(days: number): string {
  const d = new Date(days * 86_400_000);
  return dateText({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() });
}

/** `[-]HH:MM:SS[.fff…]` of a time of day (or duration) of `value` ticks of `unit`. */
export function formatTime(value: bigint | number, unit: TimeUnit): string {
  let ns = BigInt(value) * NS_PER_UNIT[unit];
  const negative = ns < 0n;
  if (negative) ns = -ns;
  const secs = Number(ns / 1_000_000_000n);
  const nanos = Number(ns % 1_000_000_000n);
  const h = Math.floor(secs / 3600);
  const text = `${pad(h, 2)}:${pad(Math.floor((secs % 3600) / 60), 2)}:${pad(secs % 60, 2)}${fractionText(nanos)}`;
  return negative ? '-' + text : text;
}
