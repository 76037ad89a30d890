/**
 * What an engine shows at a `/metrics` scrape (common/metrics/engine-metrics.ts,
 * common/metrics/table-series.ts): read from state the engine keeps anyway — region file lists,
 * memtable statistics, WAL sizes, cache counters — once per scrape, never on the write path.
 */
import { registerEngineSource, type CacheSnapshot, type EngineSnapshot } from '../common/metrics/engine-metrics.js';
import { registerSeriesSource } from '../common/metrics/table-series.js';
import type { StorageProviders } from '../storage/storage-provider.js';
import type { RegionId } from '../types/region-id.js';
import type { WriteBufferManager } from './flush/write-buffer-manager.js';
import type { IndexCache } from './read/index-cache.js';
import type { LastRowCache } from './read/last-row-cache.js';
import type { VectorCache } from './read/vector-cache.js';
import type { Region } from './region/region.js';
import type { Wal } from './wal/wal.js';

export interface EngineParts {
  readonly regions: ReadonlyMap<RegionId, Region>;
  readonly wal: Wal;
  readonly writeBuffer: WriteBufferManager;
  readonly vectorCache: VectorCache;
  readonly lastRows?: LastRowCache;
  readonly indexCache: IndexCache;
  readonly storage: StorageProviders;
}

export function engineSnapshot(p: EngineParts): EngineSnapshot {
  let sstFiles = 0;
  let sstBytes = 0;
  let memtableRows = 0;
  for (const r of p.regions.values()) {
    for (const f of r.files()) {
      sstFiles++;
      sstBytes += f.file_size + (f.index_file_size ?? 0);
    }
    memtableRows += r.memtableRows();
  }
  const caches: CacheSnapshot[] = [];
  const v = p.vectorCache.stats();
  caches.push({ type: 'vector', bytes: v.bytes, hits: v.hits, misses: v.misses });
  if (p.lastRows !== undefined) {
    const l = p.lastRows.stats();
    caches.push({ type: 'last_row', bytes: l.bytes, hits: l.hits, misses: l.misses });
  }
  const ix = p.indexCache.stats();
  caches.push({ type: 'index', bytes: ix.bytes, hits: ix.hits, misses: ix.misses });
  for (const name of p.storage.names()) {
    const c = p.storage.get(name).cacheStats();
    if (c !== undefined) caches.push({ type: `file:${name}`, bytes: c.bytes, hits: c.hits, misses: c.misses });
  }
  return {
    regions: p.regions.size,
    writeBufferBytes: p.writeBuffer.totalBytes(),
    memtableRows,
    walBytes: p.wal.totalSize(),
    walSegments: p.wal.segmentCount(),
    walWrittenBytes: p.wal.stats.bytes,
    sstFiles,
    sstBytes,
    caches,
  };
}

/** Registers the engine with the scrape-time metrics; returns the function that unregisters it. */
export function registerEngineMetrics(p: EngineParts): () => void {
  const offEngine = registerEngineSource({ snapshot: () => engineSnapshot(p) });
  const offSeries = registerSeriesSource({
    *regionSeries() {
      for (const [id, r] of p.regions) yield [id, r.activeSeries(), r.activeSeriesByTable()] as const;
    },
  });
  return () => {
    offEngine();
    offSeries();
  };
}
