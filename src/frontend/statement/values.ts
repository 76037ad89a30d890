/**
 * Literal values of statements (VALUES rows, DEFAULT clauses) converted to a column's type, with
 * the reference's messages for values that do not fit (api.md §2).
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { decimalOf, vectorDimOf, type ColumnType, type DefaultValue } from '../../types/region-metadata.js';
import { decimalText } from '../../types/decimal.js';
import { parseVectorText, VectorTextError } from '../../common/vector-text.js';
import type { ValueExpr } from '../../sql/ast.js';
import type { ColumnDefault } from '../../catalog/table-info.js';
import { checkTimestampRange, inTimestampRange, parseTimestamp } from '../../common/time/timestamp.js';
import { timeUnitOf } from '../../types/time-unit.js';

const INT_RANGE: Partial<Record<ColumnType, [bigint, bigint]>> = {
  Int8: [-128n, 127n],
  Int16: [-32768n, 32767n],
  Int32: [-(2n ** 31n), 2n ** 31n - 1n],
  Int64: [-(2n ** 63n), 2n ** 63n - 1n],
  UInt8: [0n, 255n],
  UInt16: [0n, 65535n],
  UInt32: [0n, 2n ** 32n - 1n],
  UInt64: [0n, 2n ** 64n - 1n],
};

function cannotParse(what: string, type: ColumnType): TsdbError {
  return new TsdbError(StatusCode.InvalidSyntax, `Failed to parse value: Fail to parse ${what}, invalid column type: ${type}`);
}

/** NaN and the infinities as Rust's `f64::from_str` reads them (in any case). */
const NON_FINITE: ReadonlyMap<string, number> = new Map([
  ['nan', NaN],
  ['+nan', NaN],
  ['-nan', NaN],
  ['inf', Infinity],
  ['+inf', Infinity],
  ['infinity', Infinity],
  ['+infinity', Infinity],
  ['-inf', -Infinity],
  ['-infinity', -Infinity],
]);

/** A value of a numeric literal for an integer or float column (timestamps: an epoch in the column's unit). */
function numberFor(text: string, type: ColumnType): number | string {
  const range = INT_RANGE[type];
  const unit = timeUnitOf(type);
  if (range !== undefined || unit !== undefined) {
    if (!/^[+-]?\d+$/.test(text)) throw cannotParse(`number ${text}`, type);
    const v = BigInt(text);
    if (unit !== undefined) checkTimestampRange(v, unit);
    else if (v < range![0] || v > range![1]) throw new TsdbError(StatusCode.InvalidArguments, `Value ${text} is out of range for column type ${type}`);
    // Beyond 2^53, keep the digits (a number would round).
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  }
  if (type === 'Float32' || type === 'Float64') return Number(text);
  if (type === 'Boolean') {
    if (text === '0' || text === '1') return Number(text);
  }
  throw cannotParse(`number ${text}`, type);
}

/**
 * A literal as a constant of `type` (JSON-safe: 64-bit integers beyond 2^53 as decimal strings;
 * timestamps as epochs in the column unit — strings are the caller's to parse as times).
 */
export function constantOf(v: ValueExpr, type: ColumnType): DefaultValue {
  const decimal = decimalOf(type);
  if (decimal !== undefined && (v.kind === 'number' || v.kind === 'string')) {
    const text = v.kind === 'number' ? v.text : v.value;
    const d = decimalText(text, decimal.precision, decimal.scale);
    if (d === undefined) throw cannotParse(`${v.kind} ${text}`, type);
    if (d === 'overflow') throw new TsdbError(StatusCode.InvalidArguments, `Value ${text} is out of range for column type ${type}`);
    return d;
  }
  switch (v.kind) {
    case 'null':
      return null;
    case 'boolean':
      if (type === 'Boolean') return v.value;
      throw cannotParse(`boolean ${v.value}`, type);
    case 'number': {
      const n = numberFor(v.text, type);
      return type === 'Boolean' ? n === 1 : n;
    }
    case 'string':
      if (type === 'String' || type === 'Json') return v.value;
      if (vectorDimOf(type) !== undefined) return vectorConstant(v.value, vectorDimOf(type)!);
      if (type === 'Boolean') {
        const s = v.value.trim().toLowerCase();
        if (s === 'true' || s === 'false') return s === 'true';
        throw cannotParse(`string ${v.value}`, type);
      }
      if (type === 'Binary') return v.value;
      if (type.startsWith('Timestamp') || type === 'Date') return v.value;
      if (type === 'Float32' || type === 'Float64') {
        const special = NON_FINITE.get(v.value.trim().toLowerCase());
        if (special !== undefined) return special;
      }
      if (!/^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(v.value)) throw cannotParse(`string ${v.value}`, type);
      return numberFor(v.value.trim(), type);
    case 'hex': {
      // Bytes only for a binary column; a constant (a DEFAULT) holds them as UTF-8 text.
      const bytes = Buffer.from(v.digits, 'hex');
      if (type === 'Binary' && Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes)) return bytes.toString('utf8');
      throw cannotParse(`hex literal X'${v.digits}'`, type);
    }
    case 'default':
    case 'sql':
      throw new TsdbError(StatusCode.InvalidArguments, `a ${v.kind === 'default' ? 'DEFAULT' : 'expression'} is not a constant`);
  }
}

/** Expressions of a timestamp column's DEFAULT that mean the time of the write. */
const WRITE_TIME = new Set(['current_timestamp', 'current_timestamp()', 'now()', 'localtimestamp', 'localtimestamp()']);

/**
 * A (non-NULL) DEFAULT clause as stored: the time of the write, or a constant of the column's
 * type. What cannot be stored comes back as the reason: an expression other than the write time,
 * or a value that does not fit the type.
 */
export function columnDefault(type: ColumnType, v: ValueExpr, zone = 'UTC'): ColumnDefault | { readonly reason: 'expression' | 'value'; readonly detail: string } {
  if (v.kind === 'sql') {
    if (type.startsWith('Timestamp') && WRITE_TIME.has(v.text.replace(/\s+/g, '').toLowerCase())) return { kind: 'current_timestamp' };
    return { reason: 'expression', detail: v.text };
  }
  const unit = timeUnitOf(type);
  if (unit !== undefined && v.kind === 'string') {
    // A timestamp string is read now, in the zone of the session that writes the DEFAULT clause.
    const t = parseTimestamp(v.value, unit, zone);
    if (t === undefined) return { reason: 'value', detail: `Failed to parse ${v.value} to Timestamp value` };
    if (!inTimestampRange(t, unit)) return { reason: 'value', detail: `'${v.value}' is out of range for ${type}` };
    return { kind: 'value', value: t >= BigInt(Number.MIN_SAFE_INTEGER) && t <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(t) : t.toString() };
  }
  try {
    const value = constantOf(v, type);
    // Stored as JSON: NaN and the infinities as the text Number() and DuckDB's casts read back.
    return { kind: 'value', value: typeof value === 'number' && !Number.isFinite(value) ? String(value) : value };
  } catch (err) {
    return { reason: 'value', detail: (err as Error).message };
  }
}

/** A VECTOR(n) constant (a DEFAULT) as its text, once it reads as n floats (GreptimeDB's errors). */
function vectorConstant(text: string, dim: number): string {
  try {
    parseVectorText(text, dim);
    return text;
  } catch (e) {
    if (e instanceof VectorTextError) throw new TsdbError(StatusCode.InvalidArguments, e.message);
    throw e;
  }
}
