/**
 * What the catalog records of databases and tables (JSON in the key-value store, GreptimeDB's
 * `__schema_name/…` and `__table_info/{id}` values), and how a table's regions derive from it.
 */
import type { ColumnType, DefaultValue, RegionMetadata, RegionOptions, SemanticType } from '../types/region-metadata.js';
import { regionDirName, regionId, type RegionId } from '../types/region-id.js';

export const DEFAULT_CATALOG = 'tsdb';
export const DEFAULT_DATABASE = 'public';
export const INFORMATION_SCHEMA = 'information_schema';
/** The first id given to a user table (GreptimeDB keeps lower ids for system tables). */
export const FIRST_TABLE_ID = 1024;

export interface DatabaseInfo {
  readonly name: string;
  /** `WITH (…)` options (`ttl`, …), inherited by tables created in it. */
  readonly options: Readonly<Record<string, string>>;
  readonly created_at: number;
}

/** A column's default: a constant (in the column's unit for timestamps), or the time of the write. */
export type ColumnDefault = { readonly kind: 'value'; readonly value: DefaultValue } | { readonly kind: 'current_timestamp' };

export interface ColumnSchema {
  /** The column id in the table's regions (never reused). */
  readonly column_id: number;
  readonly name: string;
  readonly data_type: ColumnType;
  readonly semantic_type: SemanticType;
  readonly nullable: boolean;
  readonly default?: ColumnDefault;
  readonly comment?: string;
  /** `INVERTED INDEX`: the table's SST files index the column's values (tags; docs/format/inverted-index.md). */
  readonly inverted_index?: boolean;
  /** `FULLTEXT INDEX` / `SKIPPING INDEX` with their completed options (`column-indexes.ts`): shown, not built. */
  readonly fulltext_index?: Readonly<Record<string, string>>;
  readonly skipping_index?: Readonly<Record<string, string>>;
}

export interface TableInfo {
  readonly table_id: number;
  readonly catalog: string;
  readonly database: string;
  readonly name: string;
  /** Columns in table order. */
  readonly columns: readonly ColumnSchema[];
  /** The primary key columns (tags), in key order. */
  readonly primary_key: readonly string[];
  readonly time_index: string;
  readonly engine: string;
  /** Table options as the user wrote them, normalized (`ttl`, `append_mode`, `merge_mode`, …). */
  readonly options: Readonly<Record<string, string>>;
  readonly region_numbers: readonly number[];
  /**
   * `PARTITION ON COLUMNS (columns) (exprs)`: region `region_numbers[i]` holds the rows for which
   * `exprs[i]` (SQL text over the partition columns) is true. Absent: the table has one region.
   */
  readonly partition?: { readonly columns: readonly string[]; readonly exprs: readonly string[] };
  /** The id the next added column takes. */
  readonly next_column_id: number;
  /** Bumped by every schema change. */
  readonly schema_version: number;
  readonly created_at: number;
  readonly comment?: string;
}

export const METRIC_ENGINE = 'metric';
/** The option that makes a metric-engine table a logical one, stored in its physical table's region. */
export const LOGICAL_TABLE_OPTION = 'on_physical_table';

/** Whether a table has no regions of its own (a logical metric table: its rows are its physical table's). */
export function ownsNoRegions(t: Pick<TableInfo, 'engine' | 'options'>): boolean {
  return t.engine === METRIC_ENGINE && t.options[LOGICAL_TABLE_OPTION] !== undefined;
}

/** The full name shown in messages: `tsdb.public.cpu`. */
export function fullTableName(t: Pick<TableInfo, 'catalog' | 'database' | 'name'>): string {
  return `${t.catalog}.${t.database}.${t.name}`;
}

/** The region ids of a table. */
export function tableRegionIds(t: TableInfo): RegionId[] {
  return t.region_numbers.map((n) => regionId(t.table_id, n));
}

/**
 * The directory of a region in its object store: `{catalog}/{db}/{table_id}/{table_id}_{n:010}/`
 * (File storage roots the store at `{data_home}/data`, so the files land where GreptimeDB puts
 * them: `{data_home}/data/tsdb/public/1024/1024_0000000000/`).
 */
export function regionDir(t: Pick<TableInfo, 'catalog' | 'database' | 'table_id'>, regionNumber: number): string {
  return `${t.catalog}/${t.database}/${t.table_id}/${regionDirName(regionId(t.table_id, regionNumber))}/`;
}

/** The engine's metadata of region `regionNumber` of a table. */
export function regionMetadataOf(t: TableInfo, regionNumber: number, options: RegionOptions): RegionMetadata {
  const byName = new Map(t.columns.map((c) => [c.name, c]));
  return {
    region_id: String(regionId(t.table_id, regionNumber)),
    schema_version: t.schema_version,
    columns: t.columns.map((c) => ({
      column_id: c.column_id,
      name: c.name,
      type: c.data_type,
      semantic_type: c.semantic_type,
      nullable: c.nullable,
      ...(c.default?.kind === 'value' && { default: c.default.value }),
      ...(c.comment !== undefined && { comment: c.comment }),
      ...(c.inverted_index === true && { inverted_index: true }),
    })),
    primary_key: t.primary_key.map((n) => byName.get(n)!.column_id),
    time_index: byName.get(t.time_index)!.column_id,
    options,
  };
}
