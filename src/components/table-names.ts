/**
 * How `tsdb_table_series` (common/metrics/table-series.ts) names tables: by their ids in the
 * catalog — the local one of a standalone, the metasrv's for a datanode (a remote read per table
 * not seen in the last minute, for the top tables of a scrape only).
 */
import type { CatalogManager } from '../catalog/catalog-manager.js';
import { setTableNameResolver, type TableName } from '../common/metrics/table-series.js';

/** Names tables from `catalog`; returns the function that stops (at the component's stop). */
export function nameTablesFrom(catalog: CatalogManager): () => void {
  return setTableNameResolver(async (ids) => {
    const out = new Map<number, TableName>();
    for (const id of ids) {
      const info = await catalog.tableById(id);
      if (info !== undefined) out.set(id, { db: info.database, table: info.name });
    }
    return out;
  });
}
