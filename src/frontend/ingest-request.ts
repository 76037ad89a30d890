/**
 * Rows that arrive through an ingestion protocol (InfluxDB line protocol, OpenTSDB, Prometheus
 * remote write), already decoded by the protocol server into columns per table. The frontend
 * resolves each table, creates it or adds the columns it lacks (schema on write), checks the types
 * against the table's, and writes the rows (DESIGN.md "Write path").
 */
import type { Vector } from '../types/write-batch.js';
import type { ColumnType } from '../types/region-metadata.js';

/** What a column is in the table a protocol creates: a tag (primary key), a field, the time index. */
export type IngestSemantic = 'tag' | 'field' | 'timestamp';

/**
 * One column of an ingested table: `vector` holds `rowCount` values of the kind `vectorTypeOf(type)`
 * names (`string` for String tags, `float64` for Float64, `int64` for Int64 and timestamps, `uint64`,
 * `bool`), NULL where a row has no value. A table has exactly one `timestamp` column, with no NULLs.
 */
export interface IngestColumn {
  readonly name: string;
  readonly semantic: IngestSemantic;
  readonly type: ColumnType;
  readonly vector: Vector;
}

/** The rows for one table, as columns (tags, fields and the time index, in the order a new table gets them). */
export interface IngestTable {
  readonly name: string;
  readonly rowCount: number;
  readonly columns: readonly IngestColumn[];
}

/** How tables that do not exist yet are created, per protocol (reference api.md §1.4–1.6). */
export interface IngestOptions {
  /** `merge_mode` of a created table (InfluxDB: `[influxdb] default_merge_mode`, `last_non_null`). */
  readonly mergeMode?: 'last_row' | 'last_non_null';
  /** `append_mode` of a created table. */
  readonly appendMode?: boolean;
  /** `ttl` of a created table (a duration, `forever` or `instant`; checked like the table option). */
  readonly ttl?: string;
  /**
   * `false`: tables are not created; a table that does not exist refuses the request (TableNotFound)
   * before anything is written (gRPC hint `auto_create_table`). Columns are still added. Default true.
   */
  readonly autoCreateTable?: boolean;
  /**
   * Create missing tables as logical tables of the metric engine on this physical table (created
   * too when missing, from the request's time index and fields): Prometheus remote write with
   * `prom_store.with_metric_engine`.
   */
  readonly physicalTable?: string;
  /**
   * Column order of a created table: tags, fields, time index (`'tags_first'`, InfluxDB's, the
   * default) or as the decoded table lists them (`'as_given'`: Prometheus's time index, value, labels).
   */
  readonly columnOrder?: 'tags_first' | 'as_given';
  /**
   * Failures that concern one table only — a column whose kind or type differs from the table's,
   * creating or extending the table, writing its rows — go to this callback (with the table's index
   * in the request) and the other tables are still written: OpenTSDB refuses that table's points
   * only. Without it the first failure refuses the request. Either way the request is refused whole,
   * before anything is written, for a time index value outside the range of its column or a table
   * beyond `MAX_COLUMNS_PER_TABLE` columns (and a missing database, a user without write permission).
   */
  readonly onTableError?: (index: number, err: unknown) => void;
  /**
   * Run the checks made before anything is written (against the tables as they are now) and stop
   * there: nothing is created or written. For a request a server splits into several ingests
   * (Prometheus remote write to several databases), so that no part is written when another fails.
   */
  readonly checkOnly?: boolean;
}
