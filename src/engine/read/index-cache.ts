/**
 * Decoded inverted indexes of SST files, by object path, least recently used dropped past a byte
 * budget: a query of a few hosts would otherwise read and decode the index of every file it
 * touches each time. Index files never change once written (a file id is never reused), so an
 * entry is valid until its file is purged (`forget`).
 */
import type { InvertedIndex } from '../sst/inverted-index.js';

/** GreptimeDB's index metadata cache default (64 MiB). */
export const DEFAULT_INDEX_CACHE_BYTES = 64 * 1024 * 1024;

export class IndexCache {
  private readonly entries = new Map<string, InvertedIndex>();
  private bytes = 0;
  /** Lookups that found an entry, and those that did not (for tests and statistics). */
  hits = 0;
  misses = 0;

  constructor(private readonly capacity: number = DEFAULT_INDEX_CACHE_BYTES) {}

  /** The cached index of `path`, or the one `load` gives (then cached, if it fits). */
  async get(path: string, load: () => Promise<InvertedIndex>): Promise<InvertedIndex> {
    const hit = this.entries.get(path);
    if (hit !== undefined) {
      this.hits++;
      // Re-inserted: a Map iterates in insertion order, so the first entry is the least recent.
      this.entries.delete(path);
      this.entries.set(path, hit);
      return hit;
    }
    this.misses++;
    const index = await load();
    if (index.bytes <= this.capacity && !this.entries.has(path)) {
      this.entries.set(path, index);
      this.bytes += index.bytes;
      for (const [p, e] of this.entries) {
        if (this.bytes <= this.capacity) break;
        this.entries.delete(p);
        this.bytes -= e.bytes;
      }
    }
    return index;
  }

  /** Bytes held and lookups so far (for `/metrics`). */
  stats(): { readonly bytes: number; readonly entries: number; readonly hits: number; readonly misses: number } {
    return { bytes: this.bytes, entries: this.entries.size, hits: this.hits, misses: this.misses };
  }

  forget(path: string): void {
    const e = this.entries.get(path);
    if (e === undefined) return;
    this.entries.delete(path);
    this.bytes -= e.bytes;
  }
}
