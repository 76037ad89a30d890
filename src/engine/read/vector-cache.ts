/**
 * `vector_cache_size`: a byte-budgeted LRU cache of the vectors read out of frozen memtables —
 * each series sorted and merged by the read mode — so that the scans that run while a memtable
 * waits for its flush, and the flush itself, sort and merge its rows once. Frozen memtables never
 * change, so an entry stays right until the memtable is flushed (then it is dropped). 0 disables
 * the cache.
 */
import type { Memtable, ReadMode, SeriesRun } from '../memtable/memtable.js';
import { vectorBytes } from '../memtable/vectors.js';

interface Entry {
  readonly memtable: Memtable;
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

  /** The runs of a frozen memtable in `mode`, from the cache or read out (and kept if they fit). */
  runs(memtable: Memtable, mode: ReadMode): readonly SeriesRun[] {
    if (this.capacity <= 0 || !memtable.isFrozen) return [...memtable.runs(mode)];
    const key = this.key(memtable, mode);
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.hits++;
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.runs;
    }
    this.misses++;
    const runs = [...memtable.runs(mode)];
    const bytes = runBytes(runs);
    if (bytes <= this.capacity) {
      this.entries.set(key, { memtable, runs, bytes });
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
    return id === undefined ? undefined : this.entries.get(`${id}:${mode}`)?.runs;
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
