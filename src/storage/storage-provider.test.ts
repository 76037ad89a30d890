import assert from 'node:assert/strict';
import { existsSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MemoryObjectStore } from '../../test/support/memory-object-store.js';
import { tempDir } from '../../test/support/temp.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { silentLogger } from '../common/logging.js';
import type { StorageOptions } from '../config/options.js';
import { FileCache } from './file-cache.js';
import type { ObjectStore } from './object-store.js';
import { OpendalObjectStore } from './opendal-object-store.js';
import { CachedStorageProvider, cacheDirName, FileStorageProvider, openStorageProviders, StorageProviders } from './storage-provider.js';

function isStorageError(...parts: string[]) {
  return (err: unknown) => {
    assert.ok(err instanceof TsdbError, String(err));
    assert.equal(err.code, StatusCode.StorageUnavailable);
    for (const p of parts) assert.ok(err.message.includes(p), `${err.message} should name ${p}`);
    return true;
  };
}

test('File: a new file is written in place; open checks it against the size the manifest records', async (t) => {
  const dir = tempDir(t);
  const store = OpendalObjectStore.fs(join(dir, 'data'), join(dir, '.tmp'));
  const p = new FileStorageProvider('File', store);
  const local = await p.newFile('r/1/a.parquet');
  assert.equal(local, join(dir, 'data', 'r/1/a.parquet'));
  writeFileSync(local, 'PAR1 0123456789 PAR1');
  await p.publish();
  const opened = await p.open('r/1/a.parquet', 20);
  assert.equal(opened.path, local);
  opened.release();
  assert.deepEqual(p.localDirs, [join(dir, 'data')]);
  truncateSync(local, 10);
  await assert.rejects(p.open('r/1/a.parquet', 20), isStorageError('r/1/a.parquet', store.description, '10 bytes', '20'));
  await p.delete('r/1/a.parquet');
  await assert.rejects(p.open('r/1/a.parquet', 20), isStorageError('r/1/a.parquet', store.description, 'missing'));
  assert.equal(p.cacheStats(), undefined);
});

test('an object store: a written file is uploaded and kept; a delete removes the object and the copy', async (t) => {
  const dir = tempDir(t);
  const store = new MemoryObjectStore('s3');
  const cache = await FileCache.open({ dir: join(dir, 'cache'), capacity: 1 << 20, store, logger: silentLogger() });
  t.after(() => cache.close());
  const p = new CachedStorageProvider('s3', store, cache, 5 << 20);
  const local = await p.newFile('r/1/a.parquet');
  assert.ok(local.startsWith(join(dir, 'cache')), local);
  writeFileSync(local, 'x'.repeat(100));
  await p.publish('r/1/a.parquet', local);
  assert.deepEqual(store.paths(), ['r/1/a.parquet']);
  const opened = await p.open('r/1/a.parquet', 100);
  assert.equal(opened.path, join(dir, 'cache', 'r/1/a.parquet'));
  opened.release();
  assert.equal(p.cacheStats().downloads, 0, 'write-through: no download');
  await p.delete('r/1/a.parquet');
  await cache.idle();
  assert.deepEqual(store.paths(), []);
  assert.equal(existsSync(join(dir, 'cache', 'r/1/a.parquet')), false);
});

test('an object store: a wait for a download stopped by the statement says what it waited for', async (t) => {
  const dir = tempDir(t);
  const inner = new MemoryObjectStore('s3');
  await inner.write('r/1/a.parquet', new Uint8Array(10));
  // A store that never answers a download.
  const hung: ObjectStore = Object.assign(Object.create(inner) as ObjectStore, {
    download: (_p: string, _f: string, signal?: AbortSignal) => new Promise<number>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
  });
  const cache = await FileCache.open({ dir: join(dir, 'cache'), capacity: 1 << 20, store: hung, logger: silentLogger() });
  t.after(() => cache.close());
  const p = new CachedStorageProvider('s3', hung, cache, 5 << 20);
  const controller = new AbortController();
  const opening = p.open('r/1/a.parquet', 10, controller.signal);
  controller.abort(new TsdbError(StatusCode.DeadlineExceeded, 'Query timed out after 2s'));
  await assert.rejects(opening, (err: unknown) => {
    assert.ok(err instanceof TsdbError);
    assert.equal(err.code, StatusCode.DeadlineExceeded);
    assert.equal(err.message, `Query timed out after 2s (while waiting for r/1/a.parquet from ${hung.description})`);
    return true;
  });
});

test('providers by name: the default one, an unknown name refused with the configured ones', async (t) => {
  const dir = tempDir(t);
  const file = new FileStorageProvider('File', OpendalObjectStore.fs(join(dir, 'data'), join(dir, '.tmp')));
  const providers = StorageProviders.single(file);
  assert.equal(providers.get(), file);
  assert.equal(providers.get('File'), file);
  assert.throws(() => providers.get('s3'), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.InvalidArguments && /Object store not found: s3 \(configured: File\)/.test(err.message));
  assert.throws(() => new StorageProviders('S3', new Map([['File', file]])), /not among the providers/);
});

test('cache directory names: letters, digits, _ and - kept, the rest escaped (no name leaves cache_path)', () => {
  assert.equal(cacheDirName('s3-archive_1'), 's3-archive_1');
  assert.equal(cacheDirName('..'), '%2E%2E');
  assert.equal(cacheDirName('a/b'), 'a%2Fb');
  assert.equal(cacheDirName('x y'), 'x%20y');
});

test('openStorageProviders: File and an object store with its cache in {cache_path}/{name}; nothing is asked of the store', async (t) => {
  const dir = tempDir(t);
  const storage = {
    data_home: dir,
    type: 'File',
    providers: [
      // Nothing listens on port 9: opening must not need the store.
      { name: 'cold archive', type: 'S3', bucket: 'b', root: 'r', endpoint: 'http://127.0.0.1:9', region: 'us-east-1', cache_path: join(dir, 'cc'), cache_capacity: 1 << 20 },
    ],
  } as unknown as StorageOptions;
  const providers = await openStorageProviders(storage, { partSize: 5 << 20, logger: silentLogger() });
  t.after(() => providers.close());
  assert.deepEqual(providers.names(), ['File', 'cold archive']);
  assert.equal(providers.get().name, 'File');
  assert.ok(providers.get('File') instanceof FileStorageProvider);
  const s3 = providers.get('cold archive');
  assert.ok(s3 instanceof CachedStorageProvider);
  assert.equal(s3.store.description, 'S3(b/r)');
  assert.deepEqual(providers.localDirs(), [join(dir, 'data'), join(dir, 'cc', 'cold%20archive')]);
  assert.equal(s3.cacheStats().capacity, 1 << 20);
});
