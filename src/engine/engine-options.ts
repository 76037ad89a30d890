/**
 * From the configuration (`[wal]`, `[region_engine.mito]`) to the region engine's options: the one
 * place that says which option drives what.
 */
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../common/logging.js';
import type { MitoOptions, WalOptions } from '../config/options.js';
import type { StorageProviders } from '../storage/storage-provider.js';
import type { RegionEngineOptions } from './region-engine.js';

/**
 * Share of the machine's memory the engine's DuckDB may use for flushes and compactions (past it
 * they spill). Queries have their own DuckDB and budget (`query.memory_pool_size`).
 */
const DUCKDB_MEMORY_SHARE = 1 / 8;

export function engineOptions(
  config: { readonly wal: WalOptions; readonly region_engine: { readonly mito: MitoOptions }; readonly storage?: { readonly data_home: string } },
  storage: StorageProviders,
  logger: Logger,
  system: { readonly totalMemory: number } = { totalMemory: totalmem() },
): RegionEngineOptions {
  const wal = config.wal;
  const mito = config.region_engine.mito;
  return {
    wal: {
      dir: wal.dir,
      fileSize: wal.file_size,
      syncWrite: wal.sync_write,
      readBatchSize: wal.read_batch_size,
      purgeInterval: wal.purge_interval,
      purgeThreshold: wal.purge_threshold,
    },
    globalWriteBufferSize: mito.global_write_buffer_size,
    globalWriteBufferRejectSize: mito.global_write_buffer_reject_size,
    manifestCheckpointDistance: mito.manifest_checkpoint_distance,
    maxBackgroundJobs: mito.max_background_jobs,
    numWorkers: mito.num_workers,
    vectorCacheSize: mito.vector_cache_size,
    autoFlushInterval: mito.auto_flush_interval,
    scanParallelism: mito.scan_parallelism,
    // A compaction's merge of large files spills under data_home instead of growing until the
    // machine runs out of memory.
    memoryLimit: Math.floor(system.totalMemory * DUCKDB_MEMORY_SHARE),
    ...(config.storage !== undefined && { spillDir: engineSpillDir(config.storage.data_home) }),
    sstMetaCache: mito.sst_meta_cache_size > 0,
    pageCache: mito.page_cache_size > 0,
    invertedIndex: {
      createOnFlush: mito.inverted_index.create_on_flush === 'auto',
      createOnCompaction: mito.inverted_index.create_on_compaction === 'auto',
      applyOnQuery: mito.inverted_index.apply_on_query === 'auto',
      memThreshold: mito.inverted_index.mem_threshold_on_create,
      intermediateDir: mito.inverted_index.intermediate_path ?? join(config.storage?.data_home ?? tmpdir(), 'index_intermediate'),
    },
    memtable: {
      type: mito.memtable.type,
      indexMaxKeysPerShard: mito.memtable.index_max_keys_per_shard,
      dataFreezeThreshold: mito.memtable.data_freeze_threshold,
      forkDictionaryBytes: mito.memtable.fork_dictionary_bytes,
    },
    storage,
    logger,
  };
}

/** Where DuckDB spills: `{data_home}/tmp/duckdb`, the engine's in `engine/`, queries' in `query/`. */
export function engineSpillDir(dataHome: string): string {
  return join(dataHome, 'tmp', 'duckdb', 'engine');
}

export function querySpillDir(dataHome: string): string {
  return join(dataHome, 'tmp', 'duckdb', 'query');
}
