/**
 * Metrics of the region engine (mito), named as GreptimeDB's `greptime_mito_*` with the `tsdb_`
 * prefix. Events (rows written, flushes, compactions, WAL syncs) are counted where they happen,
 * once per batch or job, never per row. State (regions, write buffer, WAL and SST sizes, caches)
 * is read from the engines of the process when `/metrics` is scraped: the engine registers an
 * `EngineMetricsSource` and nothing on its write path keeps these gauges.
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import { FSYNC_BUCKETS, REQUEST_BUCKETS } from './latency-buckets.js';
import { metricsRegistry } from './registry.js';

const registers = [metricsRegistry];

export const writeRowsTotal = new Counter({
  name: 'tsdb_mito_write_rows_total',
  help: 'Rows written to regions (in the WAL and the memtable), by type (put, delete)',
  labelNames: ['type'] as const,
  registers,
});

export const writeRejectTotal = new Counter({
  name: 'tsdb_mito_write_reject_total',
  help: 'Write batches refused because the write buffer reached global_write_buffer_reject_size',
  registers,
});

export const writeStallTotal = new Counter({
  name: 'tsdb_mito_write_stall_total',
  help: 'Write batches that waited for a region held exclusively (memtable freeze for a flush, alter, truncate, close)',
  registers,
});

export const flushRequestsTotal = new Counter({
  name: 'tsdb_mito_flush_requests_total',
  help: 'Region flushes started, by reason (manual, write_buffer_full, periodic, wal_purge, retry)',
  labelNames: ['reason'] as const,
  registers,
});

export const flushErrorsTotal = new Counter({
  name: 'tsdb_mito_flush_errors_total',
  help: 'Region flushes that failed',
  registers,
});

export const flushElapsed = new Histogram({
  name: 'tsdb_mito_flush_elapsed',
  help: 'Region flush latency in seconds (type="total": the whole job, waiting for a background slot included)',
  labelNames: ['type'] as const,
  buckets: [...REQUEST_BUCKETS],
  registers,
});

export const flushBytesTotal = new Counter({
  name: 'tsdb_mito_flush_bytes_total',
  help: 'Bytes of SST files written by flushes',
  registers,
});

export const flushFilesTotal = new Counter({
  name: 'tsdb_mito_flush_files_total',
  help: 'SST files written by flushes',
  registers,
});

export const compactionRequestsTotal = new Counter({
  name: 'tsdb_mito_compaction_requests_total',
  help: 'Region compactions started (after a flush or by ADMIN compact_table)',
  registers,
});

export const compactionFailureTotal = new Counter({
  name: 'tsdb_mito_compaction_failure_total',
  help: 'Region compactions that failed',
  registers,
});

export const compactionElapsed = new Histogram({
  name: 'tsdb_mito_compaction_total_elapsed',
  help: 'Region compaction latency in seconds (the whole job)',
  buckets: [...REQUEST_BUCKETS],
  registers,
});

export const compactionOutputBytesTotal = new Counter({
  name: 'tsdb_mito_compaction_output_bytes_total',
  help: 'Bytes of SST files written by compactions',
  registers,
});

export const compactionInputFilesTotal = new Counter({
  name: 'tsdb_mito_compaction_input_files_total',
  help: 'SST files removed by compactions (merged, or dropped past the TTL)',
  registers,
});

export const walFsyncElapsed = new Histogram({
  name: 'tsdb_mito_wal_fsync_elapsed',
  help: 'Latency in seconds of the WAL data syncs (wal.sync_write) that make writes durable',
  buckets: [...FSYNC_BUCKETS],
  registers,
});

/** What one cache holds; counts are since the engine opened. */
export interface CacheSnapshot {
  readonly type: string;
  readonly bytes: number;
  readonly hits?: number;
  readonly misses?: number;
}

/** The state of one engine at a scrape. */
export interface EngineSnapshot {
  readonly regions: number;
  readonly writeBufferBytes: number;
  readonly memtableRows: number;
  readonly walBytes: number;
  readonly walSegments: number;
  /** Bytes appended to the WAL since the engine opened. */
  readonly walWrittenBytes: number;
  readonly sstFiles: number;
  readonly sstBytes: number;
  readonly caches: readonly CacheSnapshot[];
}

/** An engine of this process, read at each scrape. */
export interface EngineMetricsSource {
  snapshot(): EngineSnapshot;
}

const sources = new Set<EngineMetricsSource>();

/** Adds an engine to what the gauges read; returns the function that removes it (at close). */
export function registerEngineSource(source: EngineMetricsSource): () => void {
  sources.add(source);
  return () => {
    sources.delete(source);
  };
}

/**
 * The snapshots of every engine, taken once per scrape: a scrape calls every collect in one turn
 * of the event loop, so the first one takes the snapshots and the others of that turn reuse them.
 */
let cached: EngineSnapshot[] | undefined;
function snapshots(): EngineSnapshot[] {
  if (cached === undefined) {
    cached = [...sources].map((s) => s.snapshot());
    setImmediate(() => (cached = undefined));
  }
  return cached;
}

function sum(pick: (s: EngineSnapshot) => number): number {
  let n = 0;
  for (const s of snapshots()) n += pick(s);
  return n;
}

function scrapedGauge(name: string, help: string, pick: (s: EngineSnapshot) => number): Gauge {
  return new Gauge({
    name,
    help,
    registers,
    collect() {
      this.set(sum(pick));
    },
  });
}

scrapedGauge('tsdb_mito_region_count', 'Regions open in this process', (s) => s.regions);
scrapedGauge('tsdb_mito_write_buffer_bytes', 'Bytes held by memtables (mutable and frozen)', (s) => s.writeBufferBytes);
scrapedGauge('tsdb_mito_memtable_rows', 'Rows held by memtables, not yet flushed', (s) => s.memtableRows);
scrapedGauge('tsdb_mito_wal_bytes', 'Bytes of the WAL segments on disk', (s) => s.walBytes);
scrapedGauge('tsdb_mito_wal_segments', 'WAL segment files on disk', (s) => s.walSegments);
scrapedGauge('tsdb_mito_sst_files', 'SST files of the open regions', (s) => s.sstFiles);
scrapedGauge('tsdb_mito_sst_bytes', 'Bytes of the SST files of the open regions', (s) => s.sstBytes);

new Counter({
  name: 'tsdb_mito_wal_write_bytes_total',
  help: 'Bytes appended to the WAL',
  registers,
  collect() {
    this.reset();
    this.inc(sum((s) => s.walWrittenBytes));
  },
});

/** Per-cache figures summed over engines: the values of one label set. */
function byCache(pick: (c: CacheSnapshot) => number | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of snapshots()) {
    for (const c of s.caches) {
      const v = pick(c);
      if (v !== undefined) out.set(c.type, (out.get(c.type) ?? 0) + v);
    }
  }
  return out;
}

new Gauge({
  name: 'tsdb_mito_cache_bytes',
  help: 'Bytes held by each engine cache (vector: merged memtable rows; last_row: SST files\' last rows; index: inverted indexes; file: local copies of object-store files, per storage provider)',
  labelNames: ['type'] as const,
  registers,
  collect() {
    this.reset();
    for (const [type, v] of byCache((c) => c.bytes)) this.set({ type }, v);
  },
});

// Counters read from the caches' own counts (monotonic while the engine is open): rendered
// afresh at each scrape.
new Counter({
  name: 'tsdb_mito_cache_hit',
  help: 'Lookups that found their entry, by cache',
  labelNames: ['type'] as const,
  registers,
  collect() {
    this.reset();
    for (const [type, v] of byCache((c) => c.hits)) this.inc({ type }, v);
  },
});

new Counter({
  name: 'tsdb_mito_cache_miss',
  help: 'Lookups that did not find their entry, by cache',
  labelNames: ['type'] as const,
  registers,
  collect() {
    this.reset();
    for (const [type, v] of byCache((c) => c.misses)) this.inc({ type }, v);
  },
});
