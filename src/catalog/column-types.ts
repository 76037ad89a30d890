/**
 * Column types: from the SQL names users write (reference api.md §4.3) to the types tsdb stores,
 * and back to SQL for SHOW CREATE TABLE.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { ColumnType } from '../types/region-metadata.js';
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
};

const UNSIGNED: Partial<Record<ColumnType, ColumnType>> = { Int8: 'UInt8', Int16: 'UInt16', Int32: 'UInt32', Int64: 'UInt64' };

const PRECISION: Record<number, ColumnType> = { 0: 'TimestampSecond', 3: 'TimestampMillisecond', 6: 'TimestampMicrosecond', 9: 'TimestampNanosecond' };

function unsupported(t: SqlType): TsdbError {
  const shown = `${t.name}${t.args.length > 0 ? `(${t.args.join(', ')})` : ''}${t.unsigned ? ' UNSIGNED' : ''}`;
  return new TsdbError(StatusCode.Unsupported, `Unsupported SQL data type: ${shown}`);
}

/** The stored type of a SQL type; Unsupported for a type tsdb cannot store yet. */
export function columnTypeOf(t: SqlType): ColumnType {
  const name = t.name.toUpperCase();
  if (name === 'TIMESTAMP') {
    if (t.args.length === 0) return 'TimestampMillisecond';
    const p = PRECISION[t.args[0]!];
    if (p === undefined || t.args.length > 1) {
      throw new TsdbError(StatusCode.InvalidArguments, `Invalid timestamp precision: ${t.args.join(', ')}, expected 0, 3, 6 or 9`);
    }
    return p;
  }
  const base = SIMPLE[name];
  if (base === undefined || (t.args.length > 0 && !['VARCHAR', 'CHAR', 'BINARY', 'VARBINARY'].includes(name))) throw unsupported(t);
  if (!t.unsigned) return base;
  const u = UNSIGNED[base];
  if (u === undefined) throw unsupported(t);
  return u;
}

/** How SHOW CREATE TABLE writes a type. */
export const SHOW_TYPES: Record<ColumnType, string> = {
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
};
