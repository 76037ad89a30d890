/**
 * The information_schema tables beyond the catalog's own (`information-schema.ts`): `statistics`
 * (the indexes SHOW INDEX reads), `table_constraints`, the MySQL compatibility tables (with
 * GreptimeDB's fixed rows, or none where GreptimeDB has none), the tables of features tsdb does not
 * have (flows, procedures: their columns, no rows), and the `numbers` test table of
 * `public`. Columns and types are GreptimeDB's (`src/catalog/src/system_schema/information_schema/`),
 * with `greptime` renamed `tsdb`.
 */
import type { ColumnType } from '../types/region-metadata.js';
import type { Cell } from '../query/output.js';
import type { InformationSchemaSource, VirtualColumn, VirtualTable } from './information-schema.js';
import { INFORMATION_SCHEMA, type ColumnSchema, type TableInfo } from './table-info.js';
import { SEMANTIC_PREFIX } from './table-options.js';

/** `name:Type` columns separated by spaces, `?` after the type of one that may hold null. */
function columns(spec: string): VirtualColumn[] {
  return spec.split(' ').map((c) => {
    const [name, type] = c.split(':') as [string, string];
    const nullable = type.endsWith('?');
    return { name, type: (nullable ? type.slice(0, -1) : type) as ColumnType, nullable };
  });
}

const none = (): Promise<Cell[][]> => Promise.resolve([]);
const fixed = (rows: Cell[][]) => (): Promise<Cell[][]> => Promise.resolve(rows.map((r) => [...r]));

/** MySQL's catalog name, which GreptimeDB puts in `table_catalog` of statistics and constraints. */
const MYSQL_CATALOG = 'def';

/** The user tables of every database (never information_schema's), `public` with `numbers` first. */
async function tablesWithNumbers(source: InformationSchemaSource): Promise<Array<{ db: string; info: IndexedTable }>> {
  const out: Array<{ db: string; info: IndexedTable }> = [];
  const dbs = (await source.databases()).map((d) => d.name).filter((n) => n !== INFORMATION_SCHEMA);
  for (const db of dbs.sort()) {
    if (db === 'public') out.push({ db, info: numbersInfo() });
    for (const info of await source.tables(db)) out.push({ db, info });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// numbers

/** GreptimeDB's id of `public.numbers`. */
export const NUMBERS_TABLE_ID = 2;
export const NUMBERS_TABLE = 'numbers';
/** Rows of `numbers`: 0 to 99 (GreptimeDB's scan of it without a limit). */
const NUMBERS_ROWS = 100;

/** `public.numbers`: one UInt32 column `number`, its primary key, holding 0 to 99 (engine `test_engine`). */
export const NUMBERS: VirtualTable = {
  id: NUMBERS_TABLE_ID,
  columns: columns('number:UInt32'),
  primaryKey: ['number'],
  engine: 'test_engine',
  rows: () => Promise.resolve(Array.from({ length: NUMBERS_ROWS }, (_, i) => [i])),
};

/**
 * The SQL relation of `numbers` (DuckDB's `range`, typed as GreptimeDB's UInt32): 0 to 99, or as many
 * rows as a scan with a limit asks (GreptimeDB's NumbersTable gives its scan's limit; at most 2^32).
 */
export function numbersRelation(limit?: number): string {
  const rows = limit === undefined ? NUMBERS_ROWS : Math.min(limit, 0x1_0000_0000);
  return `(SELECT CAST(range AS UINTEGER) AS number FROM range(${rows}))`;
}

// ---------------------------------------------------------------------------------------------
// statistics (SHOW INDEX)

/** A table as `statistics` needs it: its columns, primary key, time index, options. */
export type IndexedTable = Pick<TableInfo, 'name' | 'columns' | 'primary_key' | 'time_index' | 'options'>;

/**
 * The primary key encoding GreptimeDB names in `greptime_index_type` of PRIMARY rows: `sparse`
 * for a table written with `primary_key_encoding = 'sparse'`, else `dense`.
 */
function keyEncoding(options: Readonly<Record<string, string>>): string {
  return options['primary_key_encoding']?.toLowerCase() === 'sparse' ? 'sparse' : 'dense';
}

/**
 * The rows of `statistics` of one table (GreptimeDB's order: the primary key in key order, then
 * per column in table order its time index and secondary indexes), each with the column's
 * MySQL nullability (`YES` or ''): `[non_unique, index_name, seq_in_index, column, nullable,
 * index_type, tsdb_index_type]`.
 */
export function indexEntries(t: IndexedTable): Array<[number, string, number, string, string, string, string]> {
  const out: Array<[number, string, number, string, string, string, string]> = [];
  const byName = new Map(t.columns.map((c) => [c.name, c]));
  const nullable = (c: ColumnSchema | undefined) => (c?.nullable === true ? 'YES' : '');
  const encoding = keyEncoding(t.options);
  t.primary_key.forEach((name, i) => out.push([0, 'PRIMARY', i + 1, name, nullable(byName.get(name)), 'PRIMARY', encoding]));
  for (const c of t.columns) {
    if (c.name === t.time_index) out.push([1, 'TIME INDEX', 1, c.name, nullable(c), 'TIME', '']);
    if (c.inverted_index === true) out.push([1, `INVERTED_INDEX_${c.name}`, 1, c.name, nullable(c), 'INVERTED', 'inverted']);
    if (c.fulltext_index !== undefined) out.push([1, `FULLTEXT_INDEX_${c.name}`, 1, c.name, nullable(c), 'FULLTEXT', c.fulltext_index['backend'] === 'tantivy' ? 'fulltext_tantivy' : 'fulltext_bloom']);
    if (c.skipping_index !== undefined) out.push([1, `SKIPPING_INDEX_${c.name}`, 1, c.name, nullable(c), 'SKIPPING', 'bloom_filter']);
  }
  return out;
}

async function statisticsRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const rows: Cell[][] = [];
  for (const { db, info } of await tablesWithNumbers(source)) {
    for (const [nonUnique, index, seq, column, nullable, type, tsdbType] of indexEntries(info)) {
      rows.push([MYSQL_CATALOG, db, info.name, nonUnique, db, index, seq, column, 'A', null, null, null, nullable, type, '', '', 'YES', null, tsdbType]);
    }
  }
  return rows;
}

/** `numbers` as a table of the catalog's shape (what statistics and constraints read of it). */
function numbersInfo(): IndexedTable {
  return { name: NUMBERS_TABLE, columns: [{ column_id: 0, name: 'number', data_type: 'UInt32', semantic_type: 'tag', nullable: false }], primary_key: ['number'], time_index: '', options: {} };
}

// ---------------------------------------------------------------------------------------------
// table_constraints

async function tableConstraintRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const rows: Cell[][] = [];
  for (const { db, info } of await tablesWithNumbers(source)) {
    if (info.time_index !== '') rows.push([MYSQL_CATALOG, db, 'TIME INDEX', db, info.name, 'TIME INDEX', 'YES']);
    if (info.primary_key.length > 0) rows.push([MYSQL_CATALOG, db, 'PRIMARY', db, info.name, 'PRIMARY KEY', 'YES']);
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// table_semantics

/** The semantic keys table_semantics has columns for (under `tsdb.semantic.`), in column order. */
const SEMANTIC_COLUMNS = ['signal_type', 'source', 'source_version', 'pipeline', 'metric.metadata_quality'];

/**
 * One row per table with a `tsdb.semantic.*` option: the known keys in their columns, the others as
 * a JSON object of their short names, keys sorted (GreptimeDB's SemanticRow).
 */
async function tableSemanticsRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const rows: Cell[][] = [];
  for (const { db, info } of await tablesWithNumbers(source)) {
    if (!('table_id' in info)) continue;
    const t = info as TableInfo;
    const keys = Object.keys(t.options).filter((k) => k.startsWith(SEMANTIC_PREFIX)).sort();
    if (keys.length === 0) continue;
    const rest: Record<string, string> = {};
    for (const k of keys) {
      const short = k.slice(SEMANTIC_PREFIX.length);
      if (!SEMANTIC_COLUMNS.includes(short)) rest[short] = t.options[k]!;
    }
    const known = SEMANTIC_COLUMNS.map((k) => t.options[SEMANTIC_PREFIX + k] ?? null);
    rows.push([t.catalog, db, t.name, t.table_id, ...known, Object.keys(rest).length > 0 ? JSON.stringify(rest) : null]);
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// The tables

const METRIC_ENGINE_COMMENT =
  'Storage engine for observability scenarios, which is adept at handling a large number of small tables, making it particularly suitable for cloud-native monitoring';

/** The tables this module adds to information_schema, by name. */
export const MORE_TABLES: Readonly<Record<string, VirtualTable>> = {
  character_sets: { id: 9, columns: columns('character_set_name:String default_collate_name:String description:String maxlen:Int64'), rows: fixed([['utf8', 'utf8_bin', 'UTF-8 Unicode', 4]]) },
  check_constraints: { id: 12, columns: columns('constraint_catalog:String constraint_schema:String constraint_name:String check_clause:String'), rows: none },
  collation_character_set_applicability: { id: 11, columns: columns('collation_name:String character_set_name:String'), rows: fixed([['utf8_bin', 'utf8']]) },
  collations: {
    id: 10,
    columns: columns('collation_name:String character_set_name:String id:Int64 is_default:String is_compiled:String sortlen:Int64'),
    rows: fixed([['utf8_bin', 'utf8', 1, 'Yes', 'Yes', 1]]),
  },
  column_privileges: {
    id: 6,
    columns: columns('grantee:String table_catalog:String table_schema:String table_name:String column_name:String privilege_type:String is_grantable:String'),
    rows: none,
  },
  column_statistics: { id: 7, columns: columns('schema_name:String table_name:String column_name:String histogram:String'), rows: none },
  engines: {
    id: 5,
    columns: columns('engine:String support:String comment:String transactions:String xa:String savepoints:String'),
    rows: fixed([
      ['mito', 'DEFAULT', 'Storage engine for time-series data', 'NO', 'NO', 'NO'],
      ['metric', 'YES', METRIC_ENGINE_COMMENT, 'NO', 'NO', 'NO'],
    ]),
  },
  events: {
    id: 13,
    columns: columns(
      'event_catalog:String event_schema:String event_name:String definer:String time_zone:String event_body:String event_definition:String event_type:String execute_at:TimestampMicrosecond interval_value:Int64 interval_field:String sql_mode:String starts:TimestampMicrosecond ends:TimestampMicrosecond status:String on_completion:String created:TimestampMicrosecond last_altered:TimestampMicrosecond last_executed:TimestampMicrosecond event_comment:String originator:Int64 character_set_client:String collation_connection:String database_collation:String',
    ),
    rows: none,
  },
  files: {
    id: 14,
    columns: columns(
      'file_id:Int64 file_name:String file_type:String tablespace_name:String table_catalog:String table_schema:String table_name:String logfile_group_name:String logfile_group_number:Int64 engine:String fulltext_keys:String deleted_rows:Int64 update_count:Int64 free_extents:Int64 total_extents:Int64 extent_size:Int64 initial_size:Int64 maximum_size:Int64 autoextend_size:Int64 creation_time:TimestampMicrosecond last_update_time:TimestampMicrosecond last_access_time:TimestampMicrosecond recover_time:TimestampMicrosecond transaction_counter:Int64 version:String row_format:String table_rows:Int64 avg_row_length:Int64 data_length:Int64 max_data_length:Int64 index_length:Int64 data_free:Int64 create_time:TimestampMicrosecond update_time:TimestampMicrosecond check_time:TimestampMicrosecond checksum:String status:String extra:String',
    ),
    rows: none,
  },
  // tsdb has no flows: their tables have GreptimeDB's columns and no rows.
  flow_statistics: { id: 45, columns: columns('flow_id:UInt32 flow_name:String start_time:TimestampMillisecond? last_execution_time:TimestampMillisecond? uptime_seconds:Int64? state_size:UInt64?'), rows: none },
  flows: {
    id: 33,
    columns: columns(
      'flow_name:String flow_id:UInt32 state_size:UInt64? table_catalog:String flow_definition:String comment:String? expire_after:Int64? source_table_ids:String? sink_table_name:String flownode_ids:String? options:String? created_time:TimestampMillisecond updated_time:TimestampMillisecond last_execution_time:TimestampMillisecond? source_table_names:String? flownode_addrs:String?',
    ),
    rows: none,
  },
  global_status: { id: 25, columns: columns('variable_name:String variable_value:String'), rows: none },
  optimizer_trace: { id: 17, columns: columns('query:String trace:String missing_bytes_beyond_max_mem_size:Int64 insufficient_privileges:Int64'), rows: none },
  parameters: {
    id: 18,
    columns: columns(
      'specific_catalog:String specific_schema:String specific_name:String ordinal_position:Int64 parameter_mode:String parameter_name:String data_type:String character_maximum_length:Int64 character_octet_length:Int64 numeric_precision:Int64 numeric_scale:Int64 datetime_precision:Int64 character_set_name:String collation_name:String dtd_identifier:String routine_type:String',
    ),
    rows: none,
  },
  // DDL runs in place in tsdb, not as procedures: none to list.
  procedure_info: { id: 34, columns: columns('procedure_id:String procedure_type:String start_time:TimestampMillisecond? end_time:TimestampMillisecond? status:String lock_keys:String?'), rows: none },
  profiling: {
    id: 19,
    columns: columns(
      'query_id:Int64 seq:Int64 state:String duration:Int64 cpu_user:Int64 cpu_system:Int64 context_voluntary:Int64 context_involuntary:Int64 block_ops_in:Int64 block_ops_out:Int64 messages_sent:Int64 messages_received:Int64 page_faults_major:Int64 page_faults_minor:Int64 swaps:Int64 source_function:String source_file:String source_line:Int64',
    ),
    rows: none,
  },
  referential_constraints: {
    id: 20,
    columns: columns(
      'constraint_catalog:String constraint_schema:String constraint_name:String unique_constraint_catalog:String unique_constraint_schema:String unique_constraint_name:String match_option:String update_rule:String delete_rule:String table_name:String referenced_table_name:String',
    ),
    rows: none,
  },
  routines: {
    id: 21,
    columns: columns(
      'specific_name:String routine_catalog:String routine_schema:String routine_name:String routine_type:String data_type:String character_maximum_length:Int64 character_octet_length:Int64 numeric_precision:Int64 numeric_scale:Int64 datetime_precision:Int64 character_set_name:String collation_name:String dtd_identifier:String routine_body:String routine_definition:String external_name:String external_language:String parameter_style:String is_deterministic:String sql_data_access:String sql_path:String security_type:String created:TimestampMicrosecond last_altered:TimestampMicrosecond sql_mode:String routine_comment:String definer:String character_set_client:String collation_connection:String database_collation:String',
    ),
    rows: none,
  },
  schema_privileges: { id: 22, columns: columns('grantee:String table_catalog:String table_schema:String privilege_type:String is_grantable:String'), rows: none },
  session_status: { id: 26, columns: columns('variable_name:String variable_value:String'), rows: none },
  statistics: {
    id: 43,
    columns: columns(
      'table_catalog:String table_schema:String table_name:String non_unique:Int64 index_schema:String index_name:String seq_in_index:Int64 column_name:String collation:String? cardinality:Int64? sub_part:Int64? packed:String? nullable:String index_type:String comment:String index_comment:String is_visible:String expression:String? tsdb_index_type:String?',
    ),
    rows: statisticsRows,
  },
  table_constraints: {
    id: 30,
    columns: columns('constraint_catalog:String constraint_schema:String constraint_name:String table_schema:String table_name:String constraint_type:String enforced:String'),
    rows: tableConstraintRows,
  },
  table_semantics: {
    id: 42,
    columns: columns('table_catalog:String table_schema:String table_name:String table_id:UInt32 signal_type:String? source:String? source_version:String? pipeline:String? metadata_quality:String? semantic_options:String?'),
    rows: tableSemanticsRows,
  },
  table_privileges: { id: 23, columns: columns('grantee:String table_catalog:String table_schema:String table_name:String privilege_type:String is_grantable:String'), rows: none },
};
