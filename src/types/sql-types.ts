/** How column types are spelled in the SQL that tsdb runs in DuckDB. */
import { decimalOf, storedTypeOf, type BaseColumnType, type ColumnType } from './region-metadata.js';

/** DuckDB's SQL spelling of each column type without parameters (casts, DDL of temporary tables). */
export const SQL_TYPES: Record<BaseColumnType, string> = {
  Boolean: 'BOOLEAN',
  Int8: 'TINYINT',
  Int16: 'SMALLINT',
  Int32: 'INTEGER',
  Int64: 'BIGINT',
  UInt8: 'UTINYINT',
  UInt16: 'USMALLINT',
  UInt32: 'UINTEGER',
  UInt64: 'UBIGINT',
  Float32: 'FLOAT',
  Float64: 'DOUBLE',
  String: 'VARCHAR',
  Binary: 'BLOB',
  Date: 'DATE',
  TimestampSecond: 'TIMESTAMP_S',
  TimestampMillisecond: 'TIMESTAMP_MS',
  TimestampMicrosecond: 'TIMESTAMP',
  TimestampNanosecond: 'TIMESTAMP_NS',
  // DuckDB's JSON type (VARCHAR named JSON): results keep the name, so that they show as Json.
  Json: 'JSON',
};

/** DuckDB's SQL spelling of a column type (`DECIMAL(p, s)` keeps its precision and scale; a vector is stored as its bytes, BLOB). */
export function sqlTypeOf(type: ColumnType): string {
  const d = decimalOf(type);
  return d === undefined ? SQL_TYPES[storedTypeOf(type)] : `DECIMAL(${d.precision}, ${d.scale})`;
}
