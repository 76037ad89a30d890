/**
 * The last rows of each series of SST files, kept in memory from their flush (the flushed runs'
 * last rows, copied), so that a last-row scan (`ScanRequest.lastRow`, `region-scan.ts`) reads a
 * row per series of a file instead of the whole file: DuckDB's read of a TSBS file of 864,000 rows
 * by its ten string tags to find those rows costs more than the whole query does today. A
 * byte-budgeted LRU; a file without an entry (a compaction's output, a file of an earlier process,
 * one of more than MAX_SERIES series, one evicted) is read whole. Files never change, so an entry
 * holds until its file is purged.
 */
import type { SeriesRun } from '../memtable/memtable.js';
import type { RegionMetadata } from '../../types/region-metadata.js';
import type { Vector } from '../../types/write-batch.js';
import { OP_DELETE } from '../../types/write-batch.js';
import { runBytes } from './vector-cache.js';

/**
 * Files of more series than this keep no last rows: copying them costs about a microsecond per
 * array (a run holds one per field, and its time, sequence and op), ~1 s for 100,000 series of
 * ten fields on this 2-core machine, in the flush; up to here, tens of milliseconds.
 */
export const MAX_SERIES = 10_000;

/** A file's last rows: one run per series of the file, as the flush's runs had them. */
export interface FileLastRows {
  /** The metadata and fields the runs were written with (the file's columns). */
  readonly metadata: RegionMetadata;
  readonly fields: readonly { column_id: number }[];
  /** The last row of each run (every row of its last time, in append mode). */
  readonly runs: readonly SeriesRun[];
  /** Whether the file holds a delete anywhere (its last rows then say nothing of a series' latest). */
  readonly deletes: boolean;
}

/** Rows `[from, to)` of a vector, copied (no view keeps the memtable's buffers alive). */
function sliceVector(v: Vector, from: number, to: number): Vector {
  if (v.type === 'string' || v.type === 'binary') return { type: v.type, data: v.data.slice(from, to) } as Vector;
  const valid = v.valid?.slice(from, to);
  return { type: v.type, data: v.data.slice(from, to), ...(valid !== undefined && { valid }) } as Vector;
}

/** The last rows of sorted runs (each run's rows of its latest time), copied; and whether any row is a delete. */
export function lastRowsOf(metadata: RegionMetadata, fields: readonly { column_id: number }[], runs: readonly SeriesRun[]): FileLastRows {
  const out: SeriesRun[] = [];
  let deletes = false;
  for (const r of runs) {
    const n = r.ts.length;
    if (n === 0) continue;
    if (!deletes && r.op.indexOf(OP_DELETE) >= 0) deletes = true;
    let from = n - 1;
    while (from > 0 && r.ts[from - 1] === r.ts[n - 1]) from--;
    out.push({ key: r.key, ts: r.ts.slice(from), seq: r.seq.slice(from), op: r.op.slice(from), fields: r.fields.map((v) => sliceVector(v, from, n)) });
  }
  return { metadata, fields, runs: out, deletes };
}

export class LastRowCache {
  /** Insertion order is recency order: the first entry is the least recently used. */
  private readonly entries = new Map<string, { rows: FileLastRows; bytes: number }>();
  private used = 0;
  /** Lookups that found a file's last rows, and those that did not (for `/metrics`). */
  private hits = 0;
  private misses = 0;

  constructor(readonly capacity: number) {}

  /** Keeps a file's last rows, if they fit (older entries evicted to make room). */
  put(fileId: string, rows: FileLastRows): void {
    this.forget(fileId);
    const bytes = runBytes(rows.runs) + rows.runs.reduce((n, r) => n + 16 * r.key.length, 0);
    if (bytes > this.capacity) return;
    for (const [id, e] of this.entries) {
      if (this.used + bytes <= this.capacity) break;
      this.entries.delete(id);
      this.used -= e.bytes;
    }
    this.entries.set(fileId, { rows, bytes });
    this.used += bytes;
  }

  /** A file's last rows, if kept (then the most recently used). */
  get(fileId: string): FileLastRows | undefined {
    const e = this.entries.get(fileId);
    if (e === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.entries.delete(fileId);
    this.entries.set(fileId, e);
    return e.rows;
  }

  forget(fileId: string): void {
    const e = this.entries.get(fileId);
    if (e === undefined) return;
    this.entries.delete(fileId);
    this.used -= e.bytes;
  }

  stats(): { entries: number; bytes: number; hits: number; misses: number } {
    return { entries: this.entries.size, bytes: this.used, hits: this.hits, misses: this.misses };
  }
}
