/**
 * The write-ahead log (docs/format/wal.md): segment files under `wal.dir`, group commit, replay by
 * region after its flushed sequence, torn-tail repair, corruption detection, prefix purging.
 * The WAL is about bytes: the engine encodes batches into record payloads.
 */
import { mkdir, open, readdir, truncate, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import { formatRegionId, type RegionId } from '../region/region-id.js';
import { encodeRecordParts, type WalEntry, type WalRecord } from './record.js';
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
  private failed: Error | undefined;
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
    const fh = await open(path, 'wx');
    try {
      await fh.write(encodeSegmentHeader(index), 0, SEGMENT_HEADER_SIZE, 0);
      await fh.datasync();
      await syncDir(opts.dir);
    } catch (err) {
      await fh.close();
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
    if (this.failed) return Promise.reject(this.failed);
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
      if (this.failed) {
        for (const p of batch) p.reject(this.failed);
        continue;
      }
      const bytes = batch.reduce((n, p) => n + p.bytes, 0);
      try {
        if (this.active.seg.size > SEGMENT_HEADER_SIZE && this.active.seg.size + bytes > this.opts.fileSize) await this.rotate();
        const seg = this.active.seg;
        await writeAll(this.active.fh, batch.flatMap((p) => p.buffers), seg.size);
        this.stats.writes++;
        this.stats.bytes += bytes;
        if (this.opts.syncWrite) {
          await this.active.fh.datasync();
          this.stats.syncs++;
        }
        seg.size += bytes;
        for (const p of batch) for (const e of p.entries) noteRecord(seg, e.regionId, e.sequence, e.count);
      } catch (err) {
        // The tail of the segment is unknown now: accept nothing more until the WAL is reopened.
        this.failed = new TsdbError(
          StatusCode.StorageUnavailable,
          `WAL write to ${this.active.seg.path} failed: ${(err as Error).message}; no more writes are accepted until restart`,
          { cause: err },
        );
        this.log.error({ err }, this.failed.message);
        for (const p of batch) p.reject(this.failed);
        continue;
      }
      for (const p of batch) p.resolve();
    }
  }

  private async rotate(): Promise<void> {
    const old = this.active;
    await old.fh.datasync();
    await old.fh.close();
    this.active = await Wal.createSegment(this.opts, old.seg.index + 1);
    this.segments.push(this.active.seg);
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
    try {
      if (!this.failed) await this.active.fh.datasync();
    } finally {
      await this.active.fh.close();
    }
  }
}
