import { runKvBackendSuite } from './kv-backend.suite.js';
import { MemoryKvBackend } from './memory-kv-backend.js';

runKvBackendSuite('memory', async (t) => {
  const kv = new MemoryKvBackend();
  t.after(() => kv.close());
  return kv;
});
