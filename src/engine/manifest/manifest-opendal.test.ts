import { join } from 'node:path';
import { tempDir } from '../../../test/support/temp.js';
import { OpendalObjectStore } from '../../storage/opendal-object-store.js';
import { runManifestSuite } from './manifest.suite.js';

// The manifest on the real File store (OpenDAL fs, atomic writes), as a region on File storage uses it.
runManifestSuite('the OpenDAL fs store', async (t) => {
  const dir = tempDir(t);
  return OpendalObjectStore.fs(join(dir, 'data'), join(dir, '.tmp'));
}, { interleaved: false });
