/** Region engine options for tests: a small engine in `dir`, on the local file system. */
import { join } from 'node:path';
import { silentLogger } from '../../src/common/logging.js';
import { MIB } from '../../src/common/size/size.js';
import type { RegionEngineOptions } from '../../src/engine/region-engine.js';
import { OpendalObjectStore } from '../../src/storage/opendal-object-store.js';
import { FileStorageProvider, StorageProviders } from '../../src/storage/storage-provider.js';

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
