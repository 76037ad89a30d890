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

/** One SST file of a region as its manifest records it (information_schema.ssts_manifest). */
export interface RegionSstEntry {
  readonly file_id: string;
  /** 0: written by a flush; 1: by a compaction. */
  readonly level: number;
  /** The file's object path in its storage provider. */
  readonly file_path: string;
  readonly file_size: number;
  /** The file's index, when it has one. */
  readonly index_file_path: string | null;
  readonly index_file_size: number | null;
  readonly num_rows: number;
  readonly num_row_groups: number;
  /** The file's smallest and largest time index value, in nanoseconds since the epoch (decimal text: an int64). */
  readonly min_ts: string;
  readonly max_ts: string;
  /** The largest sequence number of the file's rows. */
  readonly sequence: number;
}

/** An SST or index file found in a region's directory of its storage (information_schema.ssts_storage). */
export interface RegionStorageEntry {
  readonly file_path: string;
  readonly file_size: number;
}

/** One indexed column of an SST file's index (information_schema.ssts_index_meta). */
export interface RegionIndexEntry {
  readonly file_id: string;
  readonly index_file_path: string;
  readonly index_file_size: number;
  /** `inverted`: tsdb's only index kind. */
  readonly index_type: string;
  readonly column_id: number;
  /** The column's block: where it starts in the file, and its bytes. */
  readonly offset: number;
  readonly size: number;
  /** `string` or `integer`. */
  readonly value_kind: string;
  readonly distinct_values: number;
  readonly segment_row_count: number;
  readonly row_count: number;
}

/** The SST files of one region: those its manifest records, those its storage holds, and their indexes' columns. */
export interface RegionSsts {
  readonly manifest: readonly RegionSstEntry[];
  readonly storage: readonly RegionStorageEntry[];
  readonly index_meta: readonly RegionIndexEntry[];
}

/** What a region server knows of one open region (information_schema.region_info). */
export interface RegionInfo {
  /** GreptimeDB's region state and role: `Leader(Writable)` and `Leader` for a region serving writes. */
  readonly state: string;
  readonly role: string;
  readonly writable: boolean;
  /** The last sequence acknowledged to a writer. */
  readonly committed_sequence: number;
  /** Rows at or below it are in SST files; 0 before the first flush. */
  readonly flushed_sequence: number;
  readonly manifest_version: number;
  /** The TWCS window the region's compaction uses, in milliseconds, once one was chosen or set. */
  readonly compaction_time_window?: number;
  /** The region's options (`RegionOptions`) as JSON text. */
  readonly region_options: string;
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
  /** The SST files of region `id`: its manifest's and those in its directory of its storage. */
  ssts(id: RegionId): Promise<RegionSsts>;
  /** Region `id`'s state, sequences and options. */
  info(id: RegionId): Promise<RegionInfo>;
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
