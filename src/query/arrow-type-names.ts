/**
 * Arrow's display of the Arrow type tsdb gives each DuckDB type (what DataFusion's `arrow_typeof`
 * prints and `arrow_cast` takes, what its cast errors name), both ways. A DECIMAL(p,s) is
 * `Decimal128(p, s)`.
 */

/** DuckDB's type name → Arrow's display of it. */
export const ARROW_TYPE_NAMES: Readonly<Record<string, string>> = {
  BOOLEAN: 'Boolean',
  TINYINT: 'Int8',
  SMALLINT: 'Int16',
  INTEGER: 'Int32',
  BIGINT: 'Int64',
  UTINYINT: 'UInt8',
  USMALLINT: 'UInt16',
  UINTEGER: 'UInt32',
  UBIGINT: 'UInt64',
  FLOAT: 'Float32',
  DOUBLE: 'Float64',
  VARCHAR: 'Utf8',
  BLOB: 'Binary',
  DATE: 'Date32',
  TIMESTAMP_S: 'Timestamp(Second, None)',
  TIMESTAMP_MS: 'Timestamp(Millisecond, None)',
  TIMESTAMP: 'Timestamp(Microsecond, None)',
  TIMESTAMP_NS: 'Timestamp(Nanosecond, None)',
  INTERVAL: 'Interval(MonthDayNano)',
};

/** Arrow's other names of the same DuckDB types (the large and view forms of strings and bytes). */
const ARROW_ALIASES: Readonly<Record<string, string>> = { LargeUtf8: 'VARCHAR', Utf8View: 'VARCHAR', LargeBinary: 'BLOB', BinaryView: 'BLOB' };

const DUCKDB_TYPES: ReadonlyMap<string, string> = new Map([...Object.entries(ARROW_TYPE_NAMES).map(([duck, arrow]) => [arrow, duck] as const), ...Object.entries(ARROW_ALIASES)]);

/** The DuckDB type of an Arrow type's display name (`Int64`, `Decimal128(10, 2)`), or undefined. */
export function duckTypeOfArrow(name: string): string | undefined {
  const d = /^Decimal128\(\s*(\d+)\s*,\s*(-?\d+)\s*\)$/.exec(name.trim());
  if (d !== null) return Number(d[1]) >= 1 && Number(d[1]) <= 38 && Number(d[2]) >= 0 && Number(d[2]) <= Number(d[1]) ? `DECIMAL(${d[1]},${d[2]})` : undefined;
  return DUCKDB_TYPES.get(name.trim());
}
