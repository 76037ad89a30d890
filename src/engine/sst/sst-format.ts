/**
 * The columns of an SST (docs/format/sst.md): one per region column, named by column id (`c<id>`)
 * so that renaming, dropping and re-adding columns never confuses old files; then `__sequence` and
 * `__op_type`. Rows sorted by primary key, time index, sequence descending.
 */
import {
  BIGINT,
  BLOB,
  BOOLEAN,
  DATE,
  DOUBLE,
  FLOAT,
  INTEGER,
  SMALLINT,
  TIMESTAMP,
  TIMESTAMP_MS,
  TIMESTAMP_NS,
  TIMESTAMP_S,
  TINYINT,
  UBIGINT,
  UINTEGER,
  USMALLINT,
  UTINYINT,
  VARCHAR,
  type DuckDBType,
} from '@duckdb/node-api';
import { decimalOf, storedTypeOf, type BaseColumnType, type ColumnMetadata, type ColumnType, type RegionMetadata } from '../../types/region-metadata.js';
import { sqlTypeOf } from '../../types/sql-types.js';

export const SEQUENCE_COLUMN = '__sequence';
export const OP_TYPE_COLUMN = '__op_type';
/** Parquet key-value metadata holding the region metadata (JSON) the file was written with. */
export const METADATA_KEY = 'tsdb:metadata';
/**
 * Rows per Parquet row group. GreptimeDB writes 102,400 (`max_row_group_row_count`), but DuckDB
 * skips only whole row groups by their min/max statistics and reads every column of a row group it
 * keeps: with 90,000 rows in one group a point query decoded the whole file (~12 ms; 16,384 rows:
 * ~4 ms). Each row group also has a fixed cost in scans that read them all, so smaller is not
 * better: on TSBS (docs/benchmarks.md "Row group size") 16,384 against 102,400 made one-host and
 * few-host queries 0.6–0.75x as long and whole-table aggregations 1.25–1.5x as long; 8,192 was
 * no faster for point queries and slower again for whole-table scans.
 */
export const ROW_GROUP_ROWS = 16_384;

export function physicalName(columnId: number): string {
  return `c${columnId}`;
}

export const DUCKDB_TYPES: Record<BaseColumnType, DuckDBType> = {
  Boolean: BOOLEAN,
  Int8: TINYINT,
  Int16: SMALLINT,
  Int32: INTEGER,
  Int64: BIGINT,
  UInt8: UTINYINT,
  UInt16: USMALLINT,
  UInt32: UINTEGER,
  UInt64: UBIGINT,
  Float32: FLOAT,
  Float64: DOUBLE,
  String: VARCHAR,
  Binary: BLOB,
  Date: DATE,
  TimestampSecond: TIMESTAMP_S,
  TimestampMillisecond: TIMESTAMP_MS,
  TimestampMicrosecond: TIMESTAMP,
  TimestampNanosecond: TIMESTAMP_NS,
  Json: VARCHAR,
};

/**
 * The DuckDB type of a column in the chunks the memtable scan fills: its SST type, except DECIMAL,
 * which the memtable holds as canonical text (a string vector: WAL, region requests and memtables
 * carry it as they carry strings) and which the scan's SQL casts to the column's type.
 */
export function chunkTypeOf(type: ColumnType): DuckDBType {
  return decimalOf(type) === undefined ? DUCKDB_TYPES[storedTypeOf(type)] : VARCHAR;
}

export interface SstColumn {
  readonly name: string;
  readonly sqlType: string;
  /** The type of the column in memtable scan chunks (`chunkTypeOf`). */
  readonly duckdbType: DuckDBType;
  /** The region column, or undefined for `__sequence` / `__op_type`. */
  readonly column?: ColumnMetadata;
}

/** SST columns in file order: tags (key order), fields, time index, sequence, op type. */
export function sstColumns(metadata: RegionMetadata): SstColumn[] {
  const byId = new Map(metadata.columns.map((c) => [c.column_id, c]));
  const ordered = [
    ...metadata.primary_key.map((id) => byId.get(id)!),
    ...metadata.columns.filter((c) => c.semantic_type === 'field'),
    byId.get(metadata.time_index)!,
  ];
  return [
    ...ordered.map((c) => ({ name: physicalName(c.column_id), sqlType: sqlTypeOf(c.type), duckdbType: chunkTypeOf(c.type), column: c })),
    { name: SEQUENCE_COLUMN, sqlType: 'UBIGINT', duckdbType: UBIGINT },
    { name: OP_TYPE_COLUMN, sqlType: 'UTINYINT', duckdbType: UTINYINT },
  ];
}
