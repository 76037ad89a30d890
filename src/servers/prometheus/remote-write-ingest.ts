/**
 * Writing a decoded Prometheus remote write into the frontend: one ingest per (database, physical
 * table), all checked before any writes. Shared by `POST /v1/prometheus/write` and the in-process
 * export of tsdb's own metrics (`[export_metrics] self_import`), so that both make the same tables.
 */
import type { UserInfo } from '../../frontend/auth/user-provider.js';
import type { IngestTable } from '../../frontend/ingest-request.js';
import type { IngestHandler } from '../handlers.js';
import type { RemoteWriteGroup } from './remote-write.js';

/** The physical table remote write creates logical tables on. */
export const DEFAULT_PHYSICAL_TABLE = 'tsdb_physical_table';

export interface RemoteWriteTarget {
  /** The database of series whose labels name none. */
  readonly database: string;
  readonly user: UserInfo;
  /** The physical table of series whose labels name none (default `tsdb_physical_table`). */
  readonly physicalTable?: string;
  /** `prom_store.with_metric_engine`: logical tables of the metric engine, else plain tables. */
  readonly withMetricEngine: boolean;
  /** How a database named by a label is read (`tsdb-public` → `public`); default: as given. */
  readonly databaseOf?: (name: string) => string;
}

/** The time index, then the value, then the labels: the column order of tables remote write creates. */
function promOrder(t: IngestTable): IngestTable {
  const rank = (semantic: string) => (semantic === 'timestamp' ? 0 : semantic === 'field' ? 1 : 2);
  return { ...t, columns: [...t.columns].sort((a, b) => rank(a.semantic) - rank(b.semantic)) };
}

/** What one (database, physical table) ingest of a remote write wrote. */
export interface RemoteWriteBatch {
  readonly database: string;
  readonly physical: string;
  readonly tables: IngestTable[];
}

/** Writes the groups; a refused part (checked first) writes nothing. Returns the batches written. */
export async function ingestRemoteWrite(ingest: IngestHandler, groups: readonly RemoteWriteGroup[], target: RemoteWriteTarget): Promise<RemoteWriteBatch[]> {
  const batches = new Map<string, RemoteWriteBatch>();
  for (const g of groups) {
    const db = g.database !== undefined ? (target.databaseOf?.(g.database) ?? g.database) : target.database;
    const physical = g.physicalTable ?? target.physicalTable ?? DEFAULT_PHYSICAL_TABLE;
    const key = `${db}\u0000${physical}`;
    if (!batches.has(key)) batches.set(key, { database: db, physical, tables: [] });
    batches.get(key)!.tables.push(promOrder(g.table));
  }
  const ingestOptions = (b: { physical: string }) => ({ columnOrder: 'as_given' as const, ...(target.withMetricEngine && { physicalTable: b.physical }) });
  if (batches.size > 1) {
    for (const b of batches.values()) await ingest.ingest(b.tables, { database: b.database, timezone: 'UTC', user: target.user }, { ...ingestOptions(b), checkOnly: true });
  }
  for (const b of batches.values()) await ingest.ingest(b.tables, { database: b.database, timezone: 'UTC', user: target.user }, ingestOptions(b));
  return [...batches.values()];
}
