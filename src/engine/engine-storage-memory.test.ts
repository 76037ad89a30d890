/**
 * The engine storage suite on an object store in memory behind the file cache: the cached path
 * without a server (the same suite runs on real servers: engine-storage-*.test.ts).
 */
import { join } from 'node:path';
import { MemoryObjectStore } from '../../test/support/memory-object-store.js';
import { silentLogger } from '../common/logging.js';
import { FileCache } from '../storage/file-cache.js';
import { CachedStorageProvider, StorageProviders } from '../storage/storage-provider.js';
import { runEngineStorageSuite } from './engine-storage.suite.js';

const stores = new Map<string, MemoryObjectStore>();

runEngineStorageSuite('an object store in memory', () => ({
  cached: true,
  open: async (dir, root, capacity = 64 * 1024 * 1024) => {
    const store = stores.get(root) ?? new MemoryObjectStore(root);
    stores.set(root, store);
    const cache = await FileCache.open({ dir: join(dir, 'cache'), capacity, store, logger: silentLogger() });
    return StorageProviders.single(new CachedStorageProvider('Memory', store, cache, 5 * 1024 * 1024));
  },
}));
