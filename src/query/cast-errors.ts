/**
 * DuckDB's conversion errors (a cast that fails on a value at run time) as GreptimeDB reports the
 * same failure: status 3001 (EngineExecuteQuery) with Arrow's / DataFusion's text, e.g.
 * `Cast error: Cannot cast string 'abc' to value of Int32 type` (sqlness `cast/`, `types/decimal/`).
 * Failures of other shapes keep DuckDB's text, still as 3001.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { decimalText } from './float-literals.js';

/** Arrow's names of DuckDB's type names as its conversion errors print them. */
const ARROW_TYPES: Readonly<Record<string, string>> = {
  BOOL: 'Boolean',
  BOOLEAN: 'Boolean',
  INT8: 'Int8',
  INT16: 'Int16',
  INT32: 'Int32',
  INT64: 'Int64',
  UINT8: 'UInt8',
  UINT16: 'UInt16',
  UINT32: 'UInt32',
  UINT64: 'UInt64',
  FLOAT: 'Float32',
  DOUBLE: 'Float64',
  DATE: 'Date32',
  VARCHAR: 'Utf8',
  TIMESTAMP: 'Timestamp(µs)',
  TIMESTAMP_S: 'Timestamp(s)',
  TIMESTAMP_MS: 'Timestamp(ms)',
  TIMESTAMP_NS: 'Timestamp(ns)',
};

function arrowType(duckdb: string): string {
  const d = /^DECIMAL\((\d+),(\d+)\)$/.exec(duckdb);
  if (d !== null) return `Decimal128(${d[1]}, ${d[2]})`;
  return ARROW_TYPES[duckdb] ?? duckdb;
}

/** A float as Rust's Display prints it (`100.0`, `1.5`, `NaN`, `inf`), from DuckDB's text of it. */
function rustFloat(text: string): string {
  if (/^[+-]?inf(inity)?$/i.test(text)) return text.startsWith('-') ? '-inf' : 'inf';
  const v = Number(text);
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  return Number.isInteger(v) && Math.abs(v) < 1e16 ? `${v}.0` : String(v);
}

/** `v` written with `scale` digits after the point (`100` → `100.0` at scale 1). */
const I128_MAX = 2n ** 127n - 1n;

function scaled(v: bigint, scale: number): string {
  const digits = (v < 0n ? -v : v).toString() + '0'.repeat(scale);
  const sign = v < 0n ? '-' : '';
  if (scale === 0) return `${sign}${digits}`;
  const int = digits.slice(0, digits.length - scale) || '0';
  return `${sign}${int}.${digits.slice(digits.length - scale)}`;
}

function castError(text: string, cause: unknown): TsdbError {
  return new TsdbError(StatusCode.EngineExecuteQuery, text, { cause });
}

/** GreptimeDB's error for a DuckDB `Conversion Error:` message (its text after the kind). */
export function conversionError(text: string, cause: unknown): TsdbError {
  return knownConversionError(text, cause) ?? castError(text, cause);
}

/**
 * GreptimeDB's error for a DuckDB conversion message of a known shape, else undefined (a failure
 * read from a streamed result comes without its `Conversion Error:` kind).
 */
export function knownConversionError(text: string, cause: unknown): TsdbError | undefined {
  // DuckDB names the column a value came from; GreptimeDB's text does not.
  const message = text.replace(/ when casting from source column .*$/s, '');
  let m = /^(?:date field value out of range|invalid date field format): "(.*?)"/s.exec(message);
  if (m !== null) return castError(`Cast error: Cannot cast string '${m[1]}' to value of Date32 type`, cause);
  // A SQL TIME is nanoseconds (`sql/cast-types.ts`).
  m = /^time field value out of range: "(.*?)"/s.exec(message);
  if (m !== null) return castError(`Cast error: Cannot cast string '${m[1]}' to value of Time64(ns) type`, cause);
  m = /^Could not convert string (['"])(.*)\1 to ([A-Z_0-9]+(?:\(\d+,\d+\))?)$/s.exec(message);
  if (m !== null) return castError(`Cast error: Cannot cast string '${m[2]}' to value of ${arrowType(m[3]!)} type`, cause);
  m = /^Type ([A-Z_0-9]+) with value (\S+) can't be cast because the value is out of range for the destination type ([A-Z_0-9]+)$/.exec(message);
  if (m !== null) {
    const value = m[1] === 'FLOAT' || m[1] === 'DOUBLE' ? rustFloat(m[2]!) : m[2]!;
    return castError(`Cast error: Can't cast value ${value} to type ${arrowType(m[3]!)}`, cause);
  }
  m = /^Failed to cast decimal value (\S+) to type ([A-Z_0-9]+)$/.exec(message);
  if (m !== null) return castError(`Cast error: value of ${m[1]!.replace(/^-/, '')} is out of range ${arrowType(m[2]!)}`, cause);
  m = /^Could not cast value (\S+) to DECIMAL\((\d+),(\d+)\)$/.exec(message);
  if (m !== null) {
    const [value, p, s] = [m[1]!, Number(m[2]), Number(m[3])];
    const max = scaled(10n ** BigInt(p) - 1n, 0);
    const tooLarge = (unscaled: bigint) =>
      castError(`Invalid argument error: ${decimalText(unscaled, s)} is too large to store in a Decimal128 of precision ${p}. Max is ${s === 0 ? max : `${max.slice(0, p - s) || '0'}.${max.slice(p - s)}`}`, cause);
    // An integer (DuckDB prints no point) is scaled in 128 bits, then checked by Arrow's precision rule.
    if (/^-?\d+$/.test(value)) {
      const unscaled = BigInt(value) * 10n ** BigInt(s);
      if (unscaled > I128_MAX || unscaled < -I128_MAX - 1n) return castError(`Arithmetic overflow: Overflow happened on: ${value} * ${10n ** BigInt(s)}`, cause);
      return tooLarge(unscaled);
    }
    // A float is scaled and rounded (half away from zero) as a double, then checked alike.
    const product = Number(value) * 10 ** s;
    if (Number.isFinite(product) && Math.abs(product) < 2 ** 127) return tooLarge(BigInt(Math.sign(product) * Math.round(Math.abs(product))));
    return castError(`Cast error: Cannot cast to Decimal128(${p}, ${s}). Overflowing on ${rustFloat(value)}`, cause);
  }
  return undefined;
}
