/**
 * The region engine (DESIGN.md D5; drawing in src/engine/README.md): opens the WAL, hosts regions,
 * and routes requests to them. It knows nothing of SQL or protocols: regions are created from
 * metadata and written with columnar batches.
 */
import { mkdir, rm } from 'node:fs/promises';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { processHealth } from '../common/health/health-board.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { Logger } from '../common/logging.js';
import type { Millis } from '../common/time/duration.js';
import type { StorageProviders } from '../storage/storage-provider.js';
import { OP_DELETE, type WriteBatch } from '../types/write-batch.js';
import { BackgroundJobs } from './background-jobs.js';
import { sandboxDuckDb } from '../common/duckdb-sandbox.js';
import { WriteBufferManager } from './flush/write-buffer-manager.js';
import { compactionJob, flushJob } from './engine-spans.js';
import type { FileMeta } from './sst/file-meta.js';
import { DEFAULT_MEMTABLE_OPTIONS, type MemtableOptions } from './memtable/memtable.js';
import type { RegionScan } from './read/region-scan.js';
import type { ScanRequest } from '../types/scan-request.js';
import { registerMemtableScan } from './read/memtable-scan-function.js';
import { VectorCache } from './read/vector-cache.js';
import { LastRowCache } from './read/last-row-cache.js';
import { IndexCache } from './read/index-cache.js';
import { DEFAULT_INVERTED_INDEX_OPTIONS, type InvertedIndexOptions } from './sst/inverted-index-builder.js';
import type { RegionMetadata } from '../types/region-metadata.js';
import { formatRegionId, type RegionId } from '../types/region-id.js';
import { Region, type RegionContext, type WriteResult } from './region/region.js';
import { Wal } from './wal/wal.js';
import { RegionWorkers } from './worker/region-workers.js';
import { withStorageErrors } from './storage-error.js';
import { registerEngineMetrics } from './engine-metrics-source.js';
import { compactionElapsed, compactionFailureTotal, compactionInputFilesTotal, compactionOutputBytesTotal, compactionRequestsTotal, flushBytesTotal, flushElapsed, flushErrorsTotal, flushFilesTotal, flushRequestsTotal, writeRowsTotal } from '../common/metrics/engine-metrics.js';
import { secondsSince } from '../common/metrics/latency-buckets.js';

/** The health board's key for failing background flushes (common/health/). */
const FLUSH_HEALTH_KEY = 'flush';

/** A failed background flush is retried after 1 s, then twice as long each time, at most 1 min. */
const FLUSH_RETRY_MIN_MS = 1000;
const FLUSH_RETRY_MAX_MS = 60_000;

/** The `reason` label of tsdb_mito_flush_requests_total for the reasons flushes are scheduled with. */
const FLUSH_REASONS: Readonly<Record<string, string>> = { 'write buffer': 'write_buffer_full', auto_flush_interval: 'periodic' };

export interface RegionEngineOptions {
  readonly wal: {
    readonly dir: string;
    readonly fileSize: number;
    readonly syncWrite: boolean;
    readonly readBatchSize: number;
    readonly purgeInterval: Millis;
    readonly purgeThreshold: number;
  };
  readonly globalWriteBufferSize: number;
  readonly globalWriteBufferRejectSize: number;
  readonly manifestCheckpointDistance: number;
  /** `max_background_jobs`: flushes and compactions running at once. */
  readonly maxBackgroundJobs: number;
  /** `auto_flush_interval`: a region not flushed for this long is flushed; 0 = never. */
  readonly autoFlushInterval: Millis;
  /** `scan_parallelism` (resolved, ≥ 1): DuckDB threads. */
  readonly scanParallelism: number;
  /**
   * Bytes the engine's DuckDB may hold for flushes and compactions (its `memory_limit`; default
   * DuckDB's own, 80% of memory). Past it, sorts and merges spill to `spillDir`. Queries run in a
   * DuckDB of their own with its own budget (`query/query-duckdb.ts`).
   */
  readonly memoryLimit?: number;
  /** Where DuckDB spills (its `temp_directory`); created empty at open (only DuckDB's spill files live there). */
  readonly spillDir?: string;
  /**
   * `sst_meta_cache_size` / `page_cache_size` > 0: DuckDB keeps Parquet footers / file blocks of SST
   * files in memory (its `parquet_metadata_cache` / `enable_external_file_cache`, on/off switches
   * only: DuckDB 1.5 takes no byte budget for them). 0 turns them off. Default: on.
   */
  readonly sstMetaCache?: boolean;
  readonly pageCache?: boolean;
  /**
   * `vector_cache_size`: bytes of sorted, merged rows of memtables (frozen ones, and the mutable one
   * until its next write) kept for the scans and the flush that read them (default 512 MiB; 0 = off).
   */
  readonly vectorCacheSize?: number;
  /**
   * Bytes of SST files' last rows per series kept from their flush for last-row scans
   * (`read/last-row-cache.ts`; default 64 MiB, 0 = off).
   */
  readonly lastRowCacheSize?: number;
  /** `num_workers`: write loops, regions spread over them (default 8). */
  readonly numWorkers?: number;
  /** `[region_engine.mito.memtable]` (default: `time_series`). */
  readonly memtable?: MemtableOptions;
  /** `[region_engine.mito.inverted_index]` (default: built on flush and compaction, used by queries). */
  readonly invertedIndex?: InvertedIndexOptions;
  /** Check for due compactions after each flush (default true; tests turn it off to step by hand). */
  readonly compactAfterFlush?: boolean;
  /**
   * Where region directories live: the storage providers, a region on the one its `storage` option
   * names (the default one when unset). The engine does not close them.
   */
  readonly storage: StorageProviders;
  readonly logger: Logger;
}

export class RegionEngine {
  private readonly regions = new Map<RegionId, Region>();
  /** Regions being opened or created: a second request for the same region waits for the first. */
  private readonly pending = new Map<RegionId, Promise<Region>>();
  /** What every region's context shares (each adds its storage provider). */
  private readonly ctx: Omit<RegionContext, 'provider' | 'store'>;
  private purgeTimer: NodeJS.Timeout | undefined;
  private autoFlushTimer: NodeJS.Timeout | undefined;
  private readonly jobs: BackgroundJobs;
  /** Regions whose background flush failed: attempts so far, and the timer of the next one. */
  private readonly flushRetries = new Map<RegionId, { attempts: number; timer: NodeJS.Timeout | undefined }>();
  readonly workers: RegionWorkers;
  private closed = false;
  private readonly unregisterMetrics: () => void;

  private constructor(
    private readonly opts: RegionEngineOptions,
    private readonly wal: Wal,
    readonly writeBuffer: WriteBufferManager,
    /** The DuckDB that writes and reads SST files for flushes and compactions (in memory; sandboxed: `common/duckdb-sandbox.ts`). */
    readonly duckdb: DuckDBInstance,
  ) {
    this.jobs = new BackgroundJobs(opts.maxBackgroundJobs);
    this.workers = new RegionWorkers(opts.numWorkers ?? 8);
    this.ctx = {
      wal,
      writeBuffer,
      checkpointDistance: opts.manifestCheckpointDistance,
      memtable: opts.memtable ?? DEFAULT_MEMTABLE_OPTIONS,
      vectorCache: new VectorCache(opts.vectorCacheSize ?? 512 * 1024 * 1024),
      lastRows: new LastRowCache(opts.lastRowCacheSize ?? 64 * 1024 * 1024),
      invertedIndex: opts.invertedIndex ?? DEFAULT_INVERTED_INDEX_OPTIONS,
      indexCache: new IndexCache(),
      logger: opts.logger.child({ engine: 'mito' }),
    };
    this.unregisterMetrics = registerEngineMetrics({ regions: this.regions, wal, writeBuffer, vectorCache: this.ctx.vectorCache, ...(this.ctx.lastRows !== undefined && { lastRows: this.ctx.lastRows }), indexCache: this.ctx.indexCache, storage: opts.storage });
    if (opts.wal.purgeInterval > 0) {
      this.purgeTimer = setInterval(() => void this.purgeWal(), opts.wal.purgeInterval);
      this.purgeTimer.unref();
    }
    if (opts.autoFlushInterval > 0) {
      // Checked at least every minute (GreptimeDB checks every 60 s), at most at the interval.
      const every = Math.min(opts.autoFlushInterval, 60_000);
      this.autoFlushTimer = setInterval(() => this.flushStale(), every);
      this.autoFlushTimer.unref();
    }
  }

  static async open(opts: RegionEngineOptions): Promise<RegionEngine> {
    const wal = await Wal.open({
      dir: opts.wal.dir,
      fileSize: opts.wal.fileSize,
      syncWrite: opts.wal.syncWrite,
      readBatchSize: opts.wal.readBatchSize,
      logger: opts.logger,
    });
    const writeBuffer = new WriteBufferManager({
      bufferSize: opts.globalWriteBufferSize,
      rejectSize: opts.globalWriteBufferRejectSize,
    });
    let duckdb: DuckDBInstance;
    try {
      if (opts.spillDir !== undefined) {
        // DuckDB creates its temp_directory only when its parent exists and the sandbox allows it:
        // created here (emptied: only DuckDB's spill files live there).
        await rm(opts.spillDir, { recursive: true, force: true });
        await mkdir(opts.spillDir, { recursive: true });
      }
      duckdb = await DuckDBInstance.create(':memory:', {
        threads: String(opts.scanParallelism),
        ...(opts.memoryLimit !== undefined && { memory_limit: `${Math.max(1, Math.floor(opts.memoryLimit / 2 ** 20))}MiB` }),
        ...(opts.spillDir !== undefined && { temp_directory: opts.spillDir }),
      });
      const conn = await duckdb.connect();
      registerMemtableScan(conn);
      await conn.run(`SET GLOBAL parquet_metadata_cache = ${opts.sstMetaCache ?? true}`);
      await conn.run(`SET GLOBAL enable_external_file_cache = ${opts.pageCache ?? true}`);
      await sandboxDuckDb(conn, opts.storage.localDirs());
      conn.closeSync();
    } catch (err) {
      await wal.close();
      throw err;
    }
    return new RegionEngine(opts, wal, writeBuffer, duckdb);
  }

  private connect = (): Promise<DuckDBConnection> => this.duckdb.connect();

  /**
   * The directories a DuckDB that reads this engine's scans may read (File storage's root, the
   * file caches of object stores): a query DuckDB is sandboxed to them (`query/query-duckdb.ts`).
   */
  readableDirs(): string[] {
    return this.opts.storage.localDirs();
  }

  private checkOpen(): void {
    if (this.closed) throw new TsdbError(StatusCode.IllegalState, 'the region engine is closed');
  }

  /** The open region `id`; RegionNotFound when it is not open here. */
  region(id: RegionId): Region {
    const r = this.regions.get(id);
    if (r === undefined) throw new TsdbError(StatusCode.RegionNotFound, `Region ${formatRegionId(id)} not found`);
    return r;
  }

  regionIds(): RegionId[] {
    return [...this.regions.keys()];
  }

  private async claim(id: RegionId, make: () => Promise<Region>): Promise<Region> {
    this.checkOpen();
    if (this.regions.has(id)) throw new TsdbError(StatusCode.RegionAlreadyExists, `Region ${formatRegionId(id)} already exists`);
    const running = this.pending.get(id);
    if (running) {
      await running.catch(() => {});
      return this.claim(id, make);
    }
    const p = make();
    this.pending.set(id, p);
    try {
      const region = await p;
      this.regions.set(id, region);
      return region;
    } finally {
      this.pending.delete(id);
    }
  }

  /** The context of a region stored on provider `storage` (the default one when undefined). */
  private contextOn(storage: string | undefined): RegionContext {
    const provider = this.opts.storage.get(storage);
    return { ...this.ctx, provider, store: provider.store };
  }

  /**
   * Creates a region in `dir` (a directory of its storage provider, ending with `/`): the
   * provider its `storage` option names, else the default one.
   */
  async createRegion(metadata: RegionMetadata, dir: string): Promise<void> {
    const ctx = this.contextOn(metadata.options.storage);
    await this.claim(BigInt(metadata.region_id), () => withStorageErrors(() => Region.create(ctx, metadata, dir)));
  }

  /**
   * Opens an existing region: its manifest (on provider `opts.storage`, the default one when
   * unset: the region's `storage` option), then a replay of its WAL records.
   */
  async openRegion(id: RegionId, dir: string, opts: { readonly storage?: string } = {}): Promise<void> {
    const ctx = this.contextOn(opts.storage);
    await this.claim(id, () => withStorageErrors(() => Region.open(ctx, id, dir)));
  }

  /** Writes a batch; resolves when it is durable in the WAL and visible in the memtable. */
  async write(id: RegionId, batch: WriteBatch): Promise<WriteResult> {
    const result = await this.workers.write(this.region(id), batch);
    writeRowsTotal.inc({ type: batch.op === OP_DELETE ? 'delete' : 'put' }, batch.rowCount);
    if (this.writeBuffer.shouldFlush()) for (const r of this.writeBuffer.regionsToFlush()) this.scheduleFlush(r, 'write buffer');
    return result;
  }

  /** Flushes the region now (ADMIN FLUSH_TABLE); resolves with the files written. */
  flushRegion(id: RegionId, reason = 'manual'): Promise<FileMeta[]> {
    const region = this.region(id);
    flushRequestsTotal.inc({ reason });
    const started = process.hrtime.bigint();
    return this.jobs.run(flushJob(id, () => withStorageErrors(() => region.flush(this.connect))), `flush ${id}`).then((files) => {
      flushElapsed.observe({ type: 'total' }, secondsSince(started));
      flushFilesTotal.inc(files.length);
      flushBytesTotal.inc(files.reduce((n, f) => n + f.file_size + (f.index_file_size ?? 0), 0));
      this.flushSucceeded(id);
      // A flush adds a file: its time window may be due for a compaction.
      if (files.length > 0 && this.opts.compactAfterFlush !== false) {
        this.compactRegion(id).catch((err: unknown) => this.ctx.logger.error({ err, region: formatRegionId(id) }, 'background compaction failed'));
      }
      return files;
    }, (err: unknown) => {
      flushErrorsTotal.inc();
      throw err;
    });
  }

  /** Compacts the region now (ADMIN COMPACT_TABLE). */
  compactRegion(id: RegionId): Promise<{ removed: number; added: number }> {
    const region = this.region(id);
    compactionRequestsTotal.inc();
    return this.jobs.run(compactionJob(id, () => region.files(), async () => {
      const started = process.hrtime.bigint();
      const before = new Set(region.files().map((f) => f.file_id));
      try {
        const result = await withStorageErrors(() => region.compact(this.connect));
        compactionElapsed.observe(secondsSince(started));
        compactionInputFilesTotal.inc(result.removed);
        let bytes = 0;
        for (const f of region.files()) if (!before.has(f.file_id)) bytes += f.file_size + (f.index_file_size ?? 0);
        compactionOutputBytesTotal.inc(bytes);
        return result;
      } catch (err) {
        compactionFailureTotal.inc();
        throw err;
      }
    }), `compact ${id}`);
  }

  /**
   * Starts a flush in the background. A failure is logged and retried with backoff (1 s doubling
   * to 1 min) until a flush succeeds; meanwhile the rows stay in the memtable and the WAL, writes
   * go on until the write buffer's reject size, and flushes that writes would start wait for the
   * retry (each attempt rewrites the memtable's file).
   */
  private scheduleFlush(id: RegionId, reason: string, retry = false): void {
    if (!this.regions.has(id) || this.closed) return;
    if (!retry && this.flushRetries.get(id)?.timer !== undefined) return;
    this.flushRegion(id, retry ? 'retry' : FLUSH_REASONS[reason] ?? 'other').catch((err: unknown) => this.flushFailed(id, reason, err));
  }

  private flushFailed(id: RegionId, reason: string, err: unknown): void {
    const message = (err as Error).message;
    const name = formatRegionId(id);
    processHealth.set(`${FLUSH_HEALTH_KEY}:${name}`, 'flush', `background flushes of region ${name} fail (${message}); the rows stay in memory and in the WAL until a flush succeeds`);
    this.writeBuffer.setFlushFailure(id, message);
    const state = this.flushRetries.get(id) ?? { attempts: 0, timer: undefined };
    state.attempts++;
    this.flushRetries.set(id, state);
    const delay = Math.min(FLUSH_RETRY_MAX_MS, FLUSH_RETRY_MIN_MS * 2 ** Math.min(state.attempts - 1, 16));
    if (state.timer === undefined && this.regions.has(id) && !this.closed) {
      state.timer = setTimeout(() => {
        state.timer = undefined;
        this.scheduleFlush(id, 'retry of a failed flush', true);
      }, delay);
      state.timer.unref();
    }
    this.ctx.logger.error({ err, region: name, reason, attempts: state.attempts, retry_in_ms: delay }, 'background flush failed; it will be retried');
  }

  private flushSucceeded(id: RegionId): void {
    processHealth.clear(`${FLUSH_HEALTH_KEY}:${formatRegionId(id)}`);
    this.writeBuffer.setFlushFailure(id, undefined);
    const state = this.flushRetries.get(id);
    if (state === undefined) return;
    if (state.timer !== undefined) clearTimeout(state.timer);
    this.flushRetries.delete(id);
    if (state.attempts > 0) this.ctx.logger.info({ region: formatRegionId(id), failed_attempts: state.attempts }, 'flush succeeded after failures');
  }

  private forgetFlushRetry(id: RegionId): void {
    const state = this.flushRetries.get(id);
    if (state?.timer !== undefined) clearTimeout(state.timer);
    this.flushRetries.delete(id);
    this.writeBuffer.setFlushFailure(id, undefined);
  }

  /** Flushes regions with rows not flushed for `auto_flush_interval`. */
  private flushStale(): void {
    const now = Date.now();
    for (const [id, r] of this.regions) {
      if (r.memtableRows() > 0 && now - r.lastFlushMs >= this.opts.autoFlushInterval) this.scheduleFlush(id, 'auto_flush_interval');
    }
  }

  /** Resolves when no flush or compaction runs or waits. */
  idle(): Promise<void> {
    return this.jobs.idle();
  }

  async alterRegion(id: RegionId, metadata: RegionMetadata): Promise<void> {
    const region = this.region(id);
    await withStorageErrors(() => region.alter(metadata));
  }

  async truncateRegion(id: RegionId): Promise<void> {
    const region = this.region(id);
    await withStorageErrors(() => region.truncate());
    await region.purgeRemovedFiles();
  }

  /**
   * A snapshot of the region for reading (files overlapping the inclusive time range, memtable
   * rows now, the files' local copies pinned: downloaded first on a cache miss); attach it to a
   * DuckDB connection, then release it. `signal` stops the wait for downloads.
   */
  scan(id: RegionId, opts: ScanRequest = {}, signal?: AbortSignal): Promise<RegionScan> {
    return withStorageErrors(() => this.region(id).scan(opts, signal));
  }

  async closeRegion(id: RegionId): Promise<void> {
    const r = this.regions.get(id);
    if (r === undefined) return;
    this.regions.delete(id);
    processHealth.clear(`${FLUSH_HEALTH_KEY}:${formatRegionId(id)}`);
    this.forgetFlushRetry(id);
    await r.close();
  }

  async dropRegion(id: RegionId): Promise<void> {
    const r = this.region(id);
    await withStorageErrors(() => r.drop());
    this.regions.delete(id);
    processHealth.clear(`${FLUSH_HEALTH_KEY}:${formatRegionId(id)}`);
    this.forgetFlushRetry(id);
  }

  /** Deletes WAL segments every region has flushed (every `wal.purge_interval`). */
  async purgeWal(): Promise<void> {
    try {
      await this.wal.purge();
      if (this.wal.totalSize() > this.opts.wal.purgeThreshold) {
        // Flushing the regions that pin the oldest segment lets the next purge shrink the WAL.
        const pinning = this.wal.regionsPinningOldest();
        this.ctx.logger.info({ wal_bytes: this.wal.totalSize(), regions: pinning.map(formatRegionId) }, 'the WAL is above wal.purge_threshold: flushing the regions that hold it');
        await Promise.all(pinning.filter((r) => this.regions.has(r)).map((r) => this.flushRegion(r, 'wal_purge')));
        await this.wal.purge();
      }
    } catch (err) {
      this.ctx.logger.error({ err }, 'WAL purge failed');
    }
  }

  /** The vector cache's use: bytes, entries, hits and misses. */
  vectorCacheStats(): ReturnType<VectorCache['stats']> {
    return this.ctx.vectorCache.stats();
  }

  walStats(): { readonly bytes: number; readonly segments: number } {
    return { bytes: this.wal.totalSize(), segments: this.wal.segmentCount() };
  }

  /** Closes every region and the WAL. Unflushed rows stay in the WAL for the next open. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    if (this.autoFlushTimer) clearInterval(this.autoFlushTimer);
    this.unregisterMetrics();
    for (const state of this.flushRetries.values()) if (state.timer !== undefined) clearTimeout(state.timer);
    await Promise.all([...this.pending.values()].map((p) => p.catch(() => {})));
    await this.jobs.idle();
    for (const id of [...this.regions.keys()]) await this.closeRegion(id);
    await this.wal.close();
    this.duckdb.closeSync();
  }
}
