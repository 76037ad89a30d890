/**
 * How the frontend reaches regions (STYLE.md "Dependency direction"): one interface, served
 * in-process by the region engine in standalone, over gRPC by datanodes in a cluster (later).
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { WriteBatch } from '../types/write-batch.js';
import type { RegionMetadata } from '../types/region-metadata.js';
import { formatRegionId, type RegionId } from '../types/region-id.js';
import type { RegionEngine } from '../engine/region-engine.js';
import { registerMemtableScan } from '../engine/read/memtable-scan-function.js';
import type { ScanRequest } from '../types/scan-request.js';

/** A scan as SQL text, valid until released. */
export interface ScanRelation {
  readonly sql: string;
  release(): void;
}

export interface RegionAccess {
  createRegion(metadata: RegionMetadata, dir: string): Promise<void>;
  /** Opens a region of `dir` on storage provider `storage` (the default one when undefined). */
  openRegion(id: RegionId, dir: string, storage?: string): Promise<void>;
  alterRegion(id: RegionId, metadata: RegionMetadata): Promise<void>;
  dropRegion(id: RegionId): Promise<void>;
  truncateRegion(id: RegionId): Promise<void>;
  write(id: RegionId, batch: WriteBatch): Promise<void>;
  flush(id: RegionId): Promise<void>;
  compact(id: RegionId): Promise<void>;
  /**
   * A consistent scan of region `id` (rows of the inclusive time range, of the primary key values
   * given, when given) as an SQL relation to run in a connection of `connect`; `release` once the
   * query that reads it is done. Files not in a file cache are downloaded first; `signal` stops
   * that wait.
   */
  scanRelation(id: RegionId, request?: ScanRequest, signal?: AbortSignal): Promise<ScanRelation>;
  /** A connection of the DuckDB that queries run in. */
  connect(): Promise<DuckDBConnection>;
  /** Rows held and bytes used per region (information_schema.region_statistics). */
  statistics(id: RegionId): { readonly memtable_rows: number; readonly memtable_bytes: number; readonly sst_files: number; readonly sst_bytes: number; readonly sst_rows: number };
}

/** Regions of the engine in this process (standalone). */
export class LocalRegionAccess implements RegionAccess {
  /**
   * Registers in a DuckDB (the query one, `query/query-duckdb.ts`) the functions the relations of
   * `scanRelation` name: the engine's memtable scan function.
   */
  static registerScanFunctions(conn: DuckDBConnection): void {
    registerMemtableScan(conn);
  }

  /**
   * `queries`: the DuckDB queries run in (`query/query-duckdb.ts`: its own memory budget and spill
   * directory); without it, the engine's (tests).
   */
  constructor(
    protected readonly engine: RegionEngine,
    private readonly queries?: DuckDBInstance,
  ) {}

  createRegion(metadata: RegionMetadata, dir: string): Promise<void> {
    return this.engine.createRegion(metadata, dir);
  }

  openRegion(id: RegionId, dir: string, storage?: string): Promise<void> {
    return this.engine.openRegion(id, dir, { ...(storage !== undefined && { storage }) });
  }

  alterRegion(id: RegionId, metadata: RegionMetadata): Promise<void> {
    return this.engine.alterRegion(id, metadata);
  }

  dropRegion(id: RegionId): Promise<void> {
    return this.engine.dropRegion(id);
  }

  truncateRegion(id: RegionId): Promise<void> {
    return this.engine.truncateRegion(id);
  }

  async write(id: RegionId, batch: WriteBatch): Promise<void> {
    await this.engine.write(id, batch);
  }

  async flush(id: RegionId): Promise<void> {
    await this.engine.flushRegion(id);
  }

  async compact(id: RegionId): Promise<void> {
    await this.engine.flushRegion(id);
    await this.engine.compactRegion(id);
  }

  async scanRelation(id: RegionId, request: ScanRequest = {}, signal?: AbortSignal): Promise<ScanRelation> {
    const scan = await this.engine.scan(id, request, signal);
    try {
      return { sql: scan.relation(), release: () => scan.release() };
    } catch (err) {
      scan.release();
      throw err;
    }
  }

  connect(): Promise<DuckDBConnection> {
    return (this.queries ?? this.engine.duckdb).connect();
  }

  statistics(id: RegionId): { memtable_rows: number; memtable_bytes: number; sst_files: number; sst_bytes: number; sst_rows: number } {
    const r = this.engine.region(id);
    const files = r.files();
    return {
      memtable_rows: r.memtableRows(),
      memtable_bytes: r.memtables().reduce((n, m) => n + m.stats().bytes, 0),
      sst_files: files.length,
      sst_bytes: files.reduce((n, f) => n + f.file_size, 0),
      sst_rows: files.reduce((n, f) => n + f.num_rows, 0),
    };
  }

  toString(): string {
    return `regions of this process (${this.engine.regionIds().map(formatRegionId).join(', ')})`;
  }
}
