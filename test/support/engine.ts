/** Region engine options for tests: a small engine in `dir`, on the local file system. */
import { join } from 'node:path';
import { silentLogger } from '../../src/common/logging.js';
import { MIB } from '../../src/common/size/size.js';
import type { RegionEngineOptions } from '../../src/engine/region-engine.js';
import { OpendalObjectStore } from '../../src/storage/opendal-object-store.js';

export function testEngineOptions(dir: string, over: Partial<RegionEngineOptions> = {}): RegionEngineOptions {
  return {
    wal: { dir: join(dir, 'wal'), fileSize: 64 * MIB, syncWrite: false, readBatchSize: 128, purgeInterval: 0, purgeThreshold: 4 * 2 ** 30 },
    globalWriteBufferSize: 64 * MIB,
    globalWriteBufferRejectSize: 128 * MIB,
    manifestCheckpointDistance: 10,
    maxBackgroundJobs: 2,
    autoFlushInterval: 0,
    scanParallelism: 1,
    store: OpendalObjectStore.fs(join(dir, 'data'), join(dir, '.tmp')),
    logger: silentLogger(),
    ...over,
  };
}
