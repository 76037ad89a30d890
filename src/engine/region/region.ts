/**
 * One region: its metadata and manifest, its memtables, and its write path — sequence numbers,
 * the WAL (the acknowledgement point), the memtable. Opening a region replays the WAL after the
 * sequence its SST files already hold.
 */
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import { formatSize } from '../../common/size/size.js';
import type { ObjectEntry, ObjectStore } from '../../storage/object-store.js';
import type { LocalFile, StorageProvider } from '../../storage/storage-provider.js';
import { decodeBatch, encodeBatch } from '../batch/batch-codec.js';
import type { Vector, WriteBatch } from '../../types/write-batch.js';
import type { WriteBufferManager } from '../flush/write-buffer-manager.js';
import { changeAction, editAction, purgeAction, removeAction, truncateAction } from '../manifest/action.js';
import { RegionScan } from '../read/region-scan.js';
import type { ScanRequest } from '../../types/scan-request.js';
import { compactFiles } from '../compaction/compact-files.js';
import { expiredFiles, pickCompactions } from '../compaction/twcs.js';
import { ManifestManager } from '../manifest/manifest-manager.js';
import type { VectorCache } from '../read/vector-cache.js';
import { lastRowsOf, MAX_SERIES, type LastRowCache } from '../read/last-row-cache.js';
import { createMemtable } from '../memtable/create-memtable.js';
import type { Memtable, MemtableOptions, ReadMode } from '../memtable/memtable.js';
import { INDEX_SUFFIX, indexPath, sstPath, type FileMeta } from '../sst/file-meta.js';
import type { IndexCache } from '../read/index-cache.js';
import { buildInvertedIndex, invertedIndexColumns, type InvertedIndexOptions } from '../sst/inverted-index-builder.js';
import { DEFAULT_SEGMENT_ROW_COUNT, InvertedIndex } from '../sst/inverted-index.js';
import { writeSst } from '../sst/sst-writer.js';
import { validateAlter, validateMetadata } from './validate-metadata.js';
import type { Wal } from '../wal/wal.js';
import type { RegionMetadata, TimestampType } from '../../types/region-metadata.js';
import { fromMillis, widenRange } from '../../types/time-unit.js';
import { formatRegionId, type RegionId } from '../../types/region-id.js';
import { validateBatch } from './validate-batch.js';
import { writeRejectTotal, writeStallTotal } from '../../common/metrics/engine-metrics.js';

/** WAL record type of a write batch (put or delete). */
export const RECORD_WRITE = 1;

export interface RegionContext {
  readonly wal: Wal;
  readonly writeBuffer: WriteBufferManager;
  /** The storage provider holding the region's directory: SST files go through it (its file cache). */
  readonly provider: StorageProvider;
  /** `provider.store`: the manifest is read and written there directly. */
  readonly store: ObjectStore;
  /** `region_engine.mito.manifest_checkpoint_distance` */
  readonly checkpointDistance: number;
  /** `vector_cache_size`: read-out runs of memtables. */
  readonly vectorCache: VectorCache;
  /** SST files' last rows per series, from their flush (last-row scans). */
  readonly lastRows?: LastRowCache;
  /** `[region_engine.mito.memtable]`: the kind of memtable and its options. */
  readonly memtable: MemtableOptions;
  /** `[region_engine.mito.inverted_index]` */
  readonly invertedIndex: InvertedIndexOptions;
  /** Decoded inverted indexes of SST files (shared by the engine's regions). */
  readonly indexCache: IndexCache;
  readonly logger: Logger;
}

/** The sequences a write's rows took (first > last: no rows). */
export interface WriteResult {
  readonly first: number;
  readonly last: number;
}

/** Rows `from…` of a batch (replay skips the rows a flush already holds). */
export function sliceBatch(batch: WriteBatch, from: number): WriteBatch {
  if (from <= 0) return batch;
  const columns = new Map<number, Vector>();
  for (const [id, v] of batch.columns) {
    const data = v.data.slice(from);
    const valid = 'valid' in v && v.valid !== undefined ? v.valid.slice(from) : undefined;
    columns.set(id, { ...v, data, ...(valid && { valid }) } as Vector);
  }
  return { op: batch.op, rowCount: Math.max(0, batch.rowCount - from), columns };
}

type RegionState = 'open' | 'closed' | 'dropped';

export class Region {
  private mutable: Memtable;
  /** Frozen memtables waiting for a flush, oldest first. */
  private readonly immutables: Memtable[] = [];
  /** Next sequence to hand out; every sequence below it has been handed out. */
  private nextSequence: number;
  /** The last sequence acknowledged to a writer. */
  private committed: number;
  /** Writes that have sequences but are not in the memtable yet. */
  private inflight = 0;
  /** The write call running now (writes to a region are applied one call at a time). */
  private writing: Promise<void> = Promise.resolve();
  private drained: Array<() => void> = [];
  /** While set, new writes wait: the memtable is being swapped or the region changed. */
  private gate: Promise<void> | undefined;
  private state: RegionState = 'open';
  private readonly log: Logger;
  /**
   * Flushes, alters, truncates, drops and closes of the region run one after another, in call
   * order (writes do not wait for them, only for the moments they swap memtables).
   */
  private serial: Promise<unknown> = Promise.resolve();
  /** When the region last flushed (or opened): `auto_flush_interval` counts from it. */
  lastFlushMs = Date.now();
  /** Series of the memtable flushed last (0 before any flush since the region opened). */
  private flushedSeries = 0;
  private flushedByTable: ReadonlyMap<number, number> | undefined;
  /** Scans using each SST file: a removed file is deleted only once none does. */
  private readonly fileRefs = new Map<string, number>();

  private constructor(
    private readonly ctx: RegionContext,
    readonly id: RegionId,
    /** The region directory in the object store, ending with `/`. */
    readonly dir: string,
    private readonly manifest: ManifestManager,
    committed: number,
  ) {
    this.mutable = createMemtable(manifest.state.metadata, ctx.memtable);
    this.nextSequence = committed + 1;
    this.committed = committed;
    this.log = ctx.logger.child({ region: formatRegionId(id) });
  }

  get metadata(): RegionMetadata {
    return this.manifest.state.metadata;
  }

  /** The last sequence acknowledged to a writer (with all before it). */
  get committedSequence(): number {
    return this.committed;
  }

  get flushedSequence(): number {
    return this.manifest.state.flushed_sequence;
  }

  private static manifestDir(dir: string): string {
    return `${dir}manifest/`;
  }

  static async create(ctx: RegionContext, metadata: RegionMetadata, dir: string): Promise<Region> {
    validateMetadata(metadata);
    const id = BigInt(metadata.region_id);
    const manifest = await ManifestManager.create(ctx.store, Region.manifestDir(dir), metadata, {
      checkpointDistance: ctx.checkpointDistance,
      logger: ctx.logger,
    });
    ctx.wal.markFlushed(id, 0);
    return new Region(ctx, id, dir, manifest, 0);
  }

  /** Opens an existing region: its manifest, then the WAL after its flushed sequence. */
  static async open(ctx: RegionContext, id: RegionId, dir: string): Promise<Region> {
    const manifest = await ManifestManager.open(ctx.store, Region.manifestDir(dir), {
      checkpointDistance: ctx.checkpointDistance,
      logger: ctx.logger,
    });
    if (manifest === undefined || manifest.state.removed) {
      await manifest?.close();
      throw new TsdbError(StatusCode.RegionNotFound, `Region ${formatRegionId(id)} not found in ${dir} of ${ctx.store.description}`);
    }
    const st = manifest.state;
    if (st.metadata.region_id !== String(id)) {
      await manifest.close();
      throw new TsdbError(StatusCode.IllegalState, `the manifest in ${dir} belongs to region ${st.metadata.region_id}, not ${id}`);
    }
    const durable = Math.max(st.flushed_sequence, st.truncated_sequence);
    const region = new Region(ctx, id, dir, manifest, Math.max(st.committed_sequence, durable));
    let replayed = 0;
    for await (const records of ctx.wal.replay(new Map([[id, durable]]))) {
      for (const rec of records) {
        if (rec.type !== RECORD_WRITE) throw new TsdbError(StatusCode.IllegalState, `unknown WAL record type ${rec.type} for region ${formatRegionId(id)}`);
        const batch = sliceBatch(decodeBatch(rec.payload), durable - rec.sequence + 1);
        region.mutable.write(batch, Math.max(rec.sequence, durable + 1));
        region.nextSequence = Math.max(region.nextSequence, rec.sequence + rec.count);
        region.committed = region.nextSequence - 1;
        replayed += batch.rowCount;
      }
    }
    ctx.wal.markFlushed(id, durable);
    ctx.writeBuffer.setMutable(id, region.mutable.stats().bytes);
    await region.removeOrphanFiles();
    await region.purgeRemovedFiles();
    region.log.info({ rows: replayed, committed_sequence: region.committedSequence, files: Object.keys(st.files).length }, 'region opened');
    return region;
  }

  /**
   * Deletes SST files of the region directory that the manifest does not know: outputs of a flush
   * or compaction cut short before its manifest edit (their rows are still in the WAL or in the
   * compaction's inputs).
   */
  private async removeOrphanFiles(): Promise<void> {
    const st = this.manifest.state;
    const known = new Set([...Object.keys(st.files), ...st.removed_files.map((r) => r.file_id)]);
    const orphans = (await this.ctx.store.list(this.dir)).filter((e) => {
      const name = e.path.slice(this.dir.length);
      if (name.includes('/')) return false;
      // An index is an orphan when its SST is unknown too (or the manifest says it has none).
      const suffix = name.endsWith('.parquet') ? '.parquet' : name.endsWith(INDEX_SUFFIX) ? INDEX_SUFFIX : undefined;
      if (suffix === undefined) return false;
      const id = name.slice(0, -suffix.length);
      return !known.has(id) || (suffix === INDEX_SUFFIX && st.files[id] !== undefined && st.files[id].index_file_size === undefined);
    });
    for (const o of orphans) await this.ctx.provider.delete(o.path);
    if (orphans.length > 0) this.log.warn({ files: orphans.map((o) => o.path) }, 'removed SST and index files the manifest does not record (a flush or compaction cut short)');
  }

  /** The manifest's sequences, version and persisted compaction window (information_schema.region_info). */
  manifestInfo(): { flushed_sequence: number; manifest_version: number; compaction_time_window?: number } {
    const st = this.manifest.state;
    return { flushed_sequence: st.flushed_sequence, manifest_version: st.manifest_version, ...(st.compaction_time_window !== undefined && { compaction_time_window: st.compaction_time_window }) };
  }

  /**
   * The indexed columns of each SST file with an index (information_schema.ssts_index_meta): the
   * file's index layout and each column's block. An index that cannot be read is left out.
   */
  async indexBlocks(): Promise<Array<{ file: FileMeta; segment_row_count: number; row_count: number; columns: ReturnType<InvertedIndex['columnBlocks']> }>> {
    this.checkOpen();
    const files = this.files().filter((f) => f.index_file_size !== undefined);
    const indexes = await this.openIndexes(files);
    return files.flatMap((file, i) => {
      const index = indexes[i];
      return index === undefined ? [] : [{ file, segment_row_count: index.layout.segmentRowCount, row_count: index.layout.rowCount, columns: index.columnBlocks() }];
    });
  }

  /** The SST and index files in the region's directory of its storage, whether the manifest records them or not. */
  async storedFiles(): Promise<ObjectEntry[]> {
    this.checkOpen();
    return (await this.ctx.store.list(this.dir)).filter((e) => {
      const name = e.path.slice(this.dir.length);
      return !name.includes('/') && (name.endsWith('.parquet') || name.endsWith(INDEX_SUFFIX));
    });
  }

  private checkOpen(): void {
    if (this.state !== 'open') {
      throw new TsdbError(StatusCode.RegionNotFound, `Region ${formatRegionId(this.id)} is ${this.state}`);
    }
  }

  /**
   * Writes a batch (puts or deletes); resolves once it is in the WAL (synced with `sync_write`) and
   * the memtable, with the sequences its rows took.
   */
  async write(batch: WriteBatch): Promise<WriteResult> {
    const [result] = await this.writeMany([batch]);
    if (result instanceof Error) throw result;
    return result!;
  }

  /**
   * Writes batches in order with one WAL append (a region worker's queued requests): each result
   * is the sequences its rows took, or the error that refused it alone (a bad batch, a full write
   * buffer). A WAL failure fails every batch of the call, and none reaches the memtable.
   */
  writeMany(batches: readonly WriteBatch[]): Promise<Array<WriteResult | Error>> {
    // One call at a time: a failed WAL append can then give its sequences back.
    const run = this.writing.then(() => this.writeManyNow(batches));
    this.writing = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  private async writeManyNow(batches: readonly WriteBatch[]): Promise<Array<WriteResult | Error>> {
    if (this.gate) writeStallTotal.inc(batches.length);
    while (this.gate) await this.gate;
    this.checkOpen();
    const results: Array<WriteResult | Error> = [];
    const accepted: Array<{ batch: WriteBatch; first: number }> = [];
    const wb = this.ctx.writeBuffer;
    for (const batch of batches) {
      try {
        validateBatch(this.metadata, batch);
        if (batch.rowCount > 0 && wb.shouldReject()) {
          writeRejectTotal.inc();
          const failing = wb.flushFailure();
          throw new TsdbError(
            StatusCode.StorageUnavailable,
            `write buffer full: memtables hold ${formatSize(wb.totalBytes())}, at or above global_write_buffer_reject_size (${formatSize(wb.opts.rejectSize)}); retry once flushes free memory${failing === undefined ? '' : ` (flushes are failing and being retried: ${failing})`}`,
          );
        }
      } catch (err) {
        results.push(err as Error);
        continue;
      }
      const first = this.nextSequence;
      this.nextSequence += batch.rowCount;
      results.push({ first, last: first + batch.rowCount - 1 });
      if (batch.rowCount > 0) accepted.push({ batch, first });
    }
    if (accepted.length === 0) return results;
    this.inflight++;
    try {
      await this.ctx.wal.append(accepted.map(({ batch, first }) => ({ regionId: this.id, sequence: first, count: batch.rowCount, type: RECORD_WRITE, payload: encodeBatch(batch) })));
      for (const { batch, first } of accepted) this.mutable.write(batch, first);
      // WAL appends resolve in order, so writes land here in sequence order.
      const last = accepted.at(-1)!;
      this.committed = last.first + last.batch.rowCount - 1;
      wb.setMutable(this.id, this.mutable.stats().bytes);
    } catch (err) {
      // Nothing reached the memtable; the sequences are taken again by the next write, so the
      // WAL holds no gap.
      this.nextSequence = accepted[0]!.first;
      return results.map((r) => (r instanceof Error ? r : (err as Error)));
    } finally {
      this.inflight--;
      if (this.inflight === 0) for (const resolve of this.drained.splice(0)) resolve();
    }
    return results;
  }

  /** Runs `fn` with writes held back and every write in flight finished. */
  private async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.gate) await this.gate;
    let open!: () => void;
    this.gate = new Promise((resolve) => (open = resolve));
    try {
      if (this.inflight > 0) await new Promise<void>((resolve) => this.drained.push(resolve));
      return await fn();
    } finally {
      this.gate = undefined;
      open();
    }
  }

  /** Freezes the mutable memtable (if it holds rows) for a flush; returns it. */
  freezeMutable(): Promise<Memtable | undefined> {
    return this.exclusive(async () => this.freezeNow());
  }

  private freezeNow(): Memtable | undefined {
    if (this.mutable.isEmpty()) return undefined;
    const frozen = this.mutable;
    frozen.freeze();
    this.immutables.push(frozen);
    this.ctx.writeBuffer.freeze(this.id);
    this.mutable = createMemtable(this.metadata, this.ctx.memtable, frozen);
    return frozen;
  }

  /**
   * Changes the schema (columns added or dropped, options). Rows already in memtables keep the
   * schema they were written with: the mutable memtable is frozen, and files are not rewritten.
   */
  alter(metadata: RegionMetadata): Promise<void> {
    return this.serialized(() => this.exclusive(async () => {
      this.checkOpen();
      if (metadata.region_id !== String(this.id)) throw new TsdbError(StatusCode.InvalidArguments, `alter of region ${this.id} with the metadata of ${metadata.region_id}`);
      if (metadata.schema_version <= this.metadata.schema_version) {
        throw new TsdbError(StatusCode.InvalidArguments, `alter of region ${formatRegionId(this.id)} needs a schema version above ${this.metadata.schema_version}`);
      }
      validateAlter(this.metadata, metadata);
      this.freezeNow();
      await this.manifest.update([changeAction(metadata)]);
      this.mutable = createMemtable(metadata, this.ctx.memtable, this.immutables.at(-1));
    }));
  }

  /** Removes every row: memtables are dropped, files leave the manifest (deleted once unused). */
  truncate(): Promise<void> {
    return this.serialized(() => this.exclusive(async () => {
      this.checkOpen();
      const truncated = this.nextSequence - 1;
      await this.manifest.update([truncateAction(truncated)]);
      for (const mt of this.immutables.splice(0)) this.ctx.vectorCache.forget(mt);
      this.mutable = createMemtable(this.metadata, this.ctx.memtable);
      this.flushedSeries = 0;
      this.flushedByTable = undefined;
      this.ctx.writeBuffer.remove(this.id);
      this.ctx.wal.markFlushed(this.id, truncated);
    }));
  }

  /** Drops the region: marks its manifest removed, forgets its WAL records, deletes its directory. */
  drop(): Promise<void> {
    return this.serialized(() => this.exclusive(async () => {
      this.checkOpen();
      await this.manifest.update([removeAction()]);
      this.state = 'dropped';
      await this.manifest.close();
      this.ctx.wal.forgetRegion(this.id);
      this.ctx.writeBuffer.remove(this.id);
      for (const mt of this.immutables) this.ctx.vectorCache.forget(mt);
      await this.ctx.provider.deleteAll(this.dir);
      this.log.info('region dropped');
    }));
  }

  /** Stops serving the region; unflushed rows stay in the WAL for the next open. */
  close(): Promise<void> {
    return this.serialized(() => this.exclusive(async () => {
      if (this.state !== 'open') return;
      this.state = 'closed';
      this.ctx.writeBuffer.remove(this.id);
      for (const mt of this.immutables) this.ctx.vectorCache.forget(mt);
      await this.manifest.close();
    }));
  }

  /** How memtable rows of this region are read out: all of them in append mode, else merged. */
  readMode(metadata: RegionMetadata = this.metadata): ReadMode {
    return metadata.options.append_mode ? 'append' : metadata.options.merge_mode;
  }

  /** The SST files of the region now. */
  files(): readonly FileMeta[] {
    return Object.values(this.manifest.state.files);
  }

  /**
   * Freezes the mutable memtable and writes every frozen memtable to an SST, oldest first: each
   * file, then a manifest edit with the flushed sequence, then the memtable is released and the
   * WAL below that sequence becomes purgeable. Writes go on meanwhile into the new memtable.
   */
  flush(connect: () => Promise<DuckDBConnection>): Promise<FileMeta[]> {
    return this.serialized(async () => {
      this.checkOpen();
      await this.freezeMutable();
      const written: FileMeta[] = [];
      while (this.immutables.length > 0 && this.state === 'open') {
        const mt = this.immutables[0]!;
        const meta = await this.flushMemtable(mt, connect);
        if (meta) written.push(meta);
      }
      this.lastFlushMs = Date.now();
      return written;
    });
  }

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.serial.then(fn);
    this.serial = run.catch(() => {});
    return run;
  }

  private async flushMemtable(mt: Memtable, connect: () => Promise<DuckDBConnection>): Promise<FileMeta | undefined> {
    const stats = mt.stats();
    const fileId = randomUUID();
    const objectPath = sstPath(this.dir, fileId);
    const provider = this.ctx.provider;
    const local = await provider.newFile(objectPath);
    const started = Date.now();
    let meta: FileMeta | undefined;
    let index: Uint8Array | undefined;
    const conn = await connect();
    try {
      const runs = this.ctx.vectorCache.cached(mt, this.readMode(mt.metadata)) ?? [...mt.runs(this.readMode(mt.metadata))];
      meta = await writeSst(conn, { metadata: mt.metadata, fields: mt.fields, runs, path: local, fileId, level: 0 });
      // The file's last rows are its runs' (a last-row scan reads them instead of the file).
      if (meta !== undefined && this.ctx.lastRows !== undefined && runs.length <= MAX_SERIES) this.ctx.lastRows.put(fileId, lastRowsOf(mt.metadata, mt.fields, runs));
      if (meta !== undefined && this.ctx.invertedIndex.createOnFlush) index = await this.buildIndex(conn, local, mt.metadata, meta);
    } catch (err) {
      await provider.discard(local);
      throw new TsdbError(StatusCode.StorageUnavailable, `flush of region ${formatRegionId(this.id)} to ${objectPath} failed: ${(err as Error).message}`, { cause: err });
    } finally {
      conn.closeSync();
    }
    // Uploaded (object storage) before the manifest records it: a crash before the edit leaves an
    // orphan object, removed at the next open; the rows are still in the WAL.
    if (meta) {
      try {
        await provider.publish(objectPath, local);
        if (index !== undefined) meta = await this.publishIndex(meta, index);
      } catch (err) {
        await provider.discard(local);
        throw new TsdbError(StatusCode.StorageUnavailable, `flush of region ${formatRegionId(this.id)} to ${objectPath} in ${provider.store.description} failed: ${(err as Error).message}`);
      }
    } else {
      await provider.discard(local);
    }
    const flushed = stats.maxSequence ?? this.manifest.state.flushed_sequence;
    // A failed update is in doubt (its delta may be on the store): the file is kept either way.
    await this.manifest.update([
      editAction({ files_to_add: meta ? [meta] : [], flushed_sequence: flushed, committed_sequence: this.committed }),
    ]);
    this.immutables.shift();
    this.flushedSeries = stats.series;
    this.flushedByTable = mt.seriesByTable();
    this.ctx.vectorCache.forget(mt);
    this.ctx.writeBuffer.release(this.id, stats.bytes);
    this.ctx.wal.markFlushed(this.id, flushed);
    this.log.info(
      { file: meta?.file_id ?? null, rows: meta?.num_rows ?? 0, bytes: meta?.file_size ?? 0, flushed_sequence: flushed, elapsed_ms: Date.now() - started },
      'flushed a memtable',
    );
    return meta;
  }

  /**
   * The inverted index of the SST just written at `localSst` (undefined when `md` indexes no
   * column). A failed build is logged and the SST kept without an index (scans then read it
   * whole), as GreptimeDB does: the rows matter more than the index.
   */
  private async buildIndex(conn: DuckDBConnection, localSst: string, md: RegionMetadata, meta: FileMeta): Promise<Uint8Array | undefined> {
    if (invertedIndexColumns(md).length === 0) return undefined;
    const opts = this.ctx.invertedIndex;
    const started = Date.now();
    try {
      const bytes = await buildInvertedIndex(conn, localSst, md, meta.num_rows, {
        segmentRowCount: md.options.inverted_index?.segment_row_count ?? DEFAULT_SEGMENT_ROW_COUNT,
        memThreshold: opts.memThreshold,
        intermediateDir: opts.intermediateDir,
      }, (s) => this.log.debug({ file: meta.file_id, columns: s.columns, spilled_runs: s.spilledRuns, elapsed_ms: Date.now() - started }, 'built an inverted index'));
      return bytes;
    } catch (err) {
      this.log.warn({ err, file: meta.file_id }, 'building the inverted index failed: the SST is kept without one');
      return undefined;
    }
  }

  /** Writes and publishes an SST's index beside it; the SST's meta then records it (not on failure). */
  private async publishIndex(meta: FileMeta, bytes: Uint8Array): Promise<FileMeta> {
    const objectPath = indexPath(this.dir, meta.file_id);
    const provider = this.ctx.provider;
    let local: string | undefined;
    try {
      local = await provider.newFile(objectPath);
      await writeFile(local, bytes);
      await provider.publish(objectPath, local);
      return { ...meta, index_file_size: bytes.length };
    } catch (err) {
      if (local !== undefined) await provider.discard(local).catch(() => {});
      this.log.warn({ err, file: meta.file_id }, 'writing the inverted index failed: the SST is kept without one');
      return meta;
    }
  }

  /**
   * The decoded indexes of `files` (undefined for a file without one, or whose index cannot be
   * read: logged, and the file is read whole; a damaged index never fails the query).
   */
  private async openIndexes(files: readonly FileMeta[], signal?: AbortSignal): Promise<Array<InvertedIndex | undefined>> {
    return Promise.all(
      files.map(async (f) => {
        if (f.index_file_size === undefined) return undefined;
        const path = indexPath(this.dir, f.file_id);
        try {
          return await this.ctx.indexCache.get(path, async () => {
            const local = await this.ctx.provider.open(path, f.index_file_size!, signal);
            try {
              return InvertedIndex.decode(await readFile(local.path), path);
            } finally {
              local.release();
            }
          });
        } catch (err) {
          if (signal?.aborted === true) throw err;
          this.log.warn({ err, file: f.file_id }, 'the inverted index of an SST cannot be read: the SST is read without it');
          return undefined;
        }
      }),
    );
  }

  /**
   * A consistent snapshot for reading: the SST files overlapping `[start, end]` (inclusive, time
   * index unit; files entirely past the TTL are left out) and the rows of every memtable now;
   * `keys` narrows what the scan reads to rows of those primary key values (region-scan.ts).
   */
  async scan(opts: ScanRequest = {}, signal?: AbortSignal): Promise<RegionScan> {
    this.checkOpen();
    const md = this.metadata;
    const unit = md.columns.find((c) => c.column_id === md.time_index)!.type as TimestampType;
    const ttlCutoff = md.options.ttl === undefined ? undefined : fromMillis(Date.now() - md.options.ttl, unit);
    const lower = opts.start === undefined ? ttlCutoff : ttlCutoff === undefined || opts.start > ttlCutoff ? opts.start : ttlCutoff;
    const overlaps = (lo: number, hi: number) =>
      (lower === undefined || BigInt(Math.ceil(hi)) >= lower) && (opts.end === undefined || BigInt(Math.floor(lo)) <= opts.end);
    // Files and memtables are taken together, before any wait, so that they are one snapshot.
    const files = this.files().filter((f) => overlaps(f.time_range[0], f.time_range[1]));
    const memtables = this.memtables()
      .filter((mt) => !mt.isEmpty())
      .map((mt) => {
        const st = mt.stats();
        return {
          metadata: mt.metadata,
          fields: mt.fields,
          runs: this.ctx.vectorCache.runs(mt, this.readMode(mt.metadata)),
          timeRange: widenRange(st.minTs!, st.maxTs!),
          rowsAtMost: st.rows,
          ...(st.minSequence !== undefined && { minSequence: st.minSequence }),
        };
      })
      .filter((m) => overlaps(m.timeRange[0], m.timeRange[1]));
    const release = this.useFiles(files);
    let locals: LocalFile[];
    try {
      locals = await this.openFiles(files, signal);
    } catch (err) {
      release();
      throw err;
    }
    // Indexes are read only for scans with terms on tags (and while `apply_on_query` allows).
    const useIndex = this.ctx.invertedIndex.applyOnQuery && ((opts.keys?.size ?? 0) > 0 || (opts.conditions?.size ?? 0) > 0);
    let indexes: Array<InvertedIndex | undefined> = [];
    if (useIndex) {
      try {
        indexes = await this.openIndexes(files, signal);
      } catch (err) {
        for (const l of locals) l.release();
        release();
        throw err;
      }
    }
    const snapshotFiles = files.map((f, i) => {
      const lastRows = opts.lastRow === true ? this.ctx.lastRows?.get(f.file_id) : undefined;
      return {
        fileId: f.file_id,
        path: locals[i]!.path,
        timeRange: f.time_range,
        maxSequence: f.max_sequence,
        ...(f.column_ids && { columnIds: f.column_ids }),
        ...(indexes[i] !== undefined && { index: indexes[i] }),
        ...(lastRows && { lastRows }),
      };
    });
    return new RegionScan({
      metadata: md,
      files: snapshotFiles,
      memtables,
      ...(opts.start !== undefined && { start: opts.start }),
      ...(opts.end !== undefined && { end: opts.end }),
      ...(ttlCutoff !== undefined && { ttlCutoff }),
      ...(opts.keys !== undefined && opts.keys.size > 0 && { keys: opts.keys }),
      ...(opts.lastRow === true && { lastRow: true }),
      ...(opts.conditions !== undefined && opts.conditions.size > 0 && { conditions: opts.conditions }),
      release: () => {
        for (const l of locals) l.release();
        release();
      },
    });
  }

  /**
   * Marks `files` in use (a removed file is deleted only once no scan or compaction uses it);
   * returns the idempotent release.
   */
  private useFiles(files: readonly FileMeta[]): () => void {
    for (const f of files) this.fileRefs.set(f.file_id, (this.fileRefs.get(f.file_id) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const f of files) {
        const n = (this.fileRefs.get(f.file_id) ?? 1) - 1;
        if (n <= 0) this.fileRefs.delete(f.file_id);
        else this.fileRefs.set(f.file_id, n);
      }
      void this.purgeRemovedFiles().catch((err: unknown) => this.log.warn({ err }, 'purge of removed files failed'));
    };
  }

  /** Local files of `files`, pinned (downloaded first where the cache misses); all or none. */
  private async openFiles(files: readonly FileMeta[], signal?: AbortSignal): Promise<LocalFile[]> {
    const settled = await Promise.allSettled(files.map((f) => this.ctx.provider.open(sstPath(this.dir, f.file_id), f.file_size, signal)));
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed === undefined) return settled.map((r) => (r as PromiseFulfilledResult<LocalFile>).value);
    for (const r of settled) if (r.status === 'fulfilled') r.value.release();
    throw failed.reason;
  }

  /**
   * Compacts the region (TWCS): drops files entirely past the TTL, then merges each time window
   * that has overlapping files or `trigger_file_num` files into one level-1 file. Returns the
   * number of files removed and added.
   */
  async compact(connect: () => Promise<DuckDBConnection>, nowMs = Date.now()): Promise<{ removed: number; added: number }> {
    const result = await this.serialized(async () => {
      this.checkOpen();
      const md = this.metadata;
      const unit = md.columns.find((c) => c.column_id === md.time_index)!.type as TimestampType;
      let removed = 0;
      let added = 0;
      const expired = expiredFiles(this.files(), md.options.ttl, nowMs, unit);
      if (expired.length > 0) {
        await this.manifest.update([editAction({ files_to_remove: expired.map((f) => f.file_id) })]);
        removed += expired.length;
        this.log.info({ files: expired.length }, 'dropped files past the TTL');
      }
      const windowMs = this.manifest.state.compaction_time_window ?? md.options.compaction_time_window;
      const { windowMs: chosen, picks } = pickCompactions(this.files(), {
        unit,
        ...(windowMs !== undefined && { windowMs }),
        ...(md.options.compaction_trigger_file_num !== undefined && { triggerFileNum: md.options.compaction_trigger_file_num }),
        appendMode: md.options.append_mode,
      });
      const ttlCutoff = md.options.ttl === undefined ? undefined : fromMillis(nowMs - md.options.ttl, unit);
      for (const pick of picks) {
        const fileId = randomUUID();
        const objectPath = sstPath(this.dir, fileId);
        const provider = this.ctx.provider;
        const started = Date.now();
        const release = this.useFiles(pick.inputs);
        let meta: FileMeta | undefined;
        try {
          const locals = await this.openFiles(pick.inputs);
          let local: string | undefined;
          try {
            local = await provider.newFile(objectPath);
            const inputs = pick.inputs.map((f, i) => ({ path: locals[i]!.path, ...(f.column_ids && { columnIds: f.column_ids }) }));
            const conn = await connect();
            let index: Uint8Array | undefined;
            try {
              meta = await compactFiles(conn, { metadata: md, inputs, dropTombstones: pick.dropTombstones, ...(ttlCutoff !== undefined && { ttlCutoff }), outPath: local, fileId });
              if (meta !== undefined && this.ctx.invertedIndex.createOnCompaction) index = await this.buildIndex(conn, local, md, meta);
            } finally {
              conn.closeSync();
            }
            if (meta) {
              await provider.publish(objectPath, local);
              if (index !== undefined) meta = await this.publishIndex(meta, index);
            } else await provider.discard(local);
          } catch (err) {
            if (local !== undefined) await provider.discard(local);
            throw new TsdbError(StatusCode.StorageUnavailable, `compaction of region ${formatRegionId(this.id)} failed: ${(err as Error).message}`);
          } finally {
            for (const l of locals) l.release();
          }
        } finally {
          release();
        }
        await this.manifest.update([
          editAction({ files_to_add: meta ? [meta] : [], files_to_remove: pick.inputs.map((f) => f.file_id), compaction_time_window: chosen }),
        ]);
        removed += pick.inputs.length;
        if (meta) added++;
        this.log.info({ inputs: pick.inputs.length, rows: meta?.num_rows ?? 0, window_start: pick.windowStart, elapsed_ms: Date.now() - started }, 'compacted a time window');
      }
      return { removed, added };
    });
    if (result.removed > 0) await this.purgeRemovedFiles();
    return result;
  }

  /**
   * Deletes the files the manifest removed (compaction inputs, truncated files) that no scan uses,
   * then records their purge in the manifest. Returns the file ids deleted.
   */
  async purgeRemovedFiles(): Promise<string[]> {
    if (this.state !== 'open') return [];
    const unused = this.manifest.state.removed_files.map((r) => r.file_id).filter((id) => !this.fileRefs.has(id));
    if (unused.length === 0) return [];
    return this.serialized(async () => {
      const ids = this.manifest.state.removed_files.map((r) => r.file_id).filter((id) => !this.fileRefs.has(id));
      if (ids.length === 0 || this.state !== 'open') return [];
      for (const id of ids) {
        this.ctx.lastRows?.forget(id);
        await this.ctx.provider.delete(sstPath(this.dir, id));
        // Deleted whether or not the file had one: deleting a missing object is no error.
        await this.ctx.provider.delete(indexPath(this.dir, id));
        this.ctx.indexCache.forget(indexPath(this.dir, id));
      }
      await this.manifest.update([purgeAction(ids)]);
      return ids;
    });
  }

  /** The memtables a read sees now, oldest first (frozen ones, then the mutable one). */
  memtables(): readonly Memtable[] {
    return [...this.immutables, this.mutable];
  }

  /**
   * The region's active series for `/metrics` (common/metrics/table-series.ts): the most any of
   * its memtables counts, or the memtable it flushed last counted.
   */
  activeSeries(): number {
    let n = this.flushedSeries;
    for (const m of this.memtables()) n = Math.max(n, m.stats().series);
    return n;
  }

  /**
   * A metric engine's physical region: its active series per logical table (`__table_id`), each the
   * most any of its memtables counts or the memtable it flushed last counted; undefined for any
   * other region.
   */
  activeSeriesByTable(): ReadonlyMap<number, number> | undefined {
    let out: Map<number, number> | undefined;
    for (const counts of [this.flushedByTable, ...this.memtables().map((m) => m.seriesByTable())]) {
      if (counts === undefined) continue;
      out ??= new Map();
      for (const [id, n] of counts) if (n > (out.get(id) ?? 0)) out.set(id, n);
    }
    return out;
  }

  /** Rows held in memtables, for tests and statistics. */
  memtableRows(): number {
    return this.memtables().reduce((n, m) => n + m.stats().rows, 0);
  }
}
