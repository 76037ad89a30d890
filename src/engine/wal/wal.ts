/**
 * The write-ahead log (docs/format/wal.md): segment files under `wal.dir`, group commit, replay by
 * region after its flushed sequence, torn-tail repair, corruption detection, prefix purging.
 * The WAL is about bytes: the engine encodes batches into record payloads.
 */
import { mkdir, open, readdir, truncate, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { processHealth, type HealthBoard } from '../../common/health/health-board.js';
import type { Logger } from '../../common/logging.js';
import { formatRegionId, type RegionId } from '../../types/region-id.js';
import { encodeRecordParts, type WalEntry, type WalRecord } from './record.js';
import { walFsyncElapsed } from '../../common/metrics/engine-metrics.js';
import { secondsSince } from '../../common/metrics/latency-buckets.js';
import {
  encodeSegmentHeader,
  parseSegmentFileName,
  scanSegment,
  SEGMENT_HEADER_SIZE,
  segmentFileName,
  validRecordAfter,
} from './segment.js';

export interface WalOptions {
  readonly dir: string;
  /** `wal.file_size`: a segment is closed before a batch would take it past this. */
  readonly fileSize: number;
  /** `wal.sync_write`: fdatasync before an append is acknowledged. */
  readonly syncWrite: boolean;
  /** `wal.read_batch_size`: records per batch handed out by replay. */
  readonly readBatchSize: number;
  readonly logger: Logger;
  /** Where a WAL that refuses writes (full disk, I/O error) is reported; default the process's. */
  readonly health?: HealthBoard;
}

/** Why a write failed, in words for the client (errno codes of a full or failing disk). */
function storageReason(err: unknown): string {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'ENOSPC':
      return 'no space left on the device';
    case 'EDQUOT':
      return 'disk quota exceeded';
    case 'EIO':
      return 'I/O error';
    case 'EROFS':
      return 'read-only file system';
    default:
      return (err as Error).message;
  }
}

/** A damaged WAL: names the file and the offset. */
export class WalCorruptionError extends TsdbError {
  constructor(
    readonly file: string,
    readonly offset: number,
    reason: string,
  ) {
    super(StatusCode.StorageUnavailable, `WAL is damaged: ${file} at offset ${offset}: ${reason}`);
  }
}

interface SeqRange {
  first: number;
  last: number;
}

interface Segment {
  readonly index: number;
  readonly path: string;
  /** Bytes of good data (header included). */
  size: number;
  /** First and last sequence of each region with records here. */
  readonly regions: Map<RegionId, SeqRange>;
  /** Where the segment is damaged; nothing after it is known. */
  damage?: { readonly offset: number; readonly reason: string };
}

interface Pending {
  readonly entries: readonly WalEntry[];
  readonly buffers: Buffer[];
  readonly bytes: number;
  resolve(): void;
  reject(err: unknown): void;
}

function noteRecord(seg: Segment, regionId: RegionId, sequence: number, count: number): void {
  const last = sequence + Math.max(count, 1) - 1;
  const range = seg.regions.get(regionId);
  if (range === undefined) seg.regions.set(regionId, { first: sequence, last });
  else {
    range.first = Math.min(range.first, sequence);
    range.last = Math.max(range.last, last);
  }
}

async function writeAll(fh: FileHandle, buffers: Buffer[], position: number): Promise<void> {
  let bufs = buffers;
  let pos = position;
  while (bufs.length > 0) {
    const { bytesWritten } = await fh.writev(bufs, pos);
    pos += bytesWritten;
    let skip = bytesWritten;
    const rest: Buffer[] = [];
    for (const b of bufs) {
      if (skip >= b.length) {
        skip -= b.length;
        continue;
      }
      rest.push(skip > 0 ? b.subarray(skip) : b);
      skip = 0;
    }
    bufs = rest;
  }
}

async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export class Wal {
  private readonly log: Logger;
  private readonly segments: Segment[];
  private active: { seg: Segment; fh: FileHandle };
  private queue: Pending[] = [];
  private writing: Promise<void> | undefined;
  /**
   * A failed write may have left bytes past the active segment's good size: nothing is written
   * after them until they are cut (retried before each write).
   */
  private dirtyTail = false;
  private readonly health: HealthBoard;
  private readonly healthKey: string;
  private closed = false;
  private readers = 0;
  private readonly flushed = new Map<RegionId, number>();
  private readonly dropped = new Set<RegionId>();
  /** Counters for tests and benchmarks: appends, writes (one per group commit) and syncs. */
  readonly stats = { appends: 0, writes: 0, syncs: 0, bytes: 0 };

  private constructor(
    private readonly opts: WalOptions,
    segments: Segment[],
    active: { seg: Segment; fh: FileHandle },
  ) {
    this.log = opts.logger.child({ wal: opts.dir });
    this.health = opts.health ?? processHealth;
    this.healthKey = `wal:${opts.dir}`;
    this.segments = segments;
    this.active = active;
  }

  /** Opens the WAL in `opts.dir`: checks every segment, repairs a torn tail, starts a new segment. */
  static async open(opts: WalOptions): Promise<Wal> {
    const log = opts.logger.child({ wal: opts.dir });
    await mkdir(opts.dir, { recursive: true });
    const indices = (await readdir(opts.dir))
      .map(parseSegmentFileName)
      .filter((i): i is number => i !== undefined)
      .sort((a, b) => a - b);
    for (let i = 1; i < indices.length; i++) {
      if (indices[i] !== indices[i - 1]! + 1) {
        const missing = join(opts.dir, segmentFileName(indices[i - 1]! + 1));
        throw new WalCorruptionError(missing, 0, `segment is missing (found ${segmentFileName(indices[i - 1]!)} and ${segmentFileName(indices[i]!)})`);
      }
    }
    const segments: Segment[] = [];
    for (let i = 0; i < indices.length; i++) {
      const index = indices[i]!;
      const seg: Segment = { index, path: join(opts.dir, segmentFileName(index)), size: 0, regions: new Map() };
      const outcome = await scanSegment(seg.path, index, (r) => noteRecord(seg, r.regionId, r.sequence, r.count));
      seg.size = outcome.goodEnd;
      const problem = outcome.problem;
      if (problem !== undefined) {
        const isLast = i === indices.length - 1;
        const torn = isLast && (problem.kind === 'incomplete' || !(await validRecordAfter(seg.path, problem.offset + 1)));
        if (torn && problem.offset === 0) {
          log.warn({ file: seg.path, reason: problem.reason }, 'removing a WAL segment left empty by a crash');
          await unlink(seg.path);
          continue;
        }
        if (torn) {
          log.warn(
            { file: seg.path, offset: problem.offset, bytes: outcome.fileSize - problem.offset, reason: problem.reason },
            `cutting a torn WAL tail at offset ${problem.offset} of ${seg.path}`,
          );
          await truncate(seg.path, problem.offset);
        } else {
          seg.damage = { offset: problem.offset, reason: problem.reason };
          log.error({ file: seg.path, offset: problem.offset, reason: problem.reason }, `WAL segment ${seg.path} is damaged at offset ${problem.offset}`);
        }
      }
      segments.push(seg);
    }
    const nextIndex = (segments.at(-1)?.index ?? indices.at(-1) ?? 0) + 1;
    const active = await Wal.createSegment(opts, nextIndex);
    segments.push(active.seg);
    return new Wal(opts, segments, active);
  }

  private static async createSegment(opts: WalOptions, index: number): Promise<{ seg: Segment; fh: FileHandle }> {
    const path = join(opts.dir, segmentFileName(index));
    // A segment left by an earlier attempt that failed (a full disk) holds no record: replaced.
    await unlink(path).catch(() => {});
    const fh = await open(path, 'wx');
    try {
      await fh.write(encodeSegmentHeader(index), 0, SEGMENT_HEADER_SIZE, 0);
      await fh.datasync();
      await syncDir(opts.dir);
    } catch (err) {
      await fh.close();
      await unlink(path).catch(() => {});
      throw err;
    }
    return { seg: { index, path, size: SEGMENT_HEADER_SIZE, regions: new Map() }, fh };
  }

  /**
   * Appends records; resolves once they are written (and synced with `sync_write`). Records queued
   * while a write is in progress share the next write and sync (group commit).
   */
  append(entries: readonly WalEntry[]): Promise<void> {
    if (this.closed) return Promise.reject(new TsdbError(StatusCode.IllegalState, 'the WAL is closed'));
    if (entries.length === 0) return Promise.resolve();
    let buffers: Buffer[];
    try {
      buffers = entries.flatMap(encodeRecordParts);
    } catch (err) {
      return Promise.reject(new TsdbError(StatusCode.InvalidArguments, `cannot write to the WAL: ${(err as Error).message}`, { cause: err }));
    }
    const bytes = buffers.reduce((n, b) => n + b.length, 0);
    this.stats.appends++;
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ entries, buffers, bytes, resolve, reject });
      this.kick();
    });
  }

  /** Starts the write loop unless it runs; an append that raced with its end restarts it. */
  private kick(): void {
    if (this.writing !== undefined) return;
    this.writing = this.writeLoop().finally(() => {
      this.writing = undefined;
      if (this.queue.length > 0) this.kick();
    });
  }

  private async writeLoop(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const bytes = batch.reduce((n, p) => n + p.bytes, 0);
      try {
        if (this.dirtyTail) await this.cutTail();
        if (this.active.seg.size > SEGMENT_HEADER_SIZE && this.active.seg.size + bytes > this.opts.fileSize) await this.rotate();
        const seg = this.active.seg;
        // From here a failure may leave part of the batch in the file.
        this.dirtyTail = true;
        await writeAll(this.active.fh, batch.flatMap((p) => p.buffers), seg.size);
        this.stats.writes++;
        this.stats.bytes += bytes;
        if (this.opts.syncWrite) {
          const started = process.hrtime.bigint();
          await this.active.fh.datasync();
          walFsyncElapsed.observe(secondsSince(started));
          this.stats.syncs++;
        }
        this.dirtyTail = false;
        seg.size += bytes;
        for (const p of batch) for (const e of p.entries) noteRecord(seg, e.regionId, e.sequence, e.count);
      } catch (err) {
        const refused = this.refuse(err);
        if (this.dirtyTail) {
          await this.cutTail().catch((e: unknown) => this.log.warn({ err: e }, `WAL: cannot cut the tail of ${this.active.seg.path} yet; retried before the next write`));
        }
        for (const p of batch) p.reject(refused);
        continue;
      }
      if (this.health.has(this.healthKey)) {
        this.health.clear(this.healthKey);
        this.log.info('WAL writes succeed again');
      }
      for (const p of batch) p.resolve();
    }
  }

  /**
   * A write that failed (full disk, I/O error) is not applied: its bytes are cut from the segment
   * at once, or before the next write if that fails too, so that the WAL holds exactly what was
   * acknowledged and the next write, retried by its client, can succeed once space returns.
   */
  private refuse(err: unknown): TsdbError {
    const path = this.active.seg.path;
    const reason = storageReason(err);
    const message = `WAL write to ${path} failed: ${reason}; the write was not applied, retry it later`;
    if (!this.health.has(this.healthKey)) this.log.error({ err }, message);
    this.health.set(this.healthKey, 'wal', `WAL writes fail: ${reason} (${this.opts.dir}); writes are refused until they succeed again`);
    return new TsdbError(StatusCode.StorageUnavailable, message, { cause: err });
  }

  /** Cuts what a failed write left past the active segment's good size. */
  private async cutTail(): Promise<void> {
    await this.active.fh.truncate(this.active.seg.size);
    if (this.opts.syncWrite) await this.active.fh.datasync();
    this.dirtyTail = false;
  }

  private async rotate(): Promise<void> {
    // The next segment first: if it cannot be created, the active one stays as it was.
    const next = await Wal.createSegment(this.opts, this.active.seg.index + 1);
    const old = this.active;
    this.active = next;
    this.segments.push(next.seg);
    try {
      await old.fh.datasync();
    } finally {
      await old.fh.close();
    }
  }

  /**
   * Records of the given regions after their flushed sequences (`after`: region → last sequence
   * already durable elsewhere), in WAL order, in batches of at most `read_batch_size`. Throws a
   * WalCorruptionError when records of a region are missing or may have been lost to damage.
   */
  async *replay(after: ReadonlyMap<RegionId, number>): AsyncGenerator<WalRecord[]> {
    this.readers++;
    try {
      const expected = new Map<RegionId, number>();
      for (const [r, seq] of after) expected.set(r, seq + 1);
      const suspect = new Map<RegionId, { file: string; offset: number; reason: string }>();
      let batch: WalRecord[] = [];
      const segments = [...this.segments];
      for (const seg of segments) {
        const relevant =
          seg.damage !== undefined ||
          [...expected].some(([r, next]) => {
            const range = seg.regions.get(r);
            return range !== undefined && (range.last >= next || suspect.has(r));
          });
        if (!relevant || seg.size <= SEGMENT_HEADER_SIZE) {
          if (seg.damage) for (const r of expected.keys()) suspect.set(r, { file: seg.path, offset: seg.damage.offset, reason: seg.damage.reason });
          continue;
        }
        const limit = seg.size;
        const records: WalRecord[] = [];
        await scanSegment(seg.path, seg.index, (rec) => {
          if (rec.offset >= limit) return;
          const next = expected.get(rec.regionId);
          if (next === undefined) return;
          if (rec.sequence > next) {
            const damage = suspect.get(rec.regionId);
            if (damage) throw new WalCorruptionError(damage.file, damage.offset, `${damage.reason}; records of region ${formatRegionId(rec.regionId)} from sequence ${next} are lost`);
            throw new WalCorruptionError(seg.path, rec.offset, `region ${formatRegionId(rec.regionId)} expects sequence ${next} but the record holds ${rec.sequence}: records are missing`);
          }
          // A later record of the region shows that nothing it still needed was lost before it.
          suspect.delete(rec.regionId);
          const last = rec.sequence + Math.max(rec.count, 1) - 1;
          if (last < next) return;
          expected.set(rec.regionId, last + 1);
          // The payload is a view of a read buffer that is never reused: kept without a copy.
          records.push(rec);
        });
        for (const rec of records) {
          batch.push(rec);
          if (batch.length >= this.opts.readBatchSize) {
            yield batch;
            batch = [];
          }
        }
        if (seg.damage) for (const r of expected.keys()) suspect.set(r, { file: seg.path, offset: seg.damage.offset, reason: seg.damage.reason });
      }
      if (batch.length > 0) yield batch;
      const [region, damage] = suspect.entries().next().value ?? [];
      if (region !== undefined && damage !== undefined) {
        throw new WalCorruptionError(damage.file, damage.offset, `${damage.reason}; records of region ${formatRegionId(region)} may be lost`);
      }
    } finally {
      this.readers--;
    }
  }

  /** Every record of the region up to `sequence` is durable elsewhere (flushed to an SST). */
  markFlushed(regionId: RegionId, sequence: number): void {
    this.flushed.set(regionId, Math.max(this.flushed.get(regionId) ?? -1, sequence));
  }

  /** The region was dropped: its records are needed no more. */
  forgetRegion(regionId: RegionId): void {
    this.dropped.add(regionId);
    this.flushed.delete(regionId);
  }

  private purgeable(seg: Segment): boolean {
    if (seg.damage) return false;
    for (const [r, range] of seg.regions) {
      if (!this.dropped.has(r) && (this.flushed.get(r) ?? -1) < range.last) return false;
    }
    return true;
  }

  /** Deletes sealed segments from the oldest end while they hold nothing still needed. Returns their paths. */
  async purge(): Promise<string[]> {
    const removed: string[] = [];
    if (this.readers > 0) return removed;
    while (this.segments.length > 1 && this.segments[0] !== this.active.seg && this.purgeable(this.segments[0]!)) {
      const seg = this.segments.shift()!;
      await unlink(seg.path);
      removed.push(seg.path);
    }
    if (removed.length > 0) this.log.info({ files: removed.length, bytes_left: this.totalSize() }, 'purged WAL segments');
    return removed;
  }

  /** Bytes of all segments. */
  totalSize(): number {
    return this.segments.reduce((n, s) => n + s.size, 0);
  }

  /** Number of segment files. */
  segmentCount(): number {
    return this.segments.length;
  }

  /** Regions whose unflushed records keep the oldest sealed segment from being purged. */
  regionsPinningOldest(): RegionId[] {
    const oldest = this.segments.find((s) => s !== this.active.seg && !this.purgeable(s));
    if (oldest === undefined) return [];
    return [...oldest.regions]
      .filter(([r, range]) => !this.dropped.has(r) && (this.flushed.get(r) ?? -1) < range.last)
      .map(([r]) => r);
  }

  /** Waits for queued appends, syncs and closes the active segment. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.writing) await this.writing;
    this.health.clear(this.healthKey);
    try {
      // A tail a failed write left is cut now. If it cannot be, the next open cuts a torn record,
      // but whole records of a write that was refused (written, then its sync failed) would be
      // replayed: logged at error level below, naming the segment.
      if (this.dirtyTail) await this.cutTail();
      await this.active.fh.datasync();
    } catch (err) {
      if (this.dirtyTail) {
        this.log.error({ err }, `WAL: the tail a refused write left in ${this.active.seg.path} could not be cut at close (${storageReason(err)}); if its records are whole, the next start replays that write`);
      } else this.log.error({ err }, `WAL: the last segment ${this.active.seg.path} could not be synced at close: ${storageReason(err)}`);
    } finally {
      await this.active.fh.close();
    }
  }
}
