/**
 * `vector_cache_size`: a byte-budgeted LRU cache of the vectors read out of memtables — each series
 * sorted and merged by the read mode — so that repeated scans (and the flush) sort and merge a
 * memtable's rows once. Memtables only grow: an entry holds for as long as its memtable has the
 * row count it was read at (a frozen memtable until it is flushed, then it is dropped; the mutable
 * one until its next write). 0 disables the cache. A memtable that keeps its own read out
 * (`cachesRuns`: the time_series memtable, which re-reads only the series written to since) is
 * passed through: copying and sizing its 100,000 runs on every read cost more than it saved.
 */
import type { Memtable, ReadMode, SeriesRun } from '../memtable/memtable.js';
import { vectorBytes } from '../memtable/vectors.js';

interface Entry {
  readonly memtable: Memtable;
  /** The memtable's row count when it was read out. */
  readonly rows: number;
  readonly runs: readonly SeriesRun[];
  readonly bytes: number;
}

export function runBytes(runs: readonly SeriesRun[]): number {
  let n = 0;
  for (const r of runs) {
    n += 64 + r.ts.byteLength + r.seq.byteLength + r.op.byteLength;
    for (const v of r.fields) n += vectorBytes(v);
  }
  return n;
}

export class VectorCache {
  /** Insertion order is recency order: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry>();
  private readonly ids = new WeakMap<Memtable, number>();
  private nextId = 0;
  private used = 0;
  hits = 0;
  misses = 0;

  constructor(readonly capacity: number) {}

  private key(memtable: Memtable, mode: ReadMode): string {
    let id = this.ids.get(memtable);
    if (id === undefined) this.ids.set(memtable, (id = this.nextId++));
    return `${id}:${mode}`;
  }

  /** The runs of a memtable in `mode`, from the cache or read out (and kept if they fit). */
  runs(memtable: Memtable, mode: ReadMode): readonly SeriesRun[] {
    if (memtable.cachesRuns === true) {
      const own = memtable.runs(mode);
      return Array.isArray(own) ? (own as readonly SeriesRun[]) : [...own];
    }
    if (this.capacity <= 0) return [...memtable.runs(mode)];
    const key = this.key(memtable, mode);
    const rows = memtable.stats().rows;
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key);
      if (hit.rows === rows) {
        this.hits++;
        this.entries.set(key, hit);
        return hit.runs;
      }
      this.used -= hit.bytes; // written to since: read again
    }
    this.misses++;
    const runs = [...memtable.runs(mode)];
    const bytes = runBytes(runs);
    if (bytes <= this.capacity) {
      this.entries.set(key, { memtable, rows, runs, bytes });
      this.used += bytes;
      for (const [k, e] of this.entries) {
        if (this.used <= this.capacity) break;
        this.entries.delete(k);
        this.used -= e.bytes;
      }
    }
    return runs;
  }

  /** The cached runs, if any (a flush reads them from here, but does not fill the cache). */
  cached(memtable: Memtable, mode: ReadMode): readonly SeriesRun[] | undefined {
    const id = this.ids.get(memtable);
    const e = id === undefined ? undefined : this.entries.get(`${id}:${mode}`);
    return e !== undefined && e.rows === memtable.stats().rows ? e.runs : undefined;
  }

  /** Drops the entries of a memtable (it was flushed or discarded). */
  forget(memtable: Memtable): void {
    for (const [k, e] of this.entries) {
      if (e.memtable !== memtable) continue;
      this.entries.delete(k);
      this.used -= e.bytes;
    }
  }

  stats(): { readonly bytes: number; readonly entries: number; readonly hits: number; readonly misses: number } {
    return { bytes: this.used, entries: this.entries.size, hits: this.hits, misses: this.misses };
  }
}
