/**
 * The changes of databases and tables (DDL) as the frontend asks for them, once it has checked the
 * statement and built the new table info: one interface, two executors. A standalone server applies
 * them here (`LocalTableDdl`: regions in its own engine, then the catalog); in a cluster the metasrv
 * runs them as procedures that place regions on datanodes and survive a restart (`meta/`), and the
 * frontend reaches it through the meta client.
 *
 * Every executor keeps the same order, so that a failure never leaves a table whose catalog entry
 * names regions that do not exist: regions are created before the name is claimed and dropped after
 * it is released.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { RegionServer } from '../types/region-server.js';
import { regionId } from '../types/region-id.js';
import type { CatalogManager } from './catalog-manager.js';
import { ownsNoRegions, regionDir, regionMetadataOf, tableRegionIds, type TableInfo } from './table-info.js';
import { effectiveOptions, regionOptionsOf } from './table-options.js';
import type { ViewInfo } from './view-info.js';

export interface TableDdl {
  /** A new table id (unique, increasing; one lost to a failed creation is not reused). */
  allocateTableId(): Promise<number>;
  /**
   * Creates a checked table: its regions (none for a logical metric table), then its catalog entry.
   * Returns false when the name is taken and `ifNotExists`; else a taken name is TableAlreadyExists.
   */
  createTable(info: TableInfo, ifNotExists: boolean): Promise<boolean>;
  /**
   * Replaces a table's info `before` with `after` (columns, options, a rename): its regions are
   * altered first (a rename alone leaves them). Fails when the table changed since `before` was read.
   */
  alterTable(before: TableInfo, after: TableInfo): Promise<void>;
  /** Removes a table's catalog entry, then its regions. */
  dropTable(info: TableInfo): Promise<void>;
  /** Removes every row of a table with regions of its own. */
  truncateTable(info: TableInfo): Promise<void>;
  /** Creates a database; false when it exists and `ifNotExists`. */
  createDatabase(name: string, options: Readonly<Record<string, string>>, ifNotExists: boolean): Promise<boolean>;
  alterDatabase(name: string, set: Readonly<Record<string, string>>, unset: readonly string[]): Promise<void>;
  /** Removes a database's record (its tables are dropped first, one by one, by the caller). */
  dropDatabase(name: string): Promise<void>;
  /** Records a checked view (`CatalogManager.createView`); with `replace`, over the view of that name. */
  createView(info: ViewInfo, replace: boolean): Promise<void>;
  /** Removes a view's record. */
  dropView(info: ViewInfo): Promise<void>;
}

/** Whether an alter reaches the regions: every change of a table with regions but a rename alone. */
export function altersRegions(before: TableInfo, after: TableInfo): boolean {
  if (ownsNoRegions(after)) return false;
  return JSON.stringify({ ...before, name: '' }) !== JSON.stringify({ ...after, name: '' });
}

/** DDL applied in this process: the regions in the region server here, the catalog in its store. */
export class LocalTableDdl implements TableDdl {
  constructor(
    private readonly catalog: CatalogManager,
    private readonly regions: RegionServer,
  ) {}

  allocateTableId(): Promise<number> {
    return this.catalog.allocateTableId();
  }

  async createTable(info: TableInfo, ifNotExists: boolean): Promise<boolean> {
    const own = !ownsNoRegions(info);
    const options = await this.regionOptions(info);
    const created: number[] = [];
    try {
      if (own) {
        for (const n of info.region_numbers) {
          await this.regions.createRegion(regionMetadataOf(info, n, options), regionDir(info, n));
          created.push(n);
        }
      }
      await this.catalog.createTable(info);
      return true;
    } catch (err) {
      for (const n of created) await this.regions.dropRegion(regionId(info.table_id, n)).catch(() => {});
      if (ifNotExists && err instanceof TsdbError && err.code === StatusCode.TableAlreadyExists) return false;
      throw err;
    }
  }

  async alterTable(before: TableInfo, after: TableInfo): Promise<void> {
    if (altersRegions(before, after)) {
      const options = await this.regionOptions(after);
      for (const [i, id] of tableRegionIds(after).entries()) await this.regions.alterRegion(id, regionMetadataOf(after, after.region_numbers[i]!, options));
    }
    await this.catalog.updateTable(before, after);
  }

  /** The options of a table's regions: the table's own with its database's dynamic ones. */
  private async regionOptions(info: TableInfo) {
    return regionOptionsOf(effectiveOptions(info.options, (await this.catalog.database(info.database))?.options));
  }

  async dropTable(info: TableInfo): Promise<void> {
    await this.catalog.dropTable(info);
    if (!ownsNoRegions(info)) for (const id of tableRegionIds(info)) await this.regions.dropRegion(id);
  }

  async truncateTable(info: TableInfo): Promise<void> {
    if (ownsNoRegions(info)) throw new TsdbError(StatusCode.Unexpected, `truncate of logical table ${info.name}: delete its rows`);
    for (const id of tableRegionIds(info)) await this.regions.truncateRegion(id);
  }

  createDatabase(name: string, options: Readonly<Record<string, string>>, ifNotExists: boolean): Promise<boolean> {
    return this.catalog.createDatabase(name, options, ifNotExists);
  }

  alterDatabase(name: string, set: Readonly<Record<string, string>>, unset: readonly string[]): Promise<void> {
    return this.catalog.alterDatabase(name, set, unset);
  }

  dropDatabase(name: string): Promise<void> {
    return this.catalog.dropDatabase(name);
  }

  createView(info: ViewInfo, replace: boolean): Promise<void> {
    return this.catalog.createView(info, replace);
  }

  dropView(info: ViewInfo): Promise<void> {
    return this.catalog.dropView(info.database, info.name);
  }
}
