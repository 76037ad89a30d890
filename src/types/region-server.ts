/**
 * The seam between the frontend and the regions (DESIGN.md D13, GreptimeDB's `RegionServer`): what
 * a frontend asks of the regions it does not hold itself. Served in process by the region engine
 * (`datanode/local-region-server.ts`, standalone and datanode) and over gRPC by a datanode
 * (`servers/grpc/region-service.ts`), whose client (`servers/grpc/region-client.ts`) is a region
 * server as well. Every request is asynchronous and may cross a network: nothing here hands out
 * in-memory state of the engine.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import type { RegionId } from './region-id.js';
import type { RegionMetadata } from './region-metadata.js';
import type { ScanRequest } from './scan-request.js';
import type { WriteBatch } from './write-batch.js';

/** Rows held and bytes used by one region (information_schema.region_statistics). */
export interface RegionStatistics {
  readonly memtable_rows: number;
  readonly memtable_bytes: number;
  readonly sst_files: number;
  readonly sst_bytes: number;
  readonly sst_rows: number;
}

/** The name a fragment's SQL reads the region's rows by. */
export const REGION_RELATION = 'region';

/**
 * What a region query runs against one region: the rows of `scan` (applied exactly: only rows of
 * the time range whose primary key columns hold the values given), then `sql`.
 */
export interface RegionQuery {
  /** Time range and primary key values; undefined: every row. */
  readonly scan?: ScanRequest;
  /**
   * The fragment, one DuckDB SELECT over the relation `region` (`REGION_RELATION`) with the region's
   * columns by name: projection, filters, optionally a partial aggregation, sort and limit
   * (`SELECT host, ts, usage FROM region WHERE usage > 90`), or a frontend's whole query of a table
   * whose rows are all in this region (it may have a WITH of its own and call tsdb's functions,
   * `query/session-functions.ts`). Its answer keeps its order. Undefined: `SELECT * FROM region`.
   */
  readonly sql?: string;
}

/**
 * A region query's answer: its schema, then its record batches. Reading stops the query when the
 * reader returns early (`return()`) or the query's signal aborts; a failure of the region server
 * mid-stream rejects the next read.
 */
export interface RegionQueryStream {
  readonly schema: Schema;
  readonly batches: AsyncIterableIterator<RecordBatch>;
}

/** A scan as SQL text for the frontend's own DuckDB (the in-process path), valid until released. */
export interface ScanRelation {
  readonly sql: string;
  release(): void;
}

export interface RegionServer {
  /** Creates region `metadata.region_id` with its files under `dir` (of its storage provider). */
  createRegion(metadata: RegionMetadata, dir: string): Promise<void>;
  /** Opens region `id` from `dir` of storage provider `storage` (the default one when undefined). */
  openRegion(id: RegionId, dir: string, storage?: string): Promise<void>;
  /** Closes region `id` (its data stays; a later open finds it). */
  closeRegion(id: RegionId): Promise<void>;
  alterRegion(id: RegionId, metadata: RegionMetadata): Promise<void>;
  /** Drops region `id` and its data. */
  dropRegion(id: RegionId): Promise<void>;
  /** Removes every row of region `id`. */
  truncateRegion(id: RegionId): Promise<void>;
  flushRegion(id: RegionId): Promise<void>;
  /** Flushes, then compacts region `id`. */
  compactRegion(id: RegionId): Promise<void>;
  /** Writes the rows of `batch` (puts or deletes, `batch.op`); acknowledged once durable. Returns the rows written. */
  write(id: RegionId, batch: WriteBatch): Promise<number>;
  statistics(id: RegionId): Promise<RegionStatistics>;
  /**
   * Runs `query` against region `id`; `signal` cancels it (the region server stops its scan).
   * Files not in a file cache are downloaded first.
   */
  query(id: RegionId, query: RegionQuery, signal?: AbortSignal): Promise<RegionQueryStream>;
  /**
   * The in-process path (standalone): region `id`'s rows of `scan` as SQL for the frontend's
   * DuckDB, whose functions the component registered. Present only on a region server in the
   * frontend's own process; a scan read this way is not copied.
   */
  readonly scanRelation?: (id: RegionId, scan: ScanRequest, signal?: AbortSignal) => Promise<ScanRelation>;
}
