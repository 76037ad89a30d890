/**
 * The rows of the `information_schema` tables (reference api.md §4.8), built from the catalog's
 * records as GreptimeDB builds them (`src/catalog/src/system_schema/information_schema/*.rs`), with
 * `greptime` renamed `tsdb`. The module only reads: the caller supplies the catalog and the region
 * statistics through an `InformationSchemaSource`.
 */
import { availableParallelism, hostname, totalmem } from 'node:os';
import { formatDuration } from '../common/time/duration.js';
import { buildInfo } from '../common/build-info.js';
import { decimalOf, type ColumnType } from '../types/region-metadata.js';
import { regionId } from '../types/region-id.js';
import { int64Cell, type Cell, type OutputColumn } from '../query/output.js';
import { SHOW_TYPES, showTypeOf } from './column-types.js';
import { MORE_TABLES, NUMBERS, NUMBERS_TABLE } from './information-schema-more.js';
import { SSTS_TABLES, type RegionInfoRow, type RegionSstsRow } from './information-schema-ssts.js';
import { partitionRuleOf } from './partition-rule.js';
import { DEFAULT_CATALOG, INFORMATION_SCHEMA, LOGICAL_TABLE_OPTION, ownsNoRegions, type ColumnSchema, type DatabaseInfo, type TableInfo } from './table-info.js';
import type { RegionRoute } from './table-route.js';
import type { ViewInfo } from './view-info.js';
import { VIEWS_COLUMNS, viewsRows, viewTablesRow } from './information-schema-views.js';

/** What a region holds, as the engine counts it. */
export interface RegionStatistics {
  readonly region_number: number;
  readonly memtable_rows: number;
  readonly sst_rows: number;
  readonly sst_files: number;
  readonly sst_bytes: number;
  readonly memtable_bytes?: number;
}

/** How the module reads the catalog (the caller implements it). */
export interface InformationSchemaSource {
  /** Every database (`information_schema` may be left out: it is added when missing). */
  databases(): Promise<DatabaseInfo[]>;
  /** The user tables of a database (never called for `information_schema`). */
  tables(db: string): Promise<TableInfo[]>;
  /** The statistics of each region of a table. */
  regionStatistics(t: TableInfo): Promise<RegionStatistics[]>;
  /** The statements running now that the reader may see (`process_list`); none when absent. */
  processes?(): ProcessRow[];
  /**
   * Where each region of a table with regions of its own is served, as its table route says (a
   * cluster's metadata); `region_peers` shows it. Absent, or undefined for a table: every region is
   * on this standalone server (GreptimeDB's standalone peer: id 0, no address).
   */
  regionRoutes?(t: TableInfo): Promise<readonly RegionRoute[] | undefined>;
  /** The views of a database (`views`, and `tables` rows of type VIEW); none when absent. */
  views?(db: string): Promise<ViewInfo[]>;
  /** The SST files of each region of a table with regions of its own (`ssts_manifest`, `ssts_storage`); none when absent. */
  regionSsts?(t: TableInfo): Promise<RegionSstsRow[]>;
  /** What each region of a table with regions of its own is (`region_info`); none when absent. */
  regionInfo?(t: TableInfo): Promise<RegionInfoRow[]>;
  /** The nodes of the cluster (`cluster_info`); absent in a standalone server (one STANDALONE row). */
  clusterNodes?(): Promise<ClusterNodeRow[]>;
}

/** A node as `cluster_info` shows it. */
export interface ClusterNodeRow {
  /** The datanode id; -1 for frontends, 0 for the metasrv and a standalone server (GreptimeDB's). */
  readonly peer_id: number;
  /** `METASRV`, `FRONTEND`, `DATANODE` or `STANDALONE`. */
  readonly peer_type: string;
  readonly peer_addr: string;
  readonly version: string;
  readonly git_commit: string;
  readonly start_time_ms: number;
  /** Milliseconds since its last heartbeat (undefined for the node answering). */
  readonly idle_ms?: number;
  readonly alive: boolean;
}

/** A running statement as `process_list` shows it. */
export interface ProcessRow {
  readonly id: string;
  readonly catalog: string;
  readonly database: string;
  readonly query: string;
  /** `<protocol>[<address>]`. */
  readonly client: string;
  /** The frontend running it (its host name). */
  readonly frontend: string;
  /** Milliseconds since the epoch. */
  readonly startMs: number;
  readonly elapsedMs: number;
}

/** An information_schema column: its name, type and whether it may hold null. */
export interface VirtualColumn {
  readonly name: string;
  readonly type: ColumnType;
  readonly nullable: boolean;
}

export interface VirtualTable {
  /** GreptimeDB's table id (`common_catalog::consts`). */
  readonly id: number;
  readonly columns: readonly VirtualColumn[];
  /** Its primary key columns (`numbers`' `number`); none for information_schema's tables. */
  readonly primaryKey?: readonly string[];
  /** Its engine as information_schema.tables shows it; '' when absent. */
  readonly engine?: string;
  readonly rows: (source: InformationSchemaSource) => Promise<Cell[][]>;
}

const col = (name: string, type: ColumnType, nullable: boolean): VirtualColumn => ({ name, type, nullable });
const str = (name: string, nullable = false): VirtualColumn => col(name, 'String', nullable);

/** `PRI` tags, `TIME INDEX` time index (GreptimeDB's `column_key`). */
const PRI_COLUMN_KEY = 'PRI';
const TIME_INDEX = 'TIME INDEX';
const PRIMARY = 'PRIMARY';
/** GreptimeDB's `greptime_index_type` of a primary key column: its dense encoding. */
const INDEX_TYPE_PRI = 'dense';
const MAX_STRING_LENGTH = 2147483647;
const UTF8 = 'utf8';
const UTF8_BIN = 'utf8_bin';
/** MariaDB's default table version, which GreptimeDB reports. */
const TABLE_VERSION = 11;

// ---------------------------------------------------------------------------------------------
// Shared helpers

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Databases sorted by name, `information_schema` included once. */
async function databases(source: InformationSchemaSource): Promise<DatabaseInfo[]> {
  const dbs = (await source.databases()).filter((d) => d.name !== INFORMATION_SCHEMA);
  dbs.push({ name: INFORMATION_SCHEMA, options: {}, created_at: 0 });
  return dbs.sort((a, b) => compare(a.name, b.name));
}

/** A table as the builders see it: a user table, or one of information_schema's own. */
type AnyTable = { readonly kind: 'user'; readonly info: TableInfo } | { readonly kind: 'virtual'; readonly name: string; readonly def: VirtualTable };

/** Every table of every database, sorted by database then name. */
async function allTables(source: InformationSchemaSource): Promise<Array<{ db: DatabaseInfo; tables: AnyTable[] }>> {
  const out: Array<{ db: DatabaseInfo; tables: AnyTable[] }> = [];
  for (const db of await databases(source)) {
    const tables: AnyTable[] =
      db.name === INFORMATION_SCHEMA
        ? INFORMATION_SCHEMA_TABLES.map((name) => ({ kind: 'virtual', name, def: TABLES[name]! }))
        : (await source.tables(db.name)).map((info) => ({ kind: 'user', info }));
    // GreptimeDB's test table, in `public` only.
    if (db.name === 'public' && !tables.some((t) => tableName(t) === NUMBERS_TABLE)) tables.push({ kind: 'virtual', name: NUMBERS_TABLE, def: NUMBERS });
    tables.sort((a, b) => compare(tableName(a), tableName(b)));
    out.push({ db, tables });
  }
  return out;
}

function tableName(t: AnyTable): string {
  return t.kind === 'user' ? t.info.name : t.name;
}

/** The user tables' and views' rows of one database's part of `tables`, sorted by name (views after none). */
function withViews(rows: Cell[][], views: readonly ViewInfo[]): Cell[][] {
  if (views.length === 0) return rows;
  return [...rows, ...views.map(viewTablesRow)].sort((a, b) => compare(String(a[2]), String(b[2])));
}

/** A column of any table, with what `columns` and `key_column_usage` need to know of it. */
interface ColumnView {
  readonly name: string;
  readonly type: ColumnType;
  readonly semantic: 'TAG' | 'FIELD' | 'TIMESTAMP';
  readonly nullable: boolean;
  readonly default: string | null;
  readonly comment: string | null;
}

function columnViews(t: AnyTable): ColumnView[] {
  if (t.kind === 'virtual') {
    const keys = new Set(t.def.primaryKey ?? []);
    return t.def.columns.map((c) => ({ name: c.name, type: c.type, semantic: keys.has(c.name) ? 'TAG' : 'FIELD', nullable: c.nullable, default: null, comment: null }));
  }
  const keys = new Set(t.info.primary_key);
  return t.info.columns.map((c) => ({
    name: c.name,
    type: c.data_type,
    semantic: c.name === t.info.time_index ? 'TIMESTAMP' : keys.has(c.name) ? 'TAG' : 'FIELD',
    nullable: c.nullable,
    default: defaultText(c),
    comment: c.comment ?? null,
  }));
}

/** A column default as GreptimeDB prints it (`ColumnDefaultConstraint`'s Display): null when none. */
function defaultText(c: ColumnSchema): string | null {
  const d = c.default;
  if (d === undefined) return null;
  if (d.kind === 'current_timestamp') return 'current_timestamp()';
  if (d.value === null) return 'NULL';
  return String(d.value);
}

/** The MySQL-style type name (`timestamp(3)`, `int unsigned`, `string`). */
export function sqlTypeName(t: ColumnType): string {
  return showTypeOf(t).toLowerCase();
}

const NUMERIC_PRECISION: Partial<Record<ColumnType, number>> = {
  Int8: 3,
  UInt8: 3,
  Int16: 5,
  UInt16: 5,
  Int32: 10,
  UInt32: 10,
  Int64: 19,
  UInt64: 20,
  Float32: 12,
  Float64: 22,
};

const DATETIME_PRECISION: Partial<Record<ColumnType, number>> = {
  TimestampSecond: 0,
  TimestampMillisecond: 3,
  TimestampMicrosecond: 6,
  TimestampNanosecond: 9,
};

/** A region's counters in GreptimeDB's terms. */
function regionNumbers(s: RegionStatistics): { rows: number; memtable: number; sst: number; manifest: number; index: number; disk: number } {
  const memtable = s.memtable_bytes ?? 0;
  const manifest = 0;
  const index = 0;
  return { rows: s.memtable_rows + s.sst_rows, memtable, sst: s.sst_bytes, manifest, index, disk: memtable + s.sst_bytes + manifest + index };
}

/** `ttl` first, then the other options sorted, one `'k'='v'` a line (GreptimeDB's SchemaNameValue). */
function databaseOptions(options: Readonly<Record<string, string>>): string {
  const keys = Object.keys(options).sort((a, b) => (a === 'ttl' ? -1 : b === 'ttl' ? 1 : compare(a, b)));
  return keys.map((k) => `'${k}'='${options[k]}'`).join('\n');
}

/**
 * `write_buffer_size`, `ttl`, `skip_wal` (when true), then the other options sorted, as `k=v`
 * separated by spaces (GreptimeDB's TableOptions Display); the comment is the table's, not an option.
 */
function tableOptions(options: Readonly<Record<string, string>>): string {
  const out: string[] = [];
  if (options['write_buffer_size'] !== undefined) out.push(`write_buffer_size=${options['write_buffer_size']}`);
  if (options['ttl'] !== undefined) out.push(`ttl=${options['ttl']}`);
  if (options['skip_wal'] === 'true') out.push('skip_wal=true');
  const rest = Object.keys(options)
    .filter((k) => !['write_buffer_size', 'ttl', 'skip_wal', 'comment'].includes(k))
    .sort(compare);
  for (const k of rest) out.push(`${k}=${options[k]}`);
  return out.join(' ');
}

// ---------------------------------------------------------------------------------------------
// The tables

const TABLES_COLUMNS: readonly VirtualColumn[] = [
  str('table_catalog'),
  str('table_schema'),
  str('table_name'),
  str('table_type'),
  col('table_id', 'UInt32', true),
  col('data_length', 'UInt64', true),
  col('max_data_length', 'UInt64', true),
  col('index_length', 'UInt64', true),
  col('max_index_length', 'UInt64', true),
  col('avg_row_length', 'UInt64', true),
  str('engine', true),
  col('version', 'UInt64', true),
  str('row_format', true),
  col('table_rows', 'UInt64', true),
  col('data_free', 'UInt64', true),
  col('auto_increment', 'UInt64', true),
  col('create_time', 'TimestampSecond', true),
  col('update_time', 'TimestampSecond', true),
  col('check_time', 'TimestampSecond', true),
  str('table_collation', true),
  col('checksum', 'UInt64', true),
  str('create_options', true),
  str('table_comment', true),
  str('temporary', true),
];

async function tablesRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const all: Cell[][] = [];
  for (const { db, tables } of await allTables(source)) {
    const rows: Cell[][] = [];
    for (const t of tables) {
      if (t.kind === 'virtual') {
        const created = Math.floor(db.created_at / 1000);
        rows.push([DEFAULT_CATALOG, db.name, t.name, 'LOCAL TEMPORARY', t.def.id, 0, 0, 0, 0, 0, t.def.engine ?? '', TABLE_VERSION, 'Fixed', 0, 0, 0, created, created, null, UTF8_BIN, 0, '', null, 'Y']);
        continue;
      }
      const info = t.info;
      const stats = (await source.regionStatistics(info)).map(regionNumbers);
      const dataLength = stats.reduce((n, s) => n + s.sst, 0);
      const tableRows = stats.reduce((n, s) => n + s.rows, 0);
      const indexLength = stats.reduce((n, s) => n + s.index, 0);
      const memtable = stats.reduce((n, s) => n + s.memtable, 0);
      const avgRowLength = tableRows > 0 ? Math.floor((dataLength + memtable) / tableRows) : 0;
      const comment = info.options['comment'] ?? null;
      // Seconds (GreptimeDB's TimestampSecond); tsdb keeps no time of the last change: its creation.
      const created = Math.floor(info.created_at / 1000);
      rows.push([
        info.catalog,
        db.name,
        info.name,
        'BASE TABLE',
        info.table_id,
        dataLength,
        0,
        indexLength,
        0,
        avgRowLength,
        info.engine,
        TABLE_VERSION,
        'Fixed',
        tableRows,
        0,
        0,
        created,
        created,
        null,
        UTF8_BIN,
        0,
        tableOptions(info.options),
        comment,
        'N',
      ]);
    }
    all.push(...withViews(rows, db.name === INFORMATION_SCHEMA || source.views === undefined ? [] : await source.views(db.name)));
  }
  return all;
}

const COLUMNS_COLUMNS: readonly VirtualColumn[] = [
  str('table_catalog'),
  str('table_schema'),
  str('table_name'),
  str('column_name'),
  col('ordinal_position', 'Int64', false),
  col('character_maximum_length', 'Int64', true),
  col('character_octet_length', 'Int64', true),
  col('numeric_precision', 'Int64', true),
  col('numeric_scale', 'Int64', true),
  col('datetime_precision', 'Int64', true),
  str('character_set_name', true),
  str('collation_name', true),
  str('column_key'),
  str('extra'),
  str('privileges'),
  str('generation_expression'),
  str('tsdb_data_type'),
  str('data_type'),
  str('semantic_type'),
  str('column_default', true),
  str('is_nullable'),
  str('column_type'),
  str('column_comment', true),
  col('srs_id', 'Int64', true),
];

async function columnsRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const rows: Cell[][] = [];
  for (const { db, tables } of await allTables(source)) {
    for (const t of tables) {
      const catalog = t.kind === 'user' ? t.info.catalog : DEFAULT_CATALOG;
      columnViews(t).forEach((c, i) => {
        const isString = c.type === 'String';
        const decimal = decimalOf(c.type);
        const precision = decimal?.precision ?? NUMERIC_PRECISION[c.type];
        const sqlType = sqlTypeName(c.type);
        rows.push([
          catalog,
          db.name,
          tableName(t),
          c.name,
          i + 1,
          isString ? MAX_STRING_LENGTH : null,
          isString ? MAX_STRING_LENGTH : null,
          precision ?? null,
          precision === undefined || c.type === 'Float32' || c.type === 'Float64' ? null : (decimal?.scale ?? 0),
          DATETIME_PRECISION[c.type] ?? null,
          isString ? UTF8 : null,
          isString ? UTF8_BIN : null,
          c.semantic === 'TAG' ? PRI_COLUMN_KEY : c.semantic === 'TIMESTAMP' ? TIME_INDEX : '',
          '',
          'select,insert',
          '',
          c.type,
          sqlType,
          c.semantic,
          c.default,
          c.nullable ? 'Yes' : 'No',
          sqlType,
          c.comment,
          null,
        ]);
      });
    }
  }
  return rows;
}

const SCHEMATA_COLUMNS: readonly VirtualColumn[] = [
  str('catalog_name'),
  str('schema_name'),
  str('default_character_set_name'),
  str('default_collation_name'),
  str('sql_path', true),
  str('options', true),
];

async function schemataRows(source: InformationSchemaSource): Promise<Cell[][]> {
  return (await databases(source)).map((db) => [DEFAULT_CATALOG, db.name, UTF8, UTF8_BIN, null, databaseOptions(db.options)]);
}

const KEY_COLUMN_USAGE_COLUMNS: readonly VirtualColumn[] = [
  str('constraint_catalog'),
  str('constraint_schema'),
  str('constraint_name'),
  str('table_catalog'),
  str('real_table_catalog'),
  str('table_schema'),
  str('table_name'),
  str('column_name'),
  col('ordinal_position', 'UInt32', false),
  col('position_in_unique_constraint', 'UInt32', true),
  str('referenced_table_schema', true),
  str('referenced_table_name', true),
  str('referenced_column_name', true),
  str('tsdb_index_type', true),
];

/**
 * One row for the time index (ordinal_position 1, as GreptimeDB gives it) and one for each primary
 * key column (its position in the table), in column order; `table_catalog` is MySQL's `def`.
 */
async function keyColumnUsageRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const rows: Cell[][] = [];
  for (const { db, tables } of await allTables(source)) {
    for (const t of tables) {
      // `numbers` has a primary key; information_schema's tables have no keys.
      const info = t.kind === 'user' ? t.info : t.def.primaryKey === undefined ? undefined : { catalog: DEFAULT_CATALOG, name: t.name, primary_key: t.def.primaryKey, time_index: '', columns: t.def.columns };
      if (info === undefined) continue;
      const row = (constraint: string, column: string, ordinal: number, indexType: string): Cell[] => [
        'def',
        db.name,
        constraint,
        'def',
        info.catalog,
        db.name,
        info.name,
        column,
        ordinal,
        null,
        null,
        null,
        null,
        indexType,
      ];
      const keys = new Set(info.primary_key);
      info.columns.forEach((c, i) => {
        if (c.name === info.time_index) rows.push(row(TIME_INDEX, c.name, 1, ''));
        if (keys.has(c.name)) rows.push(row(PRIMARY, c.name, i + 1, INDEX_TYPE_PRI));
      });
    }
  }
  return rows;
}

const BUILD_INFO_COLUMNS: readonly VirtualColumn[] = ['git_branch', 'git_commit', 'git_commit_short', 'git_clean', 'pkg_version'].map((n) => str(n));

const REGION_STATISTICS_COLUMNS: readonly VirtualColumn[] = [
  col('region_id', 'UInt64', false),
  col('table_id', 'UInt32', false),
  col('region_number', 'UInt32', false),
  col('region_rows', 'UInt64', true),
  col('written_bytes_since_open', 'UInt64', true),
  col('query_cpu_time_millis', 'UInt64', true),
  col('query_scanned_bytes', 'UInt64', true),
  col('disk_size', 'UInt64', true),
  col('memtable_size', 'UInt64', true),
  col('manifest_size', 'UInt64', true),
  col('sst_size', 'UInt64', true),
  col('sst_num', 'UInt64', true),
  col('index_size', 'UInt64', true),
  str('engine', true),
  str('region_role', true),
];

/** One row per region of every user table, by region id. */
async function regionStatisticsRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const rows: Array<{ id: bigint; row: Cell[] }> = [];
  for (const { tables } of await allTables(source)) {
    for (const t of tables) {
      if (t.kind !== 'user') continue;
      for (const s of await source.regionStatistics(t.info)) {
        const n = regionNumbers(s);
        const id = regionId(t.info.table_id, s.region_number);
        // written_bytes_since_open, query_cpu_time_millis, query_scanned_bytes: not counted by tsdb's engine yet.
        rows.push({ id, row: [int64Cell(id), t.info.table_id, s.region_number, n.rows, 0, 0, 0, n.disk, n.memtable, n.manifest, n.sst, s.sst_files, n.index, t.info.engine, 'Leader'] });
      }
    }
  }
  return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((r) => r.row);
}

/**
 * The table holding the rows of a user table: itself, or a logical metric table's physical table
 * (found among the tables of its database); undefined when that is missing.
 */
function storageOf(t: TableInfo, siblings: readonly AnyTable[]): TableInfo | undefined {
  if (!ownsNoRegions(t)) return t;
  const name = t.options[LOGICAL_TABLE_OPTION];
  const found = siblings.find((s) => s.kind === 'user' && s.info.name === name);
  return found?.kind === 'user' ? found.info : undefined;
}

const PARTITIONS_COLUMNS: readonly VirtualColumn[] = [
  str('table_catalog'),
  str('table_schema'),
  str('table_name'),
  str('partition_name'),
  str('subpartition_name', true),
  col('partition_ordinal_position', 'Int64', true),
  col('subpartition_ordinal_position', 'Int64', true),
  str('partition_method', true),
  str('subpartition_method', true),
  str('partition_expression', true),
  str('subpartition_expression', true),
  str('partition_description', true),
  col('table_rows', 'Int64', true),
  col('avg_row_length', 'Int64', true),
  col('data_length', 'Int64', true),
  col('max_data_length', 'Int64', true),
  col('index_length', 'Int64', true),
  col('data_free', 'Int64', true),
  col('create_time', 'TimestampSecond', true),
  col('update_time', 'TimestampSecond', true),
  col('check_time', 'TimestampSecond', true),
  col('checksum', 'Int64', true),
  str('partition_comment', true),
  str('nodegroup', true),
  str('tablespace_name', true),
  col('tsdb_partition_id', 'UInt64', true),
];

/**
 * One row per region of every user table (a logical metric table shows its physical table's):
 * `p0`, `p1`… in region order, `RANGE`, the partition columns (`a, b`) as the expression, the
 * region's rule as its description (GreptimeDB's display: strings bare), the region id as
 * `tsdb_partition_id`. A table without a rule has one, with neither.
 */
async function partitionsRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const rows: Cell[][] = [];
  for (const { db, tables } of await allTables(source)) {
    for (const t of tables) {
      if (t.kind !== 'user') continue;
      const storage = storageOf(t.info, tables);
      if (storage === undefined) continue;
      const columns = storage.partition?.columns ?? [];
      const descriptions = partitionRuleOf(storage)?.descriptions() ?? [];
      const created = Math.floor(t.info.created_at / 1000);
      storage.region_numbers.forEach((n, i) => {
        rows.push([
          t.info.catalog,
          db.name,
          t.info.name,
          `p${i}`,
          null,
          i + 1,
          null,
          'RANGE',
          null,
          columns.length > 0 ? columns.join(', ') : null,
          null,
          descriptions[i] ?? null,
          null,
          null,
          null,
          null,
          null,
          null,
          created,
          null,
          null,
          null,
          null,
          null,
          null,
          int64Cell(regionId(storage.table_id, n)),
        ]);
      });
    }
  }
  return rows;
}

const REGION_PEERS_COLUMNS: readonly VirtualColumn[] = [
  str('table_catalog'),
  str('table_schema'),
  str('table_name'),
  col('region_id', 'UInt64', false),
  col('peer_id', 'UInt64', true),
  str('peer_addr', true),
  str('is_leader', true),
  str('status', true),
  col('down_seconds', 'Int64', true),
];

/**
 * One row per region and peer of every user table: the leader (`Yes`, `ALIVE`), then its
 * followers (`No`). A logical metric table's regions are its physical table's, under its own table
 * id (GreptimeDB's region ids of a logical table). A region without a leader shows no peer and no
 * status.
 */
async function regionPeersRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const rows: Cell[][] = [];
  for (const { db, tables } of await allTables(source)) {
    for (const t of tables) {
      if (t.kind !== 'user') continue;
      const storage = storageOf(t.info, tables);
      if (storage === undefined) continue;
      const routes: readonly RegionRoute[] =
        (await source.regionRoutes?.(storage)) ?? storage.region_numbers.map((n) => ({ region_number: n, leader_peer: { id: 0, addr: '' }, follower_peers: [] }));
      const table = [t.info.catalog, db.name, t.info.name];
      for (const r of [...routes].sort((a, b) => a.region_number - b.region_number)) {
        const id = int64Cell(regionId(t.info.table_id, r.region_number));
        const leader = r.leader_peer;
        rows.push([...table, id, leader?.id ?? null, leader?.addr ?? null, 'Yes', leader !== undefined ? 'ALIVE' : null, null]);
        for (const f of r.follower_peers) rows.push([...table, id, f.id, f.addr, 'No', null, null]);
      }
    }
  }
  return rows;
}

/**
 * GreptimeDB's `process_list` columns; `elapsed_time` (a DurationMillisecond there) is an Int64 of
 * milliseconds, tsdb having no duration type.
 */
const PROCESS_LIST_COLUMNS: readonly VirtualColumn[] = [
  str('id'),
  str('catalog'),
  str('schemas'),
  str('query'),
  str('client'),
  str('frontend'),
  col('start_timestamp', 'TimestampMillisecond', false),
  col('elapsed_time', 'Int64', false),
];

function processListRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const rows = (source.processes?.() ?? []).map((p) => [p.id, p.catalog, p.database, p.query, p.client, p.frontend, p.startMs, p.elapsedMs]);
  return Promise.resolve(rows);
}

/** GreptimeDB's `cluster_info` columns. */
const CLUSTER_INFO_COLUMNS: readonly VirtualColumn[] = [
  col('peer_id', 'Int64', false),
  str('peer_type'),
  str('peer_addr', true),
  str('peer_hostname', true),
  col('total_cpu_millicores', 'Int64', false),
  col('total_memory_bytes', 'Int64', false),
  col('cpu_usage_millicores', 'Int64', false),
  col('memory_usage_bytes', 'Int64', false),
  str('version'),
  str('git_commit'),
  col('start_time', 'TimestampMillisecond', true),
  str('uptime', true),
  str('active_time', true),
  str('node_status', true),
];

/** `1m3s500ms` as GreptimeDB writes durations there: `1m 3s 500ms`. */
function spaced(duration: string): string {
  return duration.replace(/(?<=[a-zµ])(?=\d)/g, ' ');
}

async function clusterInfoRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const b = buildInfo();
  const nodes: readonly ClusterNodeRow[] = (await source.clusterNodes?.()) ?? [
    { peer_id: 0, peer_type: 'STANDALONE', peer_addr: '', version: b.version, git_commit: b.commit, start_time_ms: Date.now() - Math.round(process.uptime() * 1000), alive: true },
  ];
  const now = Date.now();
  // The host, CPUs and memory: of the node answering only (others do not report theirs yet: 0).
  // cpu_usage_millicores: not measured (0).
  return nodes.map((n) => {
    const self = n.peer_type === 'STANDALONE';
    return [
    n.peer_id,
    n.peer_type,
    n.peer_addr,
    self ? hostname() : null,
    self ? availableParallelism() * 1000 : 0,
    self ? totalmem() : 0,
    0,
    self ? process.memoryUsage.rss() : 0,
    n.version,
    n.git_commit,
    n.start_time_ms,
    spaced(formatDuration(Math.max(0, now - n.start_time_ms))),
    n.idle_ms === undefined ? null : spaced(formatDuration(n.idle_ms)),
    n.alive ? null : 'LOST',
  ];
  });
}

const TABLES: Readonly<Record<string, VirtualTable>> = {
  build_info: {
    id: 8,
    columns: BUILD_INFO_COLUMNS,
    rows: () => {
      const b = buildInfo();
      return Promise.resolve([[b.branch, b.commit, b.commit_short, String(b.clean), b.version]]);
    },
  },
  cluster_info: { id: 31, columns: CLUSTER_INFO_COLUMNS, rows: clusterInfoRows },
  columns: { id: 4, columns: COLUMNS_COLUMNS, rows: columnsRows },
  key_column_usage: { id: 16, columns: KEY_COLUMN_USAGE_COLUMNS, rows: keyColumnUsageRows },
  partitions: { id: 28, columns: PARTITIONS_COLUMNS, rows: partitionsRows },
  process_list: { id: 36, columns: PROCESS_LIST_COLUMNS, rows: processListRows },
  region_peers: { id: 29, columns: REGION_PEERS_COLUMNS, rows: regionPeersRows },
  region_statistics: { id: 35, columns: REGION_STATISTICS_COLUMNS, rows: regionStatisticsRows },
  schemata: { id: 15, columns: SCHEMATA_COLUMNS, rows: schemataRows },
  tables: { id: 3, columns: TABLES_COLUMNS, rows: tablesRows },
  views: { id: 32, columns: VIEWS_COLUMNS, rows: viewsRows },
  ...MORE_TABLES,
  ...SSTS_TABLES,
};

/** The tables of `information_schema`, sorted by name. */
export const INFORMATION_SCHEMA_TABLES: readonly string[] = Object.freeze(Object.keys(TABLES).sort(compare));

/** Each table of `information_schema` with its id and columns (pg_catalog describes them too). */
export function informationSchemaTableDefs(): ReadonlyArray<{ readonly name: string; readonly id: number; readonly columns: readonly VirtualColumn[] }> {
  return INFORMATION_SCHEMA_TABLES.map((name) => ({ name, id: TABLES[name]!.id, columns: TABLES[name]!.columns }));
}

/** The columns and rows of `information_schema.<name>` (name lower-case); undefined for an unknown table. */
export async function informationSchemaTable(name: string, source: InformationSchemaSource): Promise<{ columns: OutputColumn[]; rows: Cell[][] } | undefined> {
  const key = name.toLowerCase();
  const def = Object.hasOwn(TABLES, key) ? TABLES[key] : undefined;
  if (def === undefined) return undefined;
  return { columns: def.columns.map((c) => ({ name: c.name, data_type: c.type })), rows: await def.rows(source) };
}
