/** What the engine crash test and its child share: the engine options and the region. */
import { join } from 'node:path';
import { silentLogger } from '../../src/common/logging.js';
import { MIB } from '../../src/common/size/size.js';
import { DEFAULT_MEMTABLE_OPTIONS, type MemtableOptions } from '../../src/engine/memtable/memtable.js';
import type { RegionMetadata } from '../../src/types/region-metadata.js';
import { regionId } from '../../src/types/region-id.js';
import type { RegionEngineOptions } from '../../src/engine/region-engine.js';
import type { StorageProviders } from '../../src/storage/storage-provider.js';
import { fileStorage, s3Storage } from './engine.js';

export const CRASH_REGION = regionId(3000, 0);
export const CRASH_DIR = 'data/crash/3000_0000000000/';

export function crashMetadata(): RegionMetadata {
  return {
    region_id: String(CRASH_REGION),
    schema_version: 0,
    columns: [
      { column_id: 0, name: 'writer', type: 'String', semantic_type: 'tag', nullable: true },
      { column_id: 1, name: 'ts', type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
      { column_id: 2, name: 'batch', type: 'Float64', semantic_type: 'field', nullable: true },
    ],
    primary_key: [0],
    time_index: 1,
    // Append mode keeps duplicates: a batch present twice (replayed over a flushed file) would show.
    options: { append_mode: true, merge_mode: 'last_row', compaction_time_window: 60_000, compaction_trigger_file_num: 2 },
  };
}

/**
 * Small WAL segments, a checkpoint at every manifest update, compactions after every flush; the
 * memtable kind given (partition_tree with small shards and parts).
 */
export function crashEngineOptions(dir: string, memtable: MemtableOptions['type'], storage: StorageProviders = fileStorage(dir)): RegionEngineOptions {
  return {
    memtable: { ...DEFAULT_MEMTABLE_OPTIONS, type: memtable, indexMaxKeysPerShard: 4, dataFreezeThreshold: 64 },
    wal: { dir: join(dir, 'wal'), fileSize: 64 * 1024, syncWrite: false, readBatchSize: 32, purgeInterval: 50, purgeThreshold: 1 << 30 },
    globalWriteBufferSize: 64 * MIB,
    globalWriteBufferRejectSize: 128 * MIB,
    manifestCheckpointDistance: 1,
    maxBackgroundJobs: 2,
    autoFlushInterval: 0,
    scanParallelism: 1,
    storage,
    logger: silentLogger(),
  };
}

/**
 * The crash test's storage: File under `dir`, or, given an OpenDAL `s3` config, that bucket and root
 * through a file cache in `{dir}/cache` (which survives the kills, as a server's would).
 */
export async function crashStorage(dir: string, s3?: Record<string, string>): Promise<StorageProviders> {
  return s3 === undefined ? fileStorage(dir) : s3Storage(dir, s3);
}
