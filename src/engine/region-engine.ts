/**
 * The region engine (DESIGN.md D5; drawing in src/engine/README.md): opens the WAL, hosts regions,
 * and routes requests to them. It knows nothing of SQL or protocols: regions are created from
 * metadata and written with columnar batches.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { Logger } from '../common/logging.js';
import type { Millis } from '../common/time/duration.js';
import type { ObjectStore } from '../storage/object-store.js';
import type { WriteBatch } from './batch/write-batch.js';
import { WriteBufferManager } from './flush/write-buffer-manager.js';
import type { RegionMetadata } from './region/metadata.js';
import { formatRegionId, type RegionId } from './region/region-id.js';
import { Region, type RegionContext } from './region/region.js';
import { Wal } from './wal/wal.js';

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
  /** Where region directories live (File storage: `{data_home}/data`). */
  readonly store: ObjectStore;
  readonly logger: Logger;
}

export class RegionEngine {
  private readonly regions = new Map<RegionId, Region>();
  /** Regions being opened or created: a second request for the same region waits for the first. */
  private readonly pending = new Map<RegionId, Promise<Region>>();
  private readonly ctx: RegionContext;
  private purgeTimer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly opts: RegionEngineOptions,
    private readonly wal: Wal,
    readonly writeBuffer: WriteBufferManager,
  ) {
    this.ctx = {
      wal,
      writeBuffer,
      store: opts.store,
      checkpointDistance: opts.manifestCheckpointDistance,
      logger: opts.logger.child({ engine: 'mito' }),
    };
    if (opts.wal.purgeInterval > 0) {
      this.purgeTimer = setInterval(() => void this.purgeWal(), opts.wal.purgeInterval);
      this.purgeTimer.unref();
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
    return new RegionEngine(opts, wal, writeBuffer);
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

  /** Creates a region in `dir` (a directory of the store, ending with `/`). */
  async createRegion(metadata: RegionMetadata, dir: string): Promise<void> {
    await this.claim(BigInt(metadata.region_id), () => Region.create(this.ctx, metadata, dir));
  }

  /** Opens an existing region: its manifest, then a replay of its WAL records. */
  async openRegion(id: RegionId, dir: string): Promise<void> {
    await this.claim(id, () => Region.open(this.ctx, id, dir));
  }

  /** Writes a batch; resolves when it is durable in the WAL and visible in the memtable. */
  write(id: RegionId, batch: WriteBatch): Promise<{ readonly first: number; readonly last: number }> {
    return this.region(id).write(batch);
  }

  async alterRegion(id: RegionId, metadata: RegionMetadata): Promise<void> {
    await this.region(id).alter(metadata);
  }

  async truncateRegion(id: RegionId): Promise<void> {
    await this.region(id).truncate();
  }

  async closeRegion(id: RegionId): Promise<void> {
    const r = this.regions.get(id);
    if (r === undefined) return;
    this.regions.delete(id);
    await r.close();
  }

  async dropRegion(id: RegionId): Promise<void> {
    const r = this.region(id);
    await r.drop();
    this.regions.delete(id);
  }

  /** Deletes WAL segments every region has flushed (every `wal.purge_interval`). */
  async purgeWal(): Promise<void> {
    try {
      await this.wal.purge();
      if (this.wal.totalSize() > this.opts.wal.purgeThreshold) {
        // Flushing the regions that pin the oldest segment lets the next purge shrink the WAL.
        this.ctx.logger.warn(
          { wal_bytes: this.wal.totalSize(), regions: this.wal.regionsPinningOldest().map(formatRegionId) },
          'the WAL is above wal.purge_threshold',
        );
      }
    } catch (err) {
      this.ctx.logger.error({ err }, 'WAL purge failed');
    }
  }

  walStats(): { readonly bytes: number; readonly segments: number } {
    return { bytes: this.wal.totalSize(), segments: this.wal.segmentCount() };
  }

  /** Closes every region and the WAL. Unflushed rows stay in the WAL for the next open. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    await Promise.all([...this.pending.values()].map((p) => p.catch(() => {})));
    for (const id of [...this.regions.keys()]) await this.closeRegion(id);
    await this.wal.close();
  }
}
