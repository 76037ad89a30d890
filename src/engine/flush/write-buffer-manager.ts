/**
 * Accounts memtable memory across all regions (`global_write_buffer_size`,
 * `global_write_buffer_reject_size`) and says when to flush and when to reject writes, as GreptimeDB
 * mito's WriteBufferManager: flush when mutable memtables reach half the buffer or all memtables
 * reach the whole buffer (largest regions first); reject writes while all memtables are at or above
 * the reject size, until flushes free memory.
 */
import type { RegionId } from '../../types/region-id.js';

export interface WriteBufferOptions {
  /** `global_write_buffer_size` in bytes. */
  readonly bufferSize: number;
  /** `global_write_buffer_reject_size` in bytes. */
  readonly rejectSize: number;
}

interface RegionUsage {
  mutable: number;
  /** Frozen memtables waiting for (or in) a flush. */
  immutable: number;
}

export class WriteBufferManager {
  private readonly usage = new Map<RegionId, RegionUsage>();
  private mutableTotal = 0;
  private immutableTotal = 0;

  constructor(readonly opts: WriteBufferOptions) {}

  private region(id: RegionId): RegionUsage {
    let u = this.usage.get(id);
    if (u === undefined) this.usage.set(id, (u = { mutable: 0, immutable: 0 }));
    return u;
  }

  /** The region's mutable memtable now holds `bytes`. */
  setMutable(id: RegionId, bytes: number): void {
    const u = this.region(id);
    this.mutableTotal += bytes - u.mutable;
    u.mutable = bytes;
  }

  /** The region froze its mutable memtable for a flush: its bytes move to the immutable side. */
  freeze(id: RegionId): void {
    const u = this.region(id);
    this.immutableTotal += u.mutable;
    this.mutableTotal -= u.mutable;
    u.immutable += u.mutable;
    u.mutable = 0;
  }

  /** A flush of `bytes` finished (or failed and its memtable was released). */
  release(id: RegionId, bytes: number): void {
    const u = this.region(id);
    const freed = Math.min(bytes, u.immutable);
    u.immutable -= freed;
    this.immutableTotal -= freed;
  }

  /** The region is gone (closed or dropped): forget its memory. */
  remove(id: RegionId): void {
    const u = this.usage.get(id);
    if (u === undefined) return;
    this.mutableTotal -= u.mutable;
    this.immutableTotal -= u.immutable;
    this.usage.delete(id);
  }

  totalBytes(): number {
    return this.mutableTotal + this.immutableTotal;
  }

  mutableBytes(): number {
    return this.mutableTotal;
  }

  /** Whether regions should be flushed now. */
  shouldFlush(): boolean {
    return this.mutableTotal >= this.opts.bufferSize / 2 || this.totalBytes() >= this.opts.bufferSize;
  }

  /** Why flushes of a region fail now (set while its background flushes are retried). */
  private readonly flushFailures = new Map<RegionId, string>();

  setFlushFailure(id: RegionId, message: string | undefined): void {
    if (message === undefined) this.flushFailures.delete(id);
    else this.flushFailures.set(id, message);
  }

  /** One of the reasons flushes fail now, if any do (for the message refusing a write). */
  flushFailure(): string | undefined {
    return this.flushFailures.values().next().value;
  }

  /** Whether writes must be refused until flushes free memory. */
  shouldReject(): boolean {
    return this.totalBytes() >= this.opts.rejectSize;
  }

  /**
   * Regions to flush, largest mutable memtable first, until the mutable memory left would be below
   * half the buffer.
   */
  regionsToFlush(): RegionId[] {
    const picked: RegionId[] = [];
    let mutable = this.mutableTotal;
    const bySize = [...this.usage].filter(([, u]) => u.mutable > 0).sort((a, b) => b[1].mutable - a[1].mutable);
    for (const [id, u] of bySize) {
      if (mutable < this.opts.bufferSize / 2 && this.totalBytes() - (this.mutableTotal - mutable) < this.opts.bufferSize) break;
      picked.push(id);
      mutable -= u.mutable;
    }
    return picked;
  }
}
