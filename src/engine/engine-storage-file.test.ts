/** The engine storage suite on File storage (objects are the files DuckDB reads). */
import { fileStorage } from '../../test/support/engine.js';
import { runEngineStorageSuite } from './engine-storage.suite.js';

runEngineStorageSuite('File', () => ({ cached: false, open: async (dir) => fileStorage(dir) }));
