/**
 * The information_schema tables a frontend reads from the region servers (GreptimeDB's datanode
 * inspection): `region_info` (each region's state, sequences, manifest version, compaction window
 * and options, `RegionServer.info`), `ssts_manifest` and `ssts_storage` (the SST files of each region
 * as its manifest records them and as its directory of its storage holds them, `RegionServer.ssts`;
 * for finding files a manifest lost or kept) and `ssts_index_meta` (each indexed column of each SST's
 * inverted index, as GreptimeDB lists the blobs of its puffin files). Through `InformationSchemaSource.regionInfo` /
 * `regionSsts`, so a cluster frontend lists its datanodes' regions. Columns, types and ids are
 * GreptimeDB's (`store-api/src/sst_entry.rs`, `region_info.rs`); tsdb keeps neither series counts
 * nor primary key bounds per file (null) and has one index version (0).
 */
import { int64Cell, type Cell } from '../query/output.js';
import { regionId } from '../types/region-id.js';
import type { RegionInfo, RegionSsts } from '../types/region-server.js';
import type { InformationSchemaSource, VirtualColumn, VirtualTable } from './information-schema.js';
import { INFORMATION_SCHEMA, ownsNoRegions, type TableInfo } from './table-info.js';
import { formatTtl } from './table-options.js';

/** The SST files of one region of a table, and the datanode holding it (0 in a standalone server). */
export interface RegionSstsRow {
  readonly region_number: number;
  readonly node_id: number | null;
  readonly ssts: RegionSsts;
}

/** What one region's server says of it (`region_info`), and the datanode holding it. */
export interface RegionInfoRow {
  readonly region_number: number;
  readonly node_id: number | null;
  readonly info: RegionInfo;
}

function col(name: string, type: VirtualColumn['type'], nullable: boolean): VirtualColumn {
  return { name, type, nullable };
}

const SSTS_MANIFEST_COLUMNS: readonly VirtualColumn[] = [
  col('table_dir', 'String', false),
  col('region_id', 'UInt64', false),
  col('table_id', 'UInt32', false),
  col('region_number', 'UInt32', false),
  col('region_group', 'UInt8', false),
  col('region_sequence', 'UInt32', false),
  col('file_id', 'String', false),
  col('index_version', 'UInt64', false),
  col('level', 'UInt8', false),
  col('file_path', 'String', false),
  col('file_size', 'UInt64', false),
  col('index_file_path', 'String', true),
  col('index_file_size', 'UInt64', true),
  col('num_rows', 'UInt64', false),
  col('num_row_groups', 'UInt64', false),
  col('num_series', 'UInt64', true),
  col('min_ts', 'TimestampNanosecond', true),
  col('max_ts', 'TimestampNanosecond', true),
  col('sequence', 'UInt64', true),
  col('origin_region_id', 'UInt64', false),
  col('node_id', 'UInt64', true),
  col('visible', 'Boolean', false),
  col('primary_key_min', 'Binary', true),
  col('primary_key_max', 'Binary', true),
];

const SSTS_STORAGE_COLUMNS: readonly VirtualColumn[] = [
  col('file_path', 'String', false),
  col('file_size', 'UInt64', true),
  col('last_modified_ms', 'TimestampMillisecond', true),
  col('node_id', 'UInt64', true),
];

const REGION_INFO_COLUMNS: readonly VirtualColumn[] = [
  col('region_id', 'UInt64', false),
  col('table_id', 'UInt32', false),
  col('region_number', 'UInt32', false),
  col('region_group', 'UInt8', false),
  col('region_sequence', 'UInt32', false),
  col('state', 'String', false),
  col('role', 'String', false),
  col('writable', 'Boolean', false),
  col('committed_sequence', 'UInt64', false),
  col('flushed_sequence', 'UInt64', true),
  col('manifest_version', 'UInt64', false),
  col('compaction_time_window', 'String', true),
  col('region_options', 'String', false),
  col('sst_format', 'String', false),
  col('node_id', 'UInt64', true),
];

const SSTS_INDEX_META_COLUMNS: readonly VirtualColumn[] = [
  col('table_dir', 'String', false),
  col('index_file_path', 'String', false),
  col('region_id', 'UInt64', false),
  col('table_id', 'UInt32', false),
  col('region_number', 'UInt32', false),
  col('region_group', 'UInt8', false),
  col('region_sequence', 'UInt32', false),
  col('file_id', 'String', false),
  col('index_file_size', 'UInt64', true),
  col('index_type', 'String', false),
  col('target_type', 'String', false),
  col('target_key', 'String', false),
  col('target_json', 'String', false),
  col('blob_size', 'UInt64', false),
  col('meta_json', 'String', true),
  col('node_id', 'UInt64', true),
];

/** Every table with regions of its own, with what `ask` answers of its regions. */
async function perTable<T>(source: InformationSchemaSource, ask: ((t: TableInfo) => Promise<T[]>) | undefined): Promise<Array<{ table: TableInfo; regions: T[] }>> {
  if (ask === undefined) return [];
  const out: Array<{ table: TableInfo; regions: T[] }> = [];
  for (const db of await source.databases()) {
    if (db.name === INFORMATION_SCHEMA) continue;
    for (const table of await source.tables(db.name)) {
      if (ownsNoRegions(table) || table.region_numbers.length === 0) continue;
      out.push({ table, regions: await ask(table) });
    }
  }
  return out;
}

function regionFiles(source: InformationSchemaSource): Promise<Array<{ table: TableInfo; regions: RegionSstsRow[] }>> {
  return perTable(source, source.regionSsts?.bind(source));
}

/** GreptimeDB's region number: a group in its top 8 bits, a sequence in the low 24. */
function groupAndSequence(regionNumber: number): [number, number] {
  return [(regionNumber >>> 24) & 0xff, regionNumber & 0xff_ffff];
}

async function regionInfoRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const rows: Array<{ id: bigint; row: Cell[] }> = [];
  for (const { table, regions } of await perTable(source, source.regionInfo?.bind(source))) {
    for (const r of regions) {
      const id = regionId(table.table_id, r.region_number);
      const i = r.info;
      const window = i.compaction_time_window === undefined ? null : formatTtl(`${i.compaction_time_window}ms`);
      rows.push({
        id,
        row: [
          int64Cell(id), table.table_id, r.region_number, ...groupAndSequence(r.region_number), i.state, i.role, i.writable, i.committed_sequence,
          i.flushed_sequence > 0 ? i.flushed_sequence : null, i.manifest_version, window, i.region_options, table.options['sst_format'] ?? 'primary_key', r.node_id,
        ],
      });
    }
  }
  return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((r) => r.row);
}

async function manifestRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const rows: Cell[][] = [];
  for (const { table, regions } of await regionFiles(source)) {
    const tableDir = `${table.catalog}/${table.database}/${table.table_id}/`;
    for (const r of regions) {
      const id = int64Cell(regionId(table.table_id, r.region_number));
      const [group, sequence] = groupAndSequence(r.region_number);
      for (const f of r.ssts.manifest) {
        rows.push([
          tableDir, id, table.table_id, r.region_number, group, sequence, f.file_id, 0, f.level, f.file_path, f.file_size,
          f.index_file_path, f.index_file_size, f.num_rows, f.num_row_groups, null, int64Cell(BigInt(f.min_ts)), int64Cell(BigInt(f.max_ts)), f.sequence,
          id, r.node_id, true, null, null,
        ]);
      }
    }
  }
  return rows;
}

/** One row per indexed column of each SST file's index (GreptimeDB's blob of a puffin file). */
async function indexMetaRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const rows: Cell[][] = [];
  for (const { table, regions } of await regionFiles(source)) {
    const tableDir = `${table.catalog}/${table.database}/${table.table_id}/`;
    for (const r of regions) {
      const id = int64Cell(regionId(table.table_id, r.region_number));
      const [group, sequence] = groupAndSequence(r.region_number);
      for (const e of r.ssts.index_meta) {
        const meta = { inverted: { base_offset: e.offset, distinct_values: e.distinct_values, segment_row_count: e.segment_row_count, total_row_count: e.row_count, value_kind: e.value_kind } };
        rows.push([
          tableDir, e.index_file_path, id, table.table_id, r.region_number, group, sequence, e.file_id, e.index_file_size, e.index_type, 'column',
          String(e.column_id), JSON.stringify({ column: e.column_id }), e.size, JSON.stringify(meta), r.node_id,
        ]);
      }
    }
  }
  return rows;
}

async function storageRows(source: InformationSchemaSource): Promise<Cell[][]> {
  const rows: Cell[][] = [];
  for (const { regions } of await regionFiles(source)) {
    // The object store keeps no modification times tsdb reads: last_modified_ms is null.
    for (const r of regions) for (const e of r.ssts.storage) rows.push([e.file_path, e.file_size, null, r.node_id]);
  }
  return rows;
}

/** The tables, under GreptimeDB's ids. */
export const SSTS_TABLES: Readonly<Record<string, VirtualTable>> = {
  ssts_manifest: { id: 37, columns: SSTS_MANIFEST_COLUMNS, rows: manifestRows },
  ssts_storage: { id: 38, columns: SSTS_STORAGE_COLUMNS, rows: storageRows },
  ssts_index_meta: { id: 39, columns: SSTS_INDEX_META_COLUMNS, rows: indexMetaRows },
  region_info: { id: 41, columns: REGION_INFO_COLUMNS, rows: regionInfoRows },
};
