/**
 * Where a table's rows live: its own regions (mito tables, physical metric tables), or, for a
 * logical metric table, the region of its physical table (`metric-engine.ts`). Writes, scans,
 * flushes and truncation go through here, so the statements need not know which kind a table is.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CatalogManager } from '../catalog/catalog-manager.js';
import { DEFAULT_CATALOG, tableRegionIds, type TableInfo } from '../catalog/table-info.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { WriteBatch } from '../types/write-batch.js';
import type { Relation } from '../query/query-executor.js';
import type { TimeRange } from '../query/time-predicates.js';
import type { KeyValue, KeyValues } from '../query/key-predicates.js';
import { isLogicalTable, LOGICAL_TABLE_OPTION, logicalRelation, physicalBatch } from './metric-engine.js';
import type { RegionAccess } from './region-access.js';

/** Primary key values by column id (those of `keys` naming primary key columns of `info`). */
function keyColumnIds(info: TableInfo, keys: KeyValues): Map<number, readonly KeyValue[]> | undefined {
  const out = new Map<number, readonly KeyValue[]>();
  for (const [name, values] of keys) {
    if (!info.primary_key.includes(name)) continue;
    const column = info.columns.find((c) => c.name === name);
    if (column !== undefined) out.set(column.column_id, values);
  }
  return out.size === 0 ? undefined : out;
}

export class TableRouter {
  constructor(
    private readonly catalog: CatalogManager,
    readonly regions: RegionAccess,
  ) {}

  /** The physical table of a logical metric table. */
  async physicalOf(logical: TableInfo): Promise<TableInfo> {
    const name = logical.options[LOGICAL_TABLE_OPTION]!;
    const physical = await this.catalog.table(logical.database, name);
    if (physical === undefined) throw new TsdbError(StatusCode.TableNotFound, `Physical table not found: ${DEFAULT_CATALOG}.${logical.database}.${name}`);
    return physical;
  }

  /** The table whose regions hold `info`'s rows (itself, or its physical table). */
  async storageOf(info: TableInfo): Promise<TableInfo> {
    return isLogicalTable(info) ? this.physicalOf(info) : info;
  }

  /** Writes a batch keyed by `info`'s column ids. */
  async write(info: TableInfo, batch: WriteBatch): Promise<void> {
    if (!isLogicalTable(info)) {
      await this.regions.write(tableRegionIds(info)[0]!, batch);
      return;
    }
    const physical = await this.physicalOf(info);
    await this.regions.write(tableRegionIds(physical)[0]!, physicalBatch(info, physical, batch));
  }

  /**
   * The rows of `info` (in the inclusive time range, when given) as a relation for a query; a
   * table with regions of its own reads only the rows of the primary key values `keys` allows.
   */
  async relation(info: TableInfo, range: TimeRange | undefined, keys?: KeyValues, signal?: AbortSignal): Promise<Relation> {
    const storage = await this.storageOf(info);
    // A logical metric table's columns are not its physical table's: its scan is not narrowed by key.
    const keyIds = storage === info && keys !== undefined ? keyColumnIds(info, keys) : undefined;
    const scan = await this.regions.scanRelation(tableRegionIds(storage)[0]!, { ...range, ...(keyIds !== undefined && { keys: keyIds }) }, signal);
    if (storage === info) return scan;
    return { sql: logicalRelation(info, scan.sql), release: () => scan.release() };
  }

  async flush(info: TableInfo): Promise<void> {
    for (const id of tableRegionIds(await this.storageOf(info))) await this.regions.flush(id);
  }

  async compact(info: TableInfo): Promise<void> {
    for (const id of tableRegionIds(await this.storageOf(info))) await this.regions.compact(id);
  }

  /** Removes every row of a table with regions of its own (a logical metric table deletes its rows instead). */
  async truncate(info: TableInfo): Promise<void> {
    if (isLogicalTable(info)) throw new TsdbError(StatusCode.Unexpected, `truncate of logical table ${info.name}: delete its rows`);
    for (const id of tableRegionIds(info)) await this.regions.truncateRegion(id);
  }

  connect(): Promise<DuckDBConnection> {
    return this.regions.connect();
  }
}
