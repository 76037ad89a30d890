/**
 * The schema of a region: its columns (tags, fields, one time index), primary key and options.
 * JSON-serializable: it is what manifests record (region ids as decimal strings).
 */

/** Column types, named as clients see them (reference api.md §1.2 `data_type`). */
export const COLUMN_TYPES = [
  'Boolean',
  'Int8',
  'Int16',
  'Int32',
  'Int64',
  'UInt8',
  'UInt16',
  'UInt32',
  'UInt64',
  'Float32',
  'Float64',
  'String',
  'Binary',
  'Date',
  'TimestampSecond',
  'TimestampMillisecond',
  'TimestampMicrosecond',
  'TimestampNanosecond',
  // JSON documents, stored as their canonical text (src/common/json/jsonb-text.ts).
  'Json',
] as const;
/** The column types that take no parameters (every type but DECIMAL and VECTOR). */
export type BaseColumnType = (typeof COLUMN_TYPES)[number];
/**
 * A DECIMAL column: precision 1–38, scale 0–precision, spelled as clients see it (`Decimal(10, 2)`),
 * so that catalogs and manifests written before DECIMAL existed read unchanged.
 */
export type DecimalType = `Decimal(${number}, ${number})`;
/** VECTOR(n): n float32 values, stored as their little-endian bytes (as Binary is). */
export type VectorColumnType = `Vector(${number})`;
export type ColumnType = BaseColumnType | DecimalType | VectorColumnType;

const BASE_TYPES = new Set<string>(COLUMN_TYPES);
const DECIMAL = /^Decimal\((\d{1,2}), (\d{1,2})\)$/;

/** The precision and scale of a DECIMAL column type; undefined for other types. */
export function decimalOf(type: ColumnType): { readonly precision: number; readonly scale: number } | undefined {
  if (type.charCodeAt(0) !== 68 /* D */ || type === 'Date') return undefined;
  const m = DECIMAL.exec(type);
  return m === null ? undefined : { precision: Number(m[1]), scale: Number(m[2]) };
}

/** The DECIMAL column type of a precision and scale (checked by the caller: 1 ≤ p ≤ 38, 0 ≤ s ≤ p). */
export function decimalType(precision: number, scale: number): DecimalType {
  return `Decimal(${precision}, ${scale})`;
}

/** Whether a string (from JSON: a manifest, a catalog entry, a region request) names a column type. */
export function isColumnType(s: string): s is ColumnType {
  if (BASE_TYPES.has(s) || vectorDimOf(s) !== undefined) return true;
  const m = DECIMAL.exec(s);
  if (m === null) return false;
  const p = Number(m[1]);
  const sc = Number(m[2]);
  return p >= 1 && p <= 38 && sc <= p && String(p) === m[1] && String(sc) === m[2];
}

/** The dimension of a vector type, or undefined for other types. */
export function vectorDimOf(t: string): number | undefined {
  if (t.charCodeAt(0) !== 86 /* V */) return undefined;
  const m = /^Vector\((\d+)\)$/.exec(t);
  return m === null ? undefined : Number(m[1]);
}

/** The type whose storage a column type has: a vector's is Binary's (its bytes); DECIMAL is its own (callers test it first). */
export function storedTypeOf(t: ColumnType): BaseColumnType {
  return vectorDimOf(t) === undefined ? (t as BaseColumnType) : 'Binary';
}

export const TIMESTAMP_TYPES = ['TimestampSecond', 'TimestampMillisecond', 'TimestampMicrosecond', 'TimestampNanosecond'] as const;
export type TimestampType = (typeof TIMESTAMP_TYPES)[number];

/** `tag`: part of the primary key; `field`: a value; `timestamp`: the time index. */
export type SemanticType = 'tag' | 'field' | 'timestamp';

/** A default value: a JSON scalar, or null. Timestamps are integers in the column's unit. */
export type DefaultValue = string | number | boolean | null;

export interface ColumnMetadata {
  /** Stable id within the region; never reused after a column is dropped. */
  readonly column_id: number;
  readonly name: string;
  readonly type: ColumnType;
  readonly semantic_type: SemanticType;
  readonly nullable: boolean;
  /** Value of rows written without this column (and of older rows after ADD COLUMN). */
  readonly default?: DefaultValue;
  readonly comment?: string;
  /** `INVERTED INDEX`: SST files of the region index the column's values (tags only). */
  readonly inverted_index?: boolean;
}

export type MergeMode = 'last_row' | 'last_non_null';

export interface RegionOptions {
  /** Milliseconds; undefined = forever. Rows older than now − ttl expire. */
  readonly ttl?: number;
  /** Keep every row: no deduplication, no deletes. */
  readonly append_mode: boolean;
  /** How rows with the same primary key and time index merge (ignored in append mode). */
  readonly merge_mode: MergeMode;
  /** TWCS time window in milliseconds; undefined = inferred. */
  readonly compaction_time_window?: number;
  /** TWCS: a window with at least this many files is compacted. */
  readonly compaction_trigger_file_num?: number;
  /** The storage provider holding the region's files (`storage` table option); undefined = the default one. */
  readonly storage?: string;
  /** The table's `memtable.*` options; unset ones follow `[region_engine.mito.memtable]`. */
  readonly memtable?: {
    readonly type?: 'time_series' | 'partition_tree';
    readonly index_max_keys_per_shard?: number;
    readonly data_freeze_threshold?: number;
    readonly fork_dictionary_bytes?: number;
  };
  /** The table's `index.inverted_index.*` options. */
  readonly inverted_index?: {
    /** Rows a segment of the index covers (default 1024). */
    readonly segment_row_count?: number;
    /** Columns never indexed, even when marked. */
    readonly ignore_column_ids?: readonly number[];
  };
}

export interface RegionMetadata {
  /** RegionId as a decimal string (JSON has no u64). */
  readonly region_id: string;
  /** Bumped by every schema change (alter). */
  readonly schema_version: number;
  readonly columns: readonly ColumnMetadata[];
  /** Column ids of the primary key, in key order (all tags). */
  readonly primary_key: readonly number[];
  /** Column id of the time index. */
  readonly time_index: number;
  readonly options: RegionOptions;
}
