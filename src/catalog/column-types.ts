/**
 * Column types: from the SQL names users write (reference api.md §4.3) to the types tsdb stores,
 * and back to SQL for SHOW CREATE TABLE.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { decimalOf, decimalType, vectorDimOf, type BaseColumnType, type ColumnType } from '../types/region-metadata.js';
import type { SqlType } from '../sql/ast.js';

const SIMPLE: Record<string, ColumnType> = {
  TINYINT: 'Int8',
  INT8: 'Int64', // GreptimeDB reads INT8 as BIGINT (PostgreSQL's meaning)
  SMALLINT: 'Int16',
  INT2: 'Int16',
  INT16: 'Int16',
  INT: 'Int32',
  INTEGER: 'Int32',
  INT4: 'Int32',
  INT32: 'Int32',
  BIGINT: 'Int64',
  INT64: 'Int64',
  UINT8: 'UInt8',
  UINT16: 'UInt16',
  UINT32: 'UInt32',
  UINT64: 'UInt64',
  FLOAT: 'Float32',
  FLOAT4: 'Float32',
  FLOAT32: 'Float32',
  REAL: 'Float32',
  DOUBLE: 'Float64',
  FLOAT8: 'Float64',
  FLOAT64: 'Float64',
  STRING: 'String',
  TEXT: 'String',
  VARCHAR: 'String',
  CHAR: 'String',
  TINYTEXT: 'String',
  MEDIUMTEXT: 'String',
  LONGTEXT: 'String',
  BOOLEAN: 'Boolean',
  BOOL: 'Boolean',
  BINARY: 'Binary',
  VARBINARY: 'Binary',
  BLOB: 'Binary',
  BYTEA: 'Binary',
  DATE: 'Date',
  TIMESTAMP_S: 'TimestampSecond',
  TIMESTAMP_SEC: 'TimestampSecond',
  TIMESTAMPSECOND: 'TimestampSecond',
  TIMESTAMP_MS: 'TimestampMillisecond',
  TIMESTAMPMILLISECOND: 'TimestampMillisecond',
  TIMESTAMP_US: 'TimestampMicrosecond',
  TIMESTAMPMICROSECOND: 'TimestampMicrosecond',
  DATETIME: 'TimestampMicrosecond',
  TIMESTAMP_NS: 'TimestampNanosecond',
  TIMESTAMPNANOSECOND: 'TimestampNanosecond',
  JSON: 'Json',
};

const UNSIGNED: Partial<Record<ColumnType, ColumnType>> = { Int8: 'UInt8', Int16: 'UInt16', Int32: 'UInt32', Int64: 'UInt64' };

const PRECISION: Record<number, ColumnType> = { 0: 'TimestampSecond', 3: 'TimestampMillisecond', 6: 'TimestampMicrosecond', 9: 'TimestampNanosecond' };

function unsupported(t: SqlType): TsdbError {
  const shown = `${t.name}${t.args.length > 0 ? `(${t.args.join(', ')})` : ''}${t.unsigned ? ' UNSIGNED' : ''}`;
  return new TsdbError(StatusCode.Unsupported, `Unsupported SQL data type: ${shown}`);
}

/** DECIMAL's default precision and scale (GreptimeDB's `decimal128_default_datatype`). */
const DECIMAL_DEFAULT = { precision: 38, scale: 10 } as const;

/** DECIMAL, DECIMAL(p) = (p, 0), DECIMAL(p, s): precision 1–38, scale 0–p. */
function decimalColumnType(t: SqlType): ColumnType {
  if (t.args.length > 2) throw unsupported(t);
  const precision = t.args[0] ?? DECIMAL_DEFAULT.precision;
  const scale = t.args.length === 0 ? DECIMAL_DEFAULT.scale : (t.args[1] ?? 0);
  if (!Number.isInteger(precision) || precision < 1 || precision > 38) {
    throw new TsdbError(StatusCode.InvalidArguments, `Invalid DECIMAL precision ${precision}: it must be between 1 and 38`);
  }
  if (!Number.isInteger(scale) || scale < 0 || scale > precision) {
    throw new TsdbError(StatusCode.InvalidArguments, `Invalid DECIMAL scale ${scale}: it must be between 0 and the precision ${precision}`);
  }
  return decimalType(precision, scale);
}

/**
 * The stored type of a SQL type; Unsupported for a type tsdb cannot store. `column` names the column
 * being defined (CREATE TABLE, ADD COLUMN) for GreptimeDB's refusal of INTERVAL columns.
 */
export function columnTypeOf(t: SqlType, column?: string): ColumnType {
  const name = t.name.toUpperCase();
  if (name === 'DECIMAL') return decimalColumnType(t);
  if (name === 'INTERVAL' && column !== undefined) {
    throw new TsdbError(StatusCode.InvalidArguments, `Invalid SQL, error: column name \`${column}\` is interval type, which is not supported`);
  }
  // GreptimeDB's SQL has no TIME column type: its parser's type, printed as Rust debug output.
  if (name === 'TIME' && t.args.length <= 1 && !t.unsigned) {
    throw new TsdbError(StatusCode.InvalidSyntax, `SQL data type not supported yet: Time(${t.args.length === 0 ? 'None' : `Some(${t.args[0]})`}, None)`);
  }
  if (name === 'TIMESTAMP') {
    if (t.args.length === 0) return 'TimestampMillisecond';
    const p = PRECISION[t.args[0]!];
    if (p === undefined || t.args.length > 1) {
      throw new TsdbError(StatusCode.InvalidArguments, `Invalid timestamp precision: ${t.args.join(', ')}, expected 0, 3, 6 or 9`);
    }
    return p;
  }
  if (name === 'VECTOR') {
    const dim = t.args[0];
    if (t.args.length !== 1 || dim === undefined || !Number.isInteger(dim) || dim <= 0) throw unsupported(t);
    return `Vector(${dim})`;
  }
  const base = SIMPLE[name];
  if (base === undefined || (t.args.length > 0 && !['VARCHAR', 'CHAR', 'BINARY', 'VARBINARY'].includes(name))) throw unsupported(t);
  if (!t.unsigned) return base;
  const u = UNSIGNED[base];
  if (u === undefined) throw unsupported(t);
  return u;
}

/** How SHOW CREATE TABLE writes a type (`showTypeOf` for all types). */
export const SHOW_TYPES: Record<BaseColumnType, string> = {
  Boolean: 'BOOLEAN',
  Int8: 'TINYINT',
  Int16: 'SMALLINT',
  Int32: 'INT',
  Int64: 'BIGINT',
  UInt8: 'TINYINT UNSIGNED',
  UInt16: 'SMALLINT UNSIGNED',
  UInt32: 'INT UNSIGNED',
  UInt64: 'BIGINT UNSIGNED',
  Float32: 'FLOAT',
  Float64: 'DOUBLE',
  String: 'STRING',
  Binary: 'VARBINARY',
  Date: 'DATE',
  TimestampSecond: 'TIMESTAMP(0)',
  TimestampMillisecond: 'TIMESTAMP(3)',
  TimestampMicrosecond: 'TIMESTAMP(6)',
  TimestampNanosecond: 'TIMESTAMP(9)',
  Json: 'JSON',
};

/** How SHOW CREATE TABLE writes a type: DECIMAL as GreptimeDB's SQL printer does, `DECIMAL(10,2)`; vectors `VECTOR(3)`. */
export function showTypeOf(t: ColumnType): string {
  const d = decimalOf(t);
  if (d !== undefined) return `DECIMAL(${d.precision},${d.scale})`;
  const dim = vectorDimOf(t);
  return dim === undefined ? SHOW_TYPES[t as BaseColumnType] : `VECTOR(${dim})`;
}
