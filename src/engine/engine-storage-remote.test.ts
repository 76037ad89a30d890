/**
 * The engine storage suite on every object-storage provider, each on a server the test starts:
 * S3 (s3rver), Azure Blob (azurite), GCS and OSS (the fakes of test/support/object-servers.ts).
 * The stores are built from tsdb's own storage keys, as a server builds them.
 */
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { startStorageServer, type RemoteStorageType, type StorageServer } from '../../test/support/object-servers.js';
import { silentLogger } from '../common/logging.js';
import type { ObjectStoreOptions } from '../storage/create-object-store.js';
import { createObjectStore } from '../storage/create-object-store.js';
import { FileCache } from '../storage/file-cache.js';
import { CachedStorageProvider, StorageProviders } from '../storage/storage-provider.js';
import { runEngineStorageSuite } from './engine-storage.suite.js';

for (const type of ['S3', 'Azblob', 'Gcs', 'Oss'] as const satisfies readonly RemoteStorageType[]) {
  describe(`${type} on its test server`, () => {
    let server: StorageServer | undefined;
    before(async () => {
      server = await startStorageServer(type);
    });
    after(() => server?.stop());
    runEngineStorageSuite(type, () => ({
      cached: true,
      open: async (dir, root, capacity = 64 * 1024 * 1024) => {
        const options = { ...server!.storage(root), data_home: dir } as unknown as ObjectStoreOptions;
        const store = createObjectStore(options);
        const cache = await FileCache.open({ dir: join(dir, 'cache'), capacity, store, logger: silentLogger() });
        return StorageProviders.single(new CachedStorageProvider(type, store, cache, 5 * 1024 * 1024));
      },
    }));
  });
}
