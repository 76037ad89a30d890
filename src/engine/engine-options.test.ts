import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../common/logging.js';
import { GIB, MIB } from '../common/size/size.js';
import { loadConfig } from '../config/load.js';
import { fileStorage } from '../../test/support/engine.js';
import { tempDir } from '../../test/support/temp.js';
import { engineOptions } from './engine-options.js';

test('the engine takes its options from [wal] and [region_engine.mito]', (t) => {
  const env = {
    TSDB_STANDALONE__STORAGE__DATA_HOME: '/srv/t',
    TSDB_STANDALONE__WAL__SYNC_WRITE: 'true',
    TSDB_STANDALONE__WAL__FILE_SIZE: '128MB',
    TSDB_STANDALONE__REGION_ENGINE__MITO__MAX_BACKGROUND_JOBS: '2',
    TSDB_STANDALONE__REGION_ENGINE__MITO__SST_META_CACHE_SIZE: '0',
    TSDB_STANDALONE__REGION_ENGINE__MITO__MEMTABLE__TYPE: 'partition_tree',
    TSDB_STANDALONE__REGION_ENGINE__MITO__MEMTABLE__DATA_FREEZE_THRESHOLD: '1000',
  };
  const { config } = loadConfig({ component: 'standalone', env, system: { totalMemory: 16 * GIB, cpus: 8 } });
  const opts = engineOptions(config, fileStorage(tempDir(t)), silentLogger(), { totalMemory: 16 * GIB });
  assert.deepEqual(opts.wal, { dir: '/srv/t/wal', fileSize: 128 * MIB, syncWrite: true, readBatchSize: 128, purgeInterval: 600_000, purgeThreshold: 4 * GIB });
  assert.equal(opts.globalWriteBufferSize, GIB);
  assert.equal(opts.globalWriteBufferRejectSize, 2 * GIB);
  assert.equal(opts.maxBackgroundJobs, 2);
  assert.equal(opts.numWorkers, 8);
  assert.equal(opts.vectorCacheSize, 512 * MIB);
  assert.equal(opts.manifestCheckpointDistance, 10);
  assert.equal(opts.autoFlushInterval, 3_600_000);
  assert.equal(opts.scanParallelism, 2, 'a quarter of 8 cores');
  assert.equal(opts.sstMetaCache, false);
  assert.equal(opts.pageCache, true);
  assert.deepEqual(opts.memtable, { type: 'partition_tree', indexMaxKeysPerShard: 8192, dataFreezeThreshold: 1000, forkDictionaryBytes: GIB });
  assert.equal(opts.memoryLimit, 2 * GIB, 'an eighth of the memory (flushes and compactions; queries have their own budget)');
  assert.equal(opts.spillDir, '/srv/t/tmp/duckdb/engine');
});
