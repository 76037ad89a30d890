/** Region engine options for tests: a small engine in `dir`, on the local file system. */
import { join } from 'node:path';
import { silentLogger } from '../../src/common/logging.js';
import { MIB } from '../../src/common/size/size.js';
import type { RegionMetadata, RegionOptions } from '../../src/types/region-metadata.js';
import type { RegionId } from '../../src/types/region-id.js';
import type { RegionEngineOptions } from '../../src/engine/region-engine.js';
import { OpendalObjectStore } from '../../src/storage/opendal-object-store.js';
import { FileCache } from '../../src/storage/file-cache.js';
import { CachedStorageProvider, FileStorageProvider, StorageProviders } from '../../src/storage/storage-provider.js';

export function testEngineOptions(dir: string, over: Partial<RegionEngineOptions> = {}): RegionEngineOptions {
  return {
    wal: { dir: join(dir, 'wal'), fileSize: 64 * MIB, syncWrite: false, readBatchSize: 128, purgeInterval: 0, purgeThreshold: 4 * 2 ** 30 },
    globalWriteBufferSize: 64 * MIB,
    globalWriteBufferRejectSize: 128 * MIB,
    manifestCheckpointDistance: 10,
    maxBackgroundJobs: 2,
    autoFlushInterval: 0,
    scanParallelism: 1,
    storage: fileStorage(dir),
    logger: silentLogger(),
    ...over,
  };
}

/** File storage under `dir` (`{dir}/data`, writes through `{dir}/.tmp`) as the engine's only provider, named `File`. */
export function fileStorage(dir: string): StorageProviders {
  return StorageProviders.single(new FileStorageProvider('File', OpendalObjectStore.fs(join(dir, 'data'), join(dir, '.tmp'))));
}

/**
 * An S3 bucket and root (an OpenDAL `s3` config, e.g. s3rver's) as the engine's only provider,
 * named `S3`, through a file cache in `{dir}/cache` of `capacity` bytes.
 */
export async function s3Storage(dir: string, s3: Record<string, string>, capacity = 64 * MIB): Promise<StorageProviders> {
  const store = new OpendalObjectStore({ scheme: 's3', config: s3, description: `S3(${s3['bucket']}/${s3['root']})` });
  const cache = await FileCache.open({ dir: join(dir, 'cache'), capacity, store, logger: silentLogger() });
  return StorageProviders.single(new CachedStorageProvider('S3', store, cache, 5 * MIB));
}

/** A region of columns host (String tag), ts (ms time index), cpu (Float64), with these options. */
export function cpuRegionMetadata(id: RegionId, options: Partial<RegionOptions> = {}): RegionMetadata {
  return {
    region_id: String(id),
    schema_version: 0,
    columns: [
      { column_id: 0, name: 'host', type: 'String', semantic_type: 'tag', nullable: true },
      { column_id: 1, name: 'ts', type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false },
      { column_id: 2, name: 'cpu', type: 'Float64', semantic_type: 'field', nullable: true },
    ],
    primary_key: [0],
    time_index: 1,
    options: { append_mode: false, merge_mode: 'last_row', ...options },
  };
}
