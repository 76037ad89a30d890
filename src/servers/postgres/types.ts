/**
 * tsdb types as PostgreSQL sees them (reference api.md §5): the type OID and typlen of each
 * `data_type`, the text and binary encodings of result cells, the decoding of Bind parameters, and
 * command tags. Cells follow `query/output.ts`: timestamps are integers in their column's unit,
 * dates are days since 1970-01-01, decimals strings, binaries arrays of bytes.
 *
 * Binary formats (PostgreSQL `src/backend/utils/adt/*.c` send/recv functions): integers and floats
 * big-endian; bool one byte; timestamp Int64 microseconds since 2000-01-01; date Int32 days since
 * 2000-01-01; time Int64 microseconds since midnight; interval Int64 µs, Int32 days, Int32 months;
 * numeric Int16 ndigits, Int16 weight, Int16 sign, Int16 dscale, ndigits × Int16 base-10000 digits.
 */
import type { Cell, Output } from '../../query/output.js';
import { PgWireError, SQLSTATE } from './pg-error.js';
import type { FormatCode } from './messages.js';
import { civilFromDays } from '../../common/time/timestamp.js';
import { parseIntervalText } from '../../common/time/interval-text.js';

/** Type OIDs (PostgreSQL `pg_type.dat`). */
export const PG_OID = {
  BOOL: 16,
  BYTEA: 17,
  CHAR: 18,
  NAME: 19,
  INT8: 20,
  INT2: 21,
  INT4: 23,
  TEXT: 25,
  OID: 26,
  JSON: 114,
  FLOAT4: 700,
  FLOAT8: 701,
  UNKNOWN: 705,
  BPCHAR: 1042,
  VARCHAR: 1043,
  DATE: 1082,
  TIME: 1083,
  TIMESTAMP: 1114,
  TIMESTAMPTZ: 1184,
  INTERVAL: 1186,
  NUMERIC: 1700,
  JSONB: 3802,
} as const;

/** How a PostgreSQL type appears in a RowDescription. */
export interface PgType {
  readonly oid: number;
  /** pg_type.typname. */
  readonly name: string;
  /** pg_type.typlen: bytes of a fixed-width value, -1 for variable width. */
  readonly len: number;
}

const T = {
  bool: { oid: PG_OID.BOOL, name: 'bool', len: 1 },
  int2: { oid: PG_OID.INT2, name: 'int2', len: 2 },
  int4: { oid: PG_OID.INT4, name: 'int4', len: 4 },
  int8: { oid: PG_OID.INT8, name: 'int8', len: 8 },
  numeric: { oid: PG_OID.NUMERIC, name: 'numeric', len: -1 },
  float4: { oid: PG_OID.FLOAT4, name: 'float4', len: 4 },
  float8: { oid: PG_OID.FLOAT8, name: 'float8', len: 8 },
  varchar: { oid: PG_OID.VARCHAR, name: 'varchar', len: -1 },
  bytea: { oid: PG_OID.BYTEA, name: 'bytea', len: -1 },
  date: { oid: PG_OID.DATE, name: 'date', len: 4 },
  timestamp: { oid: PG_OID.TIMESTAMP, name: 'timestamp', len: 8 },
  time: { oid: PG_OID.TIME, name: 'time', len: 8 },
  interval: { oid: PG_OID.INTERVAL, name: 'interval', len: 16 },
  json: { oid: PG_OID.JSON, name: 'json', len: -1 },
} as const satisfies Record<string, PgType>;

/** The PostgreSQL type of a tsdb `data_type` (api.md §5); unknown names are shown as varchar. */
export function pgTypeOf(dataType: string): PgType {
  switch (dataType) {
    case 'Boolean':
      return T.bool;
    case 'Int8':
    case 'Int16':
    case 'UInt8':
      return T.int2;
    case 'Int32':
    case 'UInt16':
      return T.int4;
    case 'Int64':
    case 'UInt32':
      return T.int8;
    case 'UInt64':
      return T.numeric;
    case 'Float32':
      return T.float4;
    case 'Float64':
      return T.float8;
    case 'String':
      return T.varchar;
    case 'Binary':
      return T.bytea;
    case 'Date':
      return T.date;
    case 'Json':
      return T.json;
  }
  if (dataType.startsWith('Timestamp')) return T.timestamp;
  if (dataType.startsWith('Time')) return T.time;
  if (dataType.startsWith('Interval')) return T.interval;
  if (dataType.startsWith('Decimal')) return T.numeric;
  if (dataType.startsWith('Vector')) return T.bytea;
  if (dataType === 'Struct') return T.json;
  return T.varchar;
}

/** Sub-second digits of the unit of a `Timestamp*` / `Time*` type name: 0, 3, 6 or 9. */
export function unitDigits(dataType: string): number {
  if (dataType.endsWith('Nanosecond')) return 9;
  if (dataType.endsWith('Microsecond')) return 6;
  if (dataType.endsWith('Millisecond')) return 3;
  if (dataType.endsWith('Second')) return 0;
  return 3; // `Timestamp` alone: milliseconds, tsdb's default precision
}

export interface EncodeOptions {
  /**
   * UTC offset in seconds of the session time zone at an instant (µs since the Unix epoch):
   * timestamps are shown as wall-clock time there. Default UTC.
   */
  readonly utcOffsetSeconds?: (epochMicros: bigint) => number;
}

/**
 * An encoder of one column's cells in a format: chosen once per column, applied to every row.
 * Returns null for a null cell.
 */
export type CellEncoder = (cell: Cell) => Buffer | null;

export function cellEncoder(dataType: string, format: FormatCode, opts: EncodeOptions = {}): CellEncoder {
  const t = pgTypeOf(dataType);
  const text = textEncoder(dataType, t, opts);
  if (format === 0) {
    return (c) => {
      if (c === null) return null;
      return Buffer.from(text(c), 'utf8');
    };
  }
  const bin = binaryEncoder(dataType, t, opts, text);
  return (c) => (c === null ? null : bin(c));
}

/** A cell's text form (null for a null cell). */
export function encodeText(dataType: string, cell: Cell, opts: EncodeOptions = {}): string | null {
  if (cell === null) return null;
  return textEncoder(dataType, pgTypeOf(dataType), opts)(cell);
}

/** A cell's binary form (null for a null cell). */
export function encodeBinary(dataType: string, cell: Cell, opts: EncodeOptions = {}): Buffer | null {
  return cellEncoder(dataType, 1, opts)(cell);
}

function textEncoder(dataType: string, t: PgType, opts: EncodeOptions): (c: Cell) => string {
  switch (t.oid) {
    case PG_OID.BOOL:
      return (c) => (truthy(c) ? 't' : 'f');
    case PG_OID.INT2:
    case PG_OID.INT4:
    case PG_OID.INT8:
    case PG_OID.NUMERIC:
      return (c) => (typeof c === 'object' ? JSON.stringify(c) : String(c));
    case PG_OID.FLOAT4:
      return (c) => formatFloat(Number(c), true);
    case PG_OID.FLOAT8:
      return (c) => formatFloat(Number(c), false);
    case PG_OID.BYTEA:
      return (c) => '\\x' + bytesOf(c).toString('hex');
    case PG_OID.DATE:
      return (c) => (typeof c === 'string' ? c : formatDate(Number(c)));
    case PG_OID.TIMESTAMP: {
      const toMicros = microsFrom(unitDigits(dataType));
      return (c) => (typeof c === 'string' ? c : formatTimestamp(localMicros(toMicros(c), opts)));
    }
    case PG_OID.TIME: {
      const toMicros = microsFrom(unitDigits(dataType));
      return (c) => (typeof c === 'string' ? c : formatTime(toMicros(c)));
    }
    case PG_OID.INTERVAL:
      return (c) => (typeof c === 'string' ? formatInterval(parseInterval(c)) : formatInterval(intervalOf(c)));
    default:
      return (c) => (typeof c === 'string' ? c : stringify(c));
  }
}

function binaryEncoder(dataType: string, t: PgType, opts: EncodeOptions, text: (c: Cell) => string): (c: Cell) => Buffer {
  switch (t.oid) {
    case PG_OID.BOOL:
      return (c) => Buffer.from([truthy(c) ? 1 : 0]);
    case PG_OID.INT2:
      return (c) => {
        const b = Buffer.allocUnsafe(2);
        b.writeInt16BE(checkedInt(c, -32768, 32767, 'smallint'));
        return b;
      };
    case PG_OID.INT4:
      return (c) => {
        const b = Buffer.allocUnsafe(4);
        b.writeInt32BE(checkedInt(c, -2147483648, 2147483647, 'integer'));
        return b;
      };
    case PG_OID.INT8:
      return (c) => {
        const b = Buffer.allocUnsafe(8);
        b.writeBigInt64BE(checkedBigInt(c));
        return b;
      };
    case PG_OID.FLOAT4:
      return (c) => {
        const b = Buffer.allocUnsafe(4);
        b.writeFloatBE(Number(c));
        return b;
      };
    case PG_OID.FLOAT8:
      return (c) => {
        const b = Buffer.allocUnsafe(8);
        b.writeDoubleBE(Number(c));
        return b;
      };
    case PG_OID.NUMERIC:
      return (c) => encodeNumericBinary(text(c));
    case PG_OID.BYTEA:
      return bytesOf;
    case PG_OID.DATE:
      return (c) => {
        const days = typeof c === 'string' ? parseDateDays(c) : Number(c);
        const b = Buffer.allocUnsafe(4);
        b.writeInt32BE(days - PG_EPOCH_DAYS);
        return b;
      };
    case PG_OID.TIMESTAMP: {
      const toMicros = microsFrom(unitDigits(dataType));
      return (c) => {
        if (typeof c === 'string') throw unsupportedBinary(dataType, c);
        const b = Buffer.allocUnsafe(8);
        b.writeBigInt64BE(localMicros(toMicros(c), opts) - PG_EPOCH_MICROS);
        return b;
      };
    }
    case PG_OID.TIME: {
      const toMicros = microsFrom(unitDigits(dataType));
      return (c) => {
        const b = Buffer.allocUnsafe(8);
        b.writeBigInt64BE(typeof c === 'string' ? parseTimeMicros(c) : toMicros(c));
        return b;
      };
    }
    case PG_OID.INTERVAL:
      return (c) => {
        const iv = typeof c === 'string' ? parseInterval(c) : intervalOf(c);
        const b = Buffer.allocUnsafe(16);
        b.writeBigInt64BE(iv.micros, 0);
        b.writeInt32BE(iv.days, 8);
        b.writeInt32BE(iv.months, 12);
        return b;
      };
    default:
      // varchar, json (binary json is its text), anything shown as text.
      return (c) => Buffer.from(text(c), 'utf8');
  }
}

function unsupportedBinary(dataType: string, c: Cell): PgWireError {
  return new PgWireError(SQLSTATE.FEATURE_NOT_SUPPORTED, `cannot encode ${JSON.stringify(c)} of type ${dataType} in binary format`);
}

function truthy(c: Cell): boolean {
  if (typeof c === 'string') return c === 't' || c === 'true' || c === '1';
  return Boolean(c);
}

function checkedInt(c: Cell, min: number, max: number, what: string): number {
  const v = Number(c);
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new PgWireError(SQLSTATE.NUMERIC_VALUE_OUT_OF_RANGE, `value ${String(c)} out of range for type ${what}`);
  }
  return v;
}

function checkedBigInt(c: Cell): bigint {
  let v: bigint;
  try {
    v = typeof c === 'bigint' ? c : BigInt(c as number | string);
  } catch {
    throw new PgWireError(SQLSTATE.INVALID_TEXT_REPRESENTATION, `invalid input syntax for type bigint: ${String(c)}`);
  }
  if (v < -(1n << 63n) || v >= 1n << 63n) throw new PgWireError(SQLSTATE.NUMERIC_VALUE_OUT_OF_RANGE, `value ${v} out of range for type bigint`);
  return v;
}

function bytesOf(c: Cell): Buffer {
  if (Array.isArray(c)) return Buffer.from(c as number[]);
  if (typeof c === 'string') return Buffer.from(c, 'utf8');
  return Buffer.from(stringify(c), 'utf8');
}

/** JSON text of a cell, 64-bit integers (bigint) written as plain numbers. */
function stringify(c: Cell): string {
  if (typeof c === 'string') return c;
  if (typeof c === 'bigint') return c.toString();
  if (c === null || typeof c !== 'object') return JSON.stringify(c);
  if (Array.isArray(c)) return `[${c.map((x: Cell) => (typeof x === 'string' ? JSON.stringify(x) : stringify(x))).join(',')}]`;
  const o = c as { readonly [k: string]: Cell };
  return `{${Object.keys(o)
    .map((k) => `${JSON.stringify(k)}:${typeof o[k] === 'string' ? JSON.stringify(o[k]) : stringify(o[k]!)}`)
    .join(',')}}`;
}

/**
 * A float as PostgreSQL's float4out/float8out print it (PostgreSQL 12+): the shortest digits that
 * read back to the same value, in exponent form when the exponent is below -4 or at least 6 (float4)
 * / 15 (float8), the exponent with a sign and at least two digits.
 */
export function formatFloat(v: number, single: boolean): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  let exp: string;
  if (single) {
    const f = Math.fround(v);
    exp = f.toExponential(8);
    for (let p = 0; p <= 8; p++) {
      const s = f.toExponential(p);
      if (Math.fround(Number(s)) === f) {
        exp = s;
        break;
      }
    }
  } else {
    exp = v.toExponential();
  }
  const [mant, e] = exp.split('e') as [string, string];
  const x = Number(e);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  if (x < -4 || x >= (single ? 6 : 15)) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${neg ? '-' : ''}${m}e${x < 0 ? '-' : '+'}${String(Math.abs(x)).padStart(2, '0')}`;
  }
  let s: string;
  if (x < 0) s = '0.' + '0'.repeat(-x - 1) + digits;
  else if (digits.length <= x + 1) s = digits + '0'.repeat(x + 1 - digits.length);
  else s = `${digits.slice(0, x + 1)}.${digits.slice(x + 1)}`;
  return (neg ? '-' : '') + s;
}

// Dates and times.

/** 2000-01-01, PostgreSQL's epoch, in days and microseconds since 1970-01-01. */
export const PG_EPOCH_DAYS = 10957;
export const PG_EPOCH_MICROS = 946_684_800_000_000n;
const MICROS_PER_DAY = 86_400_000_000n;

function microsFrom(digits: number): (c: Cell) => bigint {
  const toBig = (c: Cell): bigint => {
    if (typeof c === 'bigint') return c;
    if (typeof c === 'number' && Number.isInteger(c)) return BigInt(c);
    throw new PgWireError(SQLSTATE.INVALID_TEXT_REPRESENTATION, `invalid time value: ${String(c)}`);
  };
  switch (digits) {
    case 0:
      return (c) => toBig(c) * 1_000_000n;
    case 3:
      return (c) => toBig(c) * 1000n;
    case 6:
      return toBig;
    default:
      // Nanoseconds: PostgreSQL keeps microseconds; truncate toward minus infinity.
      return (c) => floorDiv(toBig(c), 1000n);
  }
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function localMicros(micros: bigint, opts: EncodeOptions): bigint {
  return opts.utcOffsetSeconds ? micros + BigInt(opts.utcOffsetSeconds(micros)) * 1_000_000n : micros;
}

function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const p2 = (n: number | bigint): string => String(n).padStart(2, '0');

/** `YYYY-MM-DD` (ISO DateStyle); years before 1 as PostgreSQL does, `YYYY-MM-DD BC`. */
export function formatDate(days: number): string {
  const { year: y, month: m, day: d } = civilFromDays(days);
  const bc = y <= 0;
  return `${String(bc ? 1 - y : y).padStart(4, '0')}-${p2(m)}-${p2(d)}${bc ? ' BC' : ''}`;
}

function fraction(micros: bigint): string {
  if (micros === 0n) return '';
  return '.' + String(micros).padStart(6, '0').replace(/0+$/, '');
}

/** `YYYY-MM-DD HH:MM:SS[.ffffff]` of microseconds since 1970-01-01 (trailing zeros dropped, as PostgreSQL). */
export function formatTimestamp(micros: bigint): string {
  const days = floorDiv(micros, MICROS_PER_DAY);
  const date = formatDate(Number(days));
  const bc = date.endsWith(' BC');
  const time = formatTime(micros - days * MICROS_PER_DAY);
  return bc ? `${date.slice(0, -3)} ${time} BC` : `${date} ${time}`;
}

/** `HH:MM:SS[.ffffff]` of microseconds since midnight. */
export function formatTime(micros: bigint): string {
  const secs = micros / 1_000_000n;
  return `${p2(secs / 3600n)}:${p2((secs / 60n) % 60n)}:${p2(secs % 60n)}${fraction(micros % 1_000_000n)}`;
}

function parseDateDays(s: string): number {
  const m = /^(\d{4,})-(\d{2})-(\d{2})$/.exec(s.trim());
  if (!m) throw new PgWireError(SQLSTATE.INVALID_TEXT_REPRESENTATION, `invalid input syntax for type date: "${s}"`);
  return daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
}

function parseTimeMicros(s: string): bigint {
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(s.trim());
  if (!m) throw new PgWireError(SQLSTATE.INVALID_TEXT_REPRESENTATION, `invalid input syntax for type time: "${s}"`);
  const frac = BigInt((m[4] ?? '').padEnd(6, '0').slice(0, 6));
  return (BigInt(m[1]!) * 3600n + BigInt(m[2]!) * 60n + BigInt(m[3]!)) * 1_000_000n + frac;
}

// Intervals.

export interface PgInterval {
  readonly months: number;
  readonly days: number;
  readonly micros: bigint;
}

function intervalOf(c: Cell): PgInterval {
  if (c !== null && typeof c === 'object' && !Array.isArray(c)) {
    const o = c as { readonly [k: string]: Cell };
    const nanos = o['nanoseconds'] ?? o['nanos'] ?? 0;
    const micros = o['microseconds'] ?? o['micros'];
    return {
      months: Number(o['months'] ?? 0),
      days: Number(o['days'] ?? 0),
      micros: micros !== undefined && micros !== null ? BigInt(micros as number) : floorDiv(BigInt(nanos as number), 1000n),
    };
  }
  throw new PgWireError(SQLSTATE.INVALID_TEXT_REPRESENTATION, `invalid interval value: ${stringify(c)}`);
}

/** An interval in PostgreSQL's `postgres` IntervalStyle: `1 year 2 mons 3 days 04:05:06.5`. */
export function formatInterval(iv: PgInterval): string {
  const parts: string[] = [];
  const years = Math.trunc(iv.months / 12);
  const mons = iv.months % 12;
  if (years !== 0) parts.push(`${years} year${Math.abs(years) === 1 ? '' : 's'}`);
  if (mons !== 0) parts.push(`${mons} mon${Math.abs(mons) === 1 ? '' : 's'}`);
  if (iv.days !== 0) parts.push(`${iv.days} day${Math.abs(iv.days) === 1 ? '' : 's'}`);
  if (iv.micros !== 0n || parts.length === 0) {
    const neg = iv.micros < 0n;
    const t = formatTime(neg ? -iv.micros : iv.micros);
    parts.push(neg ? `-${t}` : t);
  }
  return parts.join(' ');
}

const INTERVAL_UNITS: Record<string, [keyof PgInterval, number]> = {
  year: ['months', 12],
  years: ['months', 12],
  mon: ['months', 1],
  mons: ['months', 1],
  month: ['months', 1],
  months: ['months', 1],
  day: ['days', 1],
  days: ['days', 1],
};

/**
 * Reads the interval text of query results (Arrow's display, `14 mons 3 days 4 hours 6.000100000 secs`,
 * `common/time/interval-text.ts`) or PostgreSQL's (`1 year 2 months 3 days 04:05:06.5`).
 */
function parseInterval(s: string): PgInterval {
  const shown = parseIntervalText(s);
  if (shown !== undefined) return { months: shown.months, days: shown.days, micros: floorDiv(shown.nanos, 1000n) };
  let months = 0;
  let days = 0;
  let micros = 0n;
  const bad = (): PgWireError => new PgWireError(SQLSTATE.INVALID_TEXT_REPRESENTATION, `invalid input syntax for type interval: "${s}"`);
  const tokens = s.trim().split(/\s+/).filter((x) => x !== '');
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    const time = /^(-?)(\d+):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(tok);
    if (time) {
      const v = (BigInt(time[2]!) * 3600n + BigInt(time[3]!) * 60n + BigInt(time[4]!)) * 1_000_000n + BigInt((time[5] ?? '').padEnd(6, '0').slice(0, 6));
      micros += time[1] ? -v : v;
      continue;
    }
    const unit = INTERVAL_UNITS[tokens[i + 1] ?? ''];
    if (!/^-?\d+$/.test(tok) || !unit) throw bad();
    if (unit[0] === 'months') months += Number(tok) * unit[1];
    else days += Number(tok);
    i++;
  }
  return { months, days, micros };
}

// Numeric.

/** numeric's binary form from its text (`-12.3400`, `NaN`, `Infinity`). */
export function encodeNumericBinary(text: string): Buffer {
  const head = (ndigits: number, weight: number, sign: number, dscale: number): Buffer => {
    const b = Buffer.alloc(8 + 2 * ndigits);
    b.writeInt16BE(ndigits, 0);
    b.writeInt16BE(weight, 2);
    b.writeUInt16BE(sign, 4);
    b.writeInt16BE(dscale, 6);
    return b;
  };
  const s = text.trim();
  if (/^nan$/i.test(s)) return head(0, 0, 0xc000, 0);
  if (/^\+?inf(inity)?$/i.test(s)) return head(0, 0, 0xd000, 0);
  if (/^-inf(inity)?$/i.test(s)) return head(0, 0, 0xf000, 0);
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) {
    throw new PgWireError(SQLSTATE.INVALID_TEXT_REPRESENTATION, `invalid input syntax for type numeric: "${text}"`);
  }
  const neg = m[1] === '-';
  let intPart = m[2]!;
  let fracPart = m[3] ?? '';
  const e = Number(m[4] ?? 0);
  if (e > 0) {
    const moved = fracPart.slice(0, e).padEnd(e, '0');
    intPart += moved;
    fracPart = fracPart.slice(e);
  } else if (e < 0) {
    const padded = intPart.padStart(-e, '0');
    fracPart = padded.slice(padded.length + e) + fracPart;
    intPart = padded.slice(0, padded.length + e);
  }
  const dscale = fracPart.length;
  intPart = intPart.replace(/^0+/, '');
  // Base-10000 groups aligned on the decimal point.
  const intGroups = Math.ceil(intPart.length / 4);
  const intPadded = intPart.padStart(intGroups * 4, '0');
  const fracPadded = fracPart.padEnd(Math.ceil(fracPart.length / 4) * 4, '0');
  let groups: number[] = [];
  for (let i = 0; i < intPadded.length; i += 4) groups.push(Number(intPadded.slice(i, i + 4)));
  for (let i = 0; i < fracPadded.length; i += 4) groups.push(Number(fracPadded.slice(i, i + 4)));
  let weight = intGroups - 1;
  // Strip leading and trailing zero groups.
  let lead = 0;
  while (lead < groups.length && groups[lead] === 0) lead++;
  groups = groups.slice(lead);
  weight -= lead;
  while (groups.length > 0 && groups[groups.length - 1] === 0) groups.pop();
  if (groups.length === 0) return head(0, 0, 0, dscale);
  const b = head(groups.length, weight, neg ? 0x4000 : 0, dscale);
  groups.forEach((g, i) => b.writeInt16BE(g, 8 + 2 * i));
  return b;
}

/** numeric's text from its binary form. */
export function decodeNumericBinary(b: Buffer): string {
  if (b.length < 8) throw binaryParamError('numeric');
  const ndigits = b.readInt16BE(0);
  const weight = b.readInt16BE(2);
  const sign = b.readUInt16BE(4);
  const dscale = b.readInt16BE(6);
  if (ndigits < 0 || b.length !== 8 + 2 * ndigits || dscale < 0) throw binaryParamError('numeric');
  if (sign === 0xc000) return 'NaN';
  if (sign === 0xd000) return 'Infinity';
  if (sign === 0xf000) return '-Infinity';
  if (sign !== 0 && sign !== 0x4000) throw binaryParamError('numeric');
  const digits: number[] = [];
  for (let i = 0; i < ndigits; i++) {
    const d = b.readInt16BE(8 + 2 * i);
    if (d < 0 || d > 9999) throw binaryParamError('numeric');
    digits.push(d);
  }
  let int = '';
  for (let w = weight, i = 0; w >= 0; w--, i++) int += String(digits[i] ?? 0).padStart(4, '0');
  int = int.replace(/^0+/, '') || '0';
  let frac = '';
  for (let i = weight + 1; frac.length < dscale; i++) frac += String(i < 0 ? 0 : (digits[i] ?? 0)).padStart(4, '0');
  frac = frac.slice(0, dscale);
  const s = dscale > 0 ? `${int}.${frac}` : int;
  return sign === 0x4000 && /[1-9]/.test(s) ? `-${s}` : s;
}

// ---------------------------------------------------------------------------------------------
// Parameters

/**
 * A decoded Bind parameter: int2/int4 as numbers, int8 as bigint, floats as numbers, bool as
 * boolean, bytea as Buffer, numeric, date, timestamp, timestamptz, time, json and text types as
 * strings (timestamps in PostgreSQL's text form, naive ones meant in the session time zone).
 */
export type ParamValue = null | boolean | number | bigint | string | Buffer;

function textParamError(type: string, text: string): PgWireError {
  return new PgWireError(SQLSTATE.INVALID_TEXT_REPRESENTATION, `invalid input syntax for type ${type}: "${text}"`);
}

function binaryParamError(type: string): PgWireError {
  return new PgWireError(SQLSTATE.INVALID_BINARY_REPRESENTATION, `incorrect binary data format for type ${type}`);
}

/** Decodes one Bind parameter of type `oid` (0: unspecified, read as text) in its format. */
export function decodeParam(value: Buffer | null, oid: number, format: FormatCode): ParamValue {
  if (value === null) return null;
  return format === 1 ? decodeBinaryParam(value, oid) : decodeTextParam(value.toString('utf8'), oid);
}

/** The format of parameter `i` from a Bind's format codes (none: text; one: for all). */
export function paramFormat(formats: readonly FormatCode[], i: number): FormatCode {
  if (formats.length === 0) return 0;
  if (formats.length === 1) return formats[0]!;
  return formats[i] ?? 0;
}

function decodeTextParam(s: string, oid: number): ParamValue {
  switch (oid) {
    case PG_OID.INT2:
    case PG_OID.INT4: {
      const t = s.trim();
      if (!/^[+-]?\d+$/.test(t)) throw textParamError(oid === PG_OID.INT2 ? 'smallint' : 'integer', s);
      const v = Number(t);
      const max = oid === PG_OID.INT2 ? 32767 : 2147483647;
      if (v > max || v < -max - 1) {
        throw new PgWireError(SQLSTATE.NUMERIC_VALUE_OUT_OF_RANGE, `value "${s}" is out of range for type ${oid === PG_OID.INT2 ? 'smallint' : 'integer'}`);
      }
      return v;
    }
    case PG_OID.INT8: {
      const t = s.trim();
      if (!/^[+-]?\d+$/.test(t)) throw textParamError('bigint', s);
      const v = BigInt(t);
      if (v < -(1n << 63n) || v >= 1n << 63n) throw new PgWireError(SQLSTATE.NUMERIC_VALUE_OUT_OF_RANGE, `value "${s}" is out of range for type bigint`);
      return v;
    }
    case PG_OID.FLOAT4:
    case PG_OID.FLOAT8: {
      const t = s.trim();
      const special: Record<string, number> = { nan: NaN, infinity: Infinity, '+infinity': Infinity, '-infinity': -Infinity, inf: Infinity, '+inf': Infinity, '-inf': -Infinity };
      const sp = special[t.toLowerCase()];
      if (sp !== undefined) return sp;
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) throw textParamError(oid === PG_OID.FLOAT4 ? 'real' : 'double precision', s);
      const v = Number(t);
      return oid === PG_OID.FLOAT4 ? Math.fround(v) : v;
    }
    case PG_OID.BOOL: {
      const t = s.trim().toLowerCase();
      if (t === '') throw textParamError('boolean', s);
      if ('true'.startsWith(t) || 'yes'.startsWith(t) || t === 'on' || t === '1') return true;
      if ('false'.startsWith(t) || 'no'.startsWith(t) || t === 'of' || t === 'off' || t === '0') return false;
      throw textParamError('boolean', s);
    }
    case PG_OID.NUMERIC: {
      const t = s.trim();
      if (!/^([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|nan|[+-]?inf(inity)?)$/i.test(t)) throw textParamError('numeric', s);
      return t;
    }
    case PG_OID.BYTEA:
      return decodeByteaText(s);
    default:
      // text, varchar, bpchar, name, unknown, unspecified (0), date, time, timestamp[tz], json…: as given.
      return s;
  }
}

/** bytea's text input: `\x` hex, or the escape format (`\\`, `\ooo`). */
function decodeByteaText(s: string): Buffer {
  if (s.startsWith('\\x')) {
    const hex = s.slice(2).replace(/\s+/g, '');
    if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw textParamError('bytea', s);
    return Buffer.from(hex, 'hex');
  }
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch !== '\\') {
      out.push(...Buffer.from(ch, 'utf8'));
    } else if (s[i + 1] === '\\') {
      out.push(0x5c);
      i++;
    } else if (/^[0-3][0-7]{2}$/.test(s.slice(i + 1, i + 4))) {
      out.push(parseInt(s.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      throw textParamError('bytea', s);
    }
  }
  return Buffer.from(out);
}

function decodeBinaryParam(b: Buffer, oid: number): ParamValue {
  const need = (n: number, type: string): void => {
    if (b.length !== n) throw binaryParamError(type);
  };
  switch (oid) {
    case PG_OID.BOOL:
      need(1, 'boolean');
      return b[0] !== 0;
    case PG_OID.INT2:
      need(2, 'smallint');
      return b.readInt16BE(0);
    case PG_OID.INT4:
      need(4, 'integer');
      return b.readInt32BE(0);
    case PG_OID.INT8:
      need(8, 'bigint');
      return b.readBigInt64BE(0);
    case PG_OID.OID:
      need(4, 'oid');
      return b.readUInt32BE(0);
    case PG_OID.FLOAT4:
      need(4, 'real');
      return b.readFloatBE(0);
    case PG_OID.FLOAT8:
      need(8, 'double precision');
      return b.readDoubleBE(0);
    case PG_OID.NUMERIC:
      return decodeNumericBinary(b);
    case PG_OID.BYTEA:
      return Buffer.from(b);
    case PG_OID.DATE:
      need(4, 'date');
      return formatDate(b.readInt32BE(0) + PG_EPOCH_DAYS);
    case PG_OID.TIME:
      need(8, 'time');
      return formatTime(b.readBigInt64BE(0));
    case PG_OID.TIMESTAMP:
      need(8, 'timestamp');
      return formatTimestamp(b.readBigInt64BE(0) + PG_EPOCH_MICROS);
    case PG_OID.TIMESTAMPTZ:
      need(8, 'timestamp with time zone');
      return formatTimestamp(b.readBigInt64BE(0) + PG_EPOCH_MICROS) + '+00:00';
    case PG_OID.JSONB:
      if (b.length < 1 || b[0] !== 1) throw binaryParamError('jsonb');
      return b.toString('utf8', 1);
    case 0:
    case PG_OID.TEXT:
    case PG_OID.VARCHAR:
    case PG_OID.BPCHAR:
    case PG_OID.NAME:
    case PG_OID.UNKNOWN:
    case PG_OID.JSON:
    case PG_OID.CHAR:
      return b.toString('utf8');
    default:
      throw new PgWireError(SQLSTATE.FEATURE_NOT_SUPPORTED, `binary format for parameters of type ${oid} is not supported`);
  }
}

// ---------------------------------------------------------------------------------------------
// Command tags

/**
 * The CommandComplete tag of an output as GreptimeDB's PostgreSQL server writes it (api.md §5):
 * `SELECT <n>` for rows, `OK <n>` for affected rows.
 */
export function commandTag(output: Output): string {
  return output.kind === 'records' ? `SELECT ${output.rows.length}` : `OK ${output.rows}`;
}

/**
 * PostgreSQL's own tags, for intercepted statements and clients that read tags: `INSERT 0 <n>`
 * (the 0 is the old OID field), `SELECT|UPDATE|DELETE|MERGE|FETCH|MOVE|COPY <n>`, the bare verb
 * otherwise (`CREATE TABLE`, `BEGIN`, `SET`, …).
 */
export function pgCommandTag(verb: string, rows?: number): string {
  const v = verb.toUpperCase();
  if (v === 'INSERT') return `INSERT 0 ${rows ?? 0}`;
  if (['SELECT', 'UPDATE', 'DELETE', 'MERGE', 'FETCH', 'MOVE', 'COPY'].includes(v)) return `${v} ${rows ?? 0}`;
  return v;
}
