import { MemoryObjectStore } from '../../../test/support/memory-object-store.js';
import { runManifestSuite } from './manifest.suite.js';

runManifestSuite('a memory store', () => new MemoryObjectStore());
