import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { writeFile } from 'node:fs/promises';
import pino from 'pino';
import { MemoryObjectStore } from '../../test/support/memory-object-store.js';
import { tempDir } from '../../test/support/temp.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { silentLogger } from '../common/logging.js';
import { FileCache, type CachedFile } from './file-cache.js';
import { OpendalObjectStore } from './opendal-object-store.js';

/** A memory store whose downloads can be held at a gate, made to fail, and are counted. */
class TestStore extends MemoryObjectStore {
  readonly downloadCount = new Map<string, number>();
  /** Failures of the next downloads, in order: an error to throw, after writing `partial` bytes when given. */
  readonly failures: { err: unknown; partial?: string }[] = [];
  private gate: Promise<void> | undefined;
  private opened: (() => void) | undefined;

  /** Holds every download until the returned function is called. */
  hold(): () => void {
    this.gate = new Promise((resolve) => (this.opened = resolve));
    return () => {
      this.gate = undefined;
      this.opened?.();
    };
  }

  downloadsOf(path: string): number {
    return this.downloadCount.get(path) ?? 0;
  }

  override async download(path: string, localFile: string, signal?: AbortSignal): Promise<number> {
    this.downloadCount.set(path, this.downloadsOf(path) + 1);
    if (this.gate !== undefined) {
      // Held, as a store that does not answer; the signal still stops it, as OpenDAL's does.
      const gate = this.gate;
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => reject(signal?.reason);
        signal?.addEventListener('abort', onAbort, { once: true });
        void gate.then(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    }
    const failure = this.failures.shift();
    if (failure !== undefined) {
      if (failure.partial !== undefined) await writeFile(localFile, failure.partial);
      throw failure.err;
    }
    return super.download(path, localFile, signal);
  }
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

async function setup(t: TestContext, capacity: number, store = new TestStore('bucket')): Promise<{ cache: FileCache; store: TestStore; dir: string }> {
  const dir = join(tempDir(t), 'cache');
  const cache = await FileCache.open({ dir, capacity, store, logger: silentLogger() });
  t.after(() => cache.close());
  return { cache, store, dir };
}

/** Objects of `size` bytes named by their paths. */
async function putObjects(store: MemoryObjectStore, size: number, ...paths: string[]): Promise<void> {
  for (const p of paths) await store.write(p, enc(p.padEnd(size, '.').slice(0, size)));
}

async function pinAndRead(cache: FileCache, path: string, size: number): Promise<string> {
  const file = await cache.pin(path, size);
  try {
    return readFileSync(file.path, 'utf8');
  } finally {
    file.release();
  }
}

function cachedPaths(cache: FileCache): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const d of readdirSync(join(cache.dir, rel), { withFileTypes: true })) {
      if (rel === '' && d.name.startsWith('.')) continue;
      if (d.isDirectory()) walk(`${rel}${d.name}/`);
      else out.push(rel + d.name);
    }
  };
  walk('');
  return out.sort();
}

function leftovers(cache: FileCache): string[] {
  return [...readdirSync(join(cache.dir, '.partial')), ...readdirSync(join(cache.dir, '.staging'))];
}

/** Lets pins and downloads started just before reach the store (no file work). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('FileCache', () => {
  test('a miss downloads into {dir}/{objectPath}; the next pin is a hit', async (t) => {
    const { cache, store } = await setup(t, 1000);
    await store.write('region/1/a.parquet', enc('0123456789'));
    const first = await cache.pin('region/1/a.parquet', 10);
    assert.equal(first.path, join(cache.dir, 'region/1/a.parquet'));
    assert.equal(readFileSync(first.path, 'utf8'), '0123456789');
    const second = await cache.pin('region/1/a.parquet', 10);
    assert.equal(second.path, first.path);
    assert.equal(store.downloadsOf('region/1/a.parquet'), 1);
    assert.deepEqual(cache.stats(), {
      files: 1, bytes: 10, capacity: 1000, pinned: 1, hits: 1, misses: 1, downloads: 1, downloadedBytes: 10, evictions: 0, evictedBytes: 0,
    });
    first.release();
    first.release(); // idempotent: one pin remains
    assert.equal(cache.stats().pinned, 1);
    second.release();
    assert.equal(cache.stats().pinned, 0);
    assert.deepEqual(leftovers(cache), []);
    assert.equal(readFileSync(join(cache.dir, '.store'), 'utf8'), 'Memory(bucket)');
  });

  test('concurrent pins of one object share one download', async (t) => {
    const { cache, store } = await setup(t, 1000);
    await putObjects(store, 50, 'r/x');
    const open = store.hold();
    const pins = Array.from({ length: 8 }, () => cache.pin('r/x', 50));
    await settle();
    assert.equal(store.downloadsOf('r/x'), 1);
    open();
    const files = await Promise.all(pins);
    assert.equal(new Set(files.map((f) => f.path)).size, 1);
    assert.equal(store.downloadsOf('r/x'), 1);
    const s = cache.stats();
    assert.deepEqual([s.downloads, s.misses, s.hits, s.pinned, s.files, s.bytes], [1, 8, 0, 1, 1, 50]);
    for (const f of files) f.release();
    assert.equal(cache.stats().pinned, 0);
  });

  test('a download of another size than the manifest records is an error naming both sizes, and leaves nothing', async (t) => {
    const { cache, store } = await setup(t, 1000);
    await store.write('r/short', enc('12345'));
    for (const expected of [9, 3]) {
      await assert.rejects(cache.pin('r/short', expected), (err: unknown) => {
        assert.ok(err instanceof TsdbError);
        assert.equal(err.code, StatusCode.StorageUnavailable);
        assert.match(err.message, new RegExp(`object r/short in Memory\\(bucket\\) has the wrong size: its download has 5 bytes where the manifest records ${expected}`));
        return true;
      });
    }
    await cache.idle();
    assert.deepEqual(cachedPaths(cache), []);
    assert.deepEqual(leftovers(cache), []);
    assert.equal(cache.stats().bytes, 0);
    assert.equal(cache.stats().pinned, 0);
    // Right size: downloaded again (nothing was kept).
    assert.equal(await pinAndRead(cache, 'r/short', 5), '12345');
    assert.equal(store.downloadsOf('r/short'), 3);
  });

  test('a cached copy of the wrong size is dropped and downloaded again; one in use is an error', async (t) => {
    const { cache, store } = await setup(t, 1000);
    await store.write('r/obj', enc('the-real-object'));
    // A stale copy of another size, written through.
    const staged = cache.stagingPath('obj');
    writeFileSync(staged, 'stale');
    await cache.add('r/obj', staged);
    assert.equal(cache.stats().bytes, 5);
    assert.equal(await pinAndRead(cache, 'r/obj', 15), 'the-real-object');
    assert.equal(store.downloadsOf('r/obj'), 1);
    assert.equal(cache.stats().bytes, 15);
    assert.equal(cache.stats().files, 1);
    // In use with 15 bytes: a pin expecting 7 is refused, the copy stays.
    const held = await cache.pin('r/obj', 15);
    await assert.rejects(cache.pin('r/obj', 7), /object r\/obj in Memory\(bucket\) has the wrong size: its cached copy, in use, has 15 bytes where the manifest records 7/);
    assert.equal(readFileSync(held.path, 'utf8'), 'the-real-object');
    held.release();
    assert.equal(cache.stats().pinned, 0);
  });

  test('a missing object is an error naming the object and the store; the next pin retries', async (t) => {
    const { cache, store } = await setup(t, 1000);
    await assert.rejects(cache.pin('region/1/x.parquet', 4), (err: unknown) => {
      assert.ok(err instanceof TsdbError);
      assert.equal(err.code, StatusCode.StorageUnavailable);
      assert.match(err.message, /^object region\/1\/x\.parquet is missing from Memory\(bucket\)/);
      return true;
    });
    await cache.idle();
    assert.deepEqual(leftovers(cache), []);
    await store.write('region/1/x.parquet', enc('PAR1'));
    assert.equal(await pinAndRead(cache, 'region/1/x.parquet', 4), 'PAR1');
    assert.equal(store.downloadsOf('region/1/x.parquet'), 2);
  });

  test("a store failure reaches every waiter as the store's own error, leaves nothing behind, and is retried", async (t) => {
    const { cache, store } = await setup(t, 1000);
    await putObjects(store, 20, 'r/f');
    const failure = new TsdbError(StatusCode.StorageUnavailable, 'S3(bucket/root): download r/f failed: connection reset');
    store.failures.push({ err: failure, partial: 'half written' });
    const open = store.hold();
    const pins = [cache.pin('r/f', 20), cache.pin('r/f', 20)];
    open();
    for (const result of await Promise.allSettled(pins)) {
      assert.equal(result.status, 'rejected');
      assert.equal(result.reason, failure);
    }
    await cache.idle();
    assert.deepEqual(leftovers(cache), []);
    assert.deepEqual(cachedPaths(cache), []);
    assert.deepEqual([cache.stats().pinned, cache.stats().bytes], [0, 0]);
    // A local failure (not a TsdbError) is wrapped with the store and the cache directory.
    store.failures.push({ err: Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }) });
    await assert.rejects(cache.pin('r/f', 20), /^TsdbError: file cache of Memory\(bucket\) in .*: download of r\/f failed: ENOSPC/);
    assert.equal((await pinAndRead(cache, 'r/f', 20)).length, 20);
    assert.equal(store.downloadsOf('r/f'), 3);
  });

  test('a waiter that pins again the moment it is answered gets an answer (it does not join the finished download)', async (t) => {
    const { cache, store } = await setup(t, 1000);
    await store.write('r/a', enc('12345'));
    const viaFailure = await new Promise<string>((resolve, reject) => {
      store.failures.push({ err: new TsdbError(StatusCode.StorageUnavailable, 'Memory(bucket): connection reset') });
      cache.pin('r/a', 5).then(
        () => reject(new Error('the first download should fail')),
        () => cache.pin('r/a', 5).then((f) => {
          f.release();
          resolve(f.path);
        }, reject),
      );
    });
    assert.equal(viaFailure, join(cache.dir, 'r/a'));
    await cache.remove('r/a');
    // Two pins of one download, one with the wrong size: answered with an error, it pins again
    // with the right one at once, and is served from the copy the download kept.
    const both = await new Promise<number>((resolve, reject) => {
      const right = cache.pin('r/a', 5);
      cache.pin('r/a', 6).then(
        () => reject(new Error('6 bytes should be refused')),
        () => cache.pin('r/a', 5).then((f) => {
          f.release();
          resolve(store.downloadsOf('r/a'));
        }, reject),
      );
      void right.then((f) => f.release());
    });
    assert.equal(both, 3);
    await cache.idle();
    assert.deepEqual([cache.stats().pinned, cache.stats().files], [0, 1]);
  });

  test('eviction is least recently used by bytes; a hit refreshes recency', async (t) => {
    const { cache, store } = await setup(t, 300);
    await putObjects(store, 100, 'r/a', 'r/b', 'r/c', 'r/d', 'r/e');
    for (const p of ['r/a', 'r/b', 'r/c']) await pinAndRead(cache, p, 100);
    assert.deepEqual(cachedPaths(cache), ['r/a', 'r/b', 'r/c']);
    const longAgo = new Date(Date.UTC(2020, 0, 1));
    utimesSync(join(cache.dir, 'r/a'), longAgo, longAgo);
    await pinAndRead(cache, 'r/a', 100); // hit: a is now the most recent
    await cache.idle();
    assert.ok(statSync(join(cache.dir, 'r/a')).mtimeMs > longAgo.getTime() + 1000, "a hit refreshes the copy's mtime (recency after a restart)");
    await pinAndRead(cache, 'r/d', 100); // evicts b
    await cache.idle();
    assert.deepEqual(cachedPaths(cache), ['r/a', 'r/c', 'r/d']);
    await pinAndRead(cache, 'r/e', 100); // evicts c
    await cache.idle();
    assert.deepEqual(cachedPaths(cache), ['r/a', 'r/d', 'r/e']);
    const s = cache.stats();
    assert.deepEqual([s.files, s.bytes, s.evictions, s.evictedBytes, s.hits, s.misses, s.downloadedBytes], [3, 300, 2, 200, 1, 5, 500]);
  });

  test('pinned copies are never evicted; they are once released', async (t) => {
    const { cache, store } = await setup(t, 200);
    await putObjects(store, 100, 'r/a', 'r/b', 'r/c', 'r/d');
    const a = await cache.pin('r/a', 100);
    const b = await cache.pin('r/b', 100);
    const c = await cache.pin('r/c', 100); // 300 > 200, all pinned
    assert.equal(cache.stats().bytes, 300);
    await pinAndRead(cache, 'r/d', 100); // nothing unpinned but d itself: d goes at its release
    await cache.idle();
    assert.deepEqual(cachedPaths(cache), ['r/a', 'r/b', 'r/c']);
    assert.equal(readFileSync(a.path, 'utf8').length, 100);
    c.release(); // 300 > 200: c is the only unpinned copy
    await cache.idle();
    assert.deepEqual(cachedPaths(cache), ['r/a', 'r/b']);
    a.release();
    b.release();
    await cache.idle();
    assert.deepEqual(cachedPaths(cache), ['r/a', 'r/b']);
    assert.deepEqual([cache.stats().bytes, cache.stats().evictions], [200, 2]);
  });

  test('a file larger than the capacity is downloaded and readable while pinned, and evicted at its last release', async (t) => {
    const { cache, store } = await setup(t, 100);
    await putObjects(store, 60, 'r/small');
    await putObjects(store, 250, 'r/big');
    await pinAndRead(cache, 'r/small', 60);
    const big1 = await cache.pin('r/big', 250);
    const big2 = await cache.pin('r/big', 250);
    await cache.idle();
    assert.deepEqual(cachedPaths(cache), ['r/big'], 'everything unpinned is evicted first');
    assert.equal(statSync(big1.path).size, 250);
    assert.deepEqual([cache.stats().bytes, cache.stats().pinned], [250, 1]);
    big1.release();
    assert.equal(readFileSync(big2.path, 'utf8').length, 250);
    big2.release();
    await cache.idle();
    assert.deepEqual(cachedPaths(cache), []);
    assert.deepEqual([cache.stats().bytes, cache.stats().files, cache.stats().evictions], [0, 0, 2]);
    // Written through, it is evicted at once: the remote object is the copy that counts.
    const staged = cache.stagingPath('big');
    writeFileSync(staged, 'x'.repeat(250));
    await cache.add('r/big2', staged);
    await cache.idle();
    assert.deepEqual(cachedPaths(cache), []);
    assert.equal(cache.stats().bytes, 0);
  });

  test('the cache survives a restart: index from the tree, recency from mtime, partial downloads and staged files discarded', async (t) => {
    const dir = join(tempDir(t), 'cache');
    const store = new TestStore('bucket');
    await putObjects(store, 100, 'r/1/a', 'r/1/b', 'r/2/c');
    const first = await FileCache.open({ dir, capacity: 1000, store, logger: silentLogger() });
    for (const p of ['r/1/a', 'r/1/b', 'r/2/c']) await pinAndRead(first, p, 100);
    await first.close();
    await assert.rejects(first.pin('r/1/a', 100), /the file cache of Memory\(bucket\) in .* is closed/);
    // Recency: b oldest, then c, then a.
    const at = (s: number): Date => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    utimesSync(join(dir, 'r/1/b'), at(1), at(1));
    utimesSync(join(dir, 'r/2/c'), at(2), at(2));
    utimesSync(join(dir, 'r/1/a'), at(3), at(3));
    writeFileSync(join(dir, '.partial', '7.part'), 'half');
    writeFileSync(join(dir, '.staging', '3-sst'), 'unfinished');
    mkdirSync(join(dir, 'r/empty/deeper'), { recursive: true });

    const second = await FileCache.open({ dir, capacity: 1000, store, logger: silentLogger() });
    t.after(() => second.close());
    assert.deepEqual(leftovers(second), []);
    assert.equal(existsSync(join(dir, 'r/empty')), false, 'empty directories are pruned');
    assert.deepEqual([second.stats().files, second.stats().bytes], [3, 300]);
    assert.equal(await pinAndRead(second, 'r/1/a', 100), 'r/1/a'.padEnd(100, '.'));
    assert.equal(store.downloadsOf('r/1/a'), 1, 'served from the copy kept across the restart');
    assert.equal(second.stats().hits, 1);
    await second.close();

    // A smaller capacity at the next start evicts the least recent by mtime: b first, then c.
    const third = await FileCache.open({ dir, capacity: 150, store, logger: silentLogger() });
    t.after(() => third.close());
    await third.idle();
    assert.deepEqual(cachedPaths(third), ['r/1/a']);
    assert.deepEqual([third.stats().files, third.stats().bytes, third.stats().evictions], [1, 100, 2]);
  });

  test('a cache directory of another store is wiped, so its copies are never served', async (t) => {
    const dir = join(tempDir(t), 'cache');
    const one = new TestStore('one');
    const two = new TestStore('two');
    await one.write('r/x', enc('from-one'));
    await two.write('r/x', enc('from-two'));
    const a = await FileCache.open({ dir, capacity: 1000, store: one, logger: silentLogger() });
    assert.equal(await pinAndRead(a, 'r/x', 8), 'from-one');
    await a.close();
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const b = await FileCache.open({ dir, capacity: 1000, store: two, logger });
    t.after(() => b.close());
    const wiped = lines.map((l) => JSON.parse(l) as { level: number; msg: string; recorded?: string }).find((l) => l.msg.includes('wiping'));
    assert.ok(wiped !== undefined && wiped.level === 40, `a warning says the cache is wiped: ${lines.join('')}`);
    assert.equal(wiped.msg, 'file cache directory held copies of Memory(one); wiping it');
    assert.deepEqual([b.stats().files, b.stats().bytes], [0, 0]);
    assert.deepEqual(cachedPaths(b), []);
    assert.equal(readFileSync(join(dir, '.store'), 'utf8'), 'Memory(two)');
    assert.equal(await pinAndRead(b, 'r/x', 8), 'from-two');
    assert.equal(two.downloadsOf('r/x'), 1);

    // A directory without a marker holds files of an unknown origin: wiped too.
    const bare = join(tempDir(t), 'bare');
    mkdirSync(join(bare, 'r'), { recursive: true });
    writeFileSync(join(bare, 'r/x'), 'unknown!');
    const c = await FileCache.open({ dir: bare, capacity: 1000, store: two, logger: silentLogger() });
    t.after(() => c.close());
    assert.deepEqual(cachedPaths(c), []);
    assert.equal(await pinAndRead(c, 'r/x', 8), 'from-two');
  });

  test('remove and removeAll drop copies now, pinned copies at their last release', async (t) => {
    const { cache, store } = await setup(t, 1000);
    await putObjects(store, 10, 'r/1/a', 'r/1/b', 'r/1/c', 'r/2/d');
    for (const p of ['r/1/a', 'r/1/b', 'r/1/c', 'r/2/d']) await pinAndRead(cache, p, 10);
    await cache.remove('r/1/a');
    assert.deepEqual(cachedPaths(cache), ['r/1/b', 'r/1/c', 'r/2/d']);
    const held = await cache.pin('r/1/b', 10);
    const held2 = await cache.pin('r/1/b', 10);
    await cache.removeAll('r/1/');
    assert.deepEqual(cachedPaths(cache), ['r/1/b', 'r/2/d'], 'the pinned copy stays readable');
    assert.equal(readFileSync(held.path, 'utf8'), 'r/1/b'.padEnd(10, '.'));
    assert.deepEqual([cache.stats().files, cache.stats().bytes, cache.stats().pinned], [2, 20, 1]);
    // A removed object is not served any more, even while its old copy is pinned.
    await store.delete('r/1/b');
    await assert.rejects(cache.pin('r/1/b', 10), /object r\/1\/b is missing from Memory\(bucket\)/);
    held.release();
    assert.equal(existsSync(held2.path), true);
    held2.release();
    await cache.idle();
    assert.deepEqual(cachedPaths(cache), ['r/2/d']);
    assert.equal(existsSync(join(cache.dir, 'r/1')), false);
    assert.deepEqual([cache.stats().files, cache.stats().bytes, cache.stats().pinned, cache.stats().evictions], [1, 10, 0, 0]);
    await assert.rejects(cache.removeAll('r/2'), /a directory prefix must end with "\/"/);
  });

  test('remove during a download: the waiters get the copy, which goes at their last release; without waiters it is dropped when it lands', async (t) => {
    const { cache, store } = await setup(t, 1000);
    await putObjects(store, 10, 'r/a', 'r/b');
    let open = store.hold();
    const pin = cache.pin('r/a', 10);
    await settle();
    await cache.remove('r/a');
    open();
    const file = await pin;
    assert.equal(readFileSync(file.path, 'utf8'), 'r/a'.padEnd(10, '.'));
    assert.equal(cache.stats().files, 1);
    file.release();
    await cache.idle();
    assert.deepEqual(cachedPaths(cache), []);
    assert.equal(cache.stats().bytes, 0);

    open = store.hold();
    const abort = new AbortController();
    const gone = cache.pin('r/b', 10, abort.signal);
    await settle();
    abort.abort();
    await assert.rejects(gone, { name: 'AbortError' });
    await cache.removeAll('r/');
    open();
    await cache.idle();
    assert.equal(store.downloadsOf('r/b'), 1);
    assert.deepEqual(cachedPaths(cache), []);
    assert.deepEqual(leftovers(cache), []);
    assert.deepEqual([cache.stats().files, cache.stats().bytes, cache.stats().pinned], [0, 0, 0]);
  });

  test("an abort ends one waiter's wait only; a download nobody waits for any more is kept", async (t) => {
    const { cache, store } = await setup(t, 1000);
    await putObjects(store, 10, 'r/a', 'r/b');
    let open = store.hold();
    const abort = new AbortController();
    const quitter = cache.pin('r/a', 10, abort.signal);
    const stayer = cache.pin('r/a', 10);
    await settle();
    abort.abort(new TsdbError(StatusCode.Cancelled, 'query cancelled'));
    await assert.rejects(quitter, /query cancelled/);
    open();
    const file = await stayer;
    assert.equal(cache.stats().pinned, 1);
    file.release();
    assert.equal(cache.stats().pinned, 0);

    open = store.hold();
    const all = new AbortController();
    const pins = [cache.pin('r/b', 10, all.signal), cache.pin('r/b', 10, all.signal)];
    await settle();
    all.abort();
    for (const r of await Promise.allSettled(pins)) assert.equal(r.status, 'rejected');
    open();
    await cache.idle();
    assert.deepEqual(cachedPaths(cache), ['r/a', 'r/b']);
    assert.equal(await pinAndRead(cache, 'r/b', 10), 'r/b'.padEnd(10, '.'));
    assert.equal(store.downloadsOf('r/b'), 1);
    assert.deepEqual([cache.stats().pinned, cache.stats().hits], [0, 1]);
    // An already aborted signal: nothing starts.
    await assert.rejects(cache.pin('r/c', 1, AbortSignal.abort()), { name: 'AbortError' });
    assert.equal(store.downloadsOf('r/c'), 0);
  });

  test('add: a staged file becomes the copy (write-through), including of an object being downloaded', async (t) => {
    const { cache, store } = await setup(t, 1000);
    const staged = cache.stagingPath('a.parquet');
    assert.ok(staged.startsWith(join(cache.dir, '.staging') + '/'));
    assert.notEqual(cache.stagingPath('a.parquet'), staged);
    writeFileSync(staged, 'written-locally');
    await store.upload('r/a.parquet', staged, 1024);
    await cache.add('r/a.parquet', staged);
    assert.equal(existsSync(staged), false, 'moved, not copied');
    assert.equal(await pinAndRead(cache, 'r/a.parquet', 15), 'written-locally');
    assert.equal(store.downloadsOf('r/a.parquet'), 0);
    assert.deepEqual([cache.stats().hits, cache.stats().misses, cache.stats().bytes], [1, 0, 15]);

    await store.write('r/b', enc('bbbbb'));
    const open = store.hold();
    const pin = cache.pin('r/b', 5);
    await settle();
    const staged2 = cache.stagingPath('b');
    writeFileSync(staged2, 'bbbbb');
    await cache.add('r/b', staged2);
    open();
    const file = await pin;
    assert.equal(readFileSync(file.path, 'utf8'), 'bbbbb');
    file.release();
    await cache.idle();
    assert.equal(store.downloadsOf('r/b'), 1);
    assert.deepEqual([cache.stats().files, cache.stats().bytes, cache.stats().pinned], [2, 20, 0]);
    assert.deepEqual(leftovers(cache), [], 'the download that found the written-through copy is discarded');
    await assert.rejects(cache.add('r/c', join(cache.dir, '.staging', 'nothing')), /file cache of Memory\(bucket\) in .*: cannot add .* as the copy of r\/c/);
  });

  test('close aborts downloads in flight; their waiters get an error saying the cache is closed', async (t) => {
    const { cache, store } = await setup(t, 1000);
    await putObjects(store, 10, 'r/a');
    store.hold(); // never opened: a store that does not answer
    const outcome = cache.pin('r/a', 10).then(
      () => undefined,
      (err: unknown) => err,
    );
    await settle();
    await cache.close();
    const err = await outcome;
    assert.ok(err instanceof TsdbError && /the file cache of Memory\(bucket\) in .* is closed/.test(err.message), String(err));
    assert.deepEqual(cachedPaths(cache), []);
    assert.deepEqual(leftovers(cache), []);
    assert.deepEqual([cache.stats().files, cache.stats().pinned], [0, 0]);
    await assert.rejects(cache.add('r/b', '/nonexistent'), /is closed/);
    await assert.rejects(cache.remove('r/a'), /is closed/);
  });

  test('over a real store (OpenDAL fs): a multi-chunk object is downloaded whole, byte for byte', async (t) => {
    const base = tempDir(t);
    const store = OpendalObjectStore.fs(join(base, 'remote'), join(base, 'remote-tmp'));
    const data = Buffer.alloc(9 * 1024 * 1024 + 7);
    for (let i = 0; i < data.length; i += 4096) data[i] = (i / 4096) % 251;
    await store.write('region/1/big.parquet', data);
    const cache = await FileCache.open({ dir: join(base, 'cache'), capacity: 64 * 1024 * 1024, store, logger: silentLogger() });
    t.after(() => cache.close());
    const files = await Promise.all([cache.pin('region/1/big.parquet', data.length), cache.pin('region/1/big.parquet', data.length)]);
    assert.ok(readFileSync(files[0]!.path).equals(data));
    for (const f of files) f.release();
    await assert.rejects(cache.pin('region/1/none.parquet', 3), /object region\/1\/none\.parquet is missing from File\(/);
    assert.deepEqual([cache.stats().downloads, cache.stats().downloadedBytes, cache.stats().misses], [2, data.length, 3]);
  });

  test('paths that leave the cache or name its own files are refused', async (t) => {
    const { cache } = await setup(t, 1000);
    await assert.rejects(cache.pin('../x', 1), (err: unknown) => err instanceof TsdbError && err.code === StatusCode.InvalidArguments);
    await assert.rejects(cache.pin('.partial/1.part', 1), /"\.partial" is the cache's own name/);
    await assert.rejects(cache.pin('.store', 1), /is the cache's own name/);
    await assert.rejects(cache.removeAll('.staging/'), /is the cache's own name/);
    assert.throws(() => cache.stagingPath('a/b'), /invalid staging file name/);
    await assert.rejects(FileCache.open({ dir: cache.dir, capacity: -1, store: new TestStore(), logger: silentLogger() }), /cache capacity/);
  });

  test('many concurrent pins, releases, adds and removes keep the index equal to the files and never evict a pinned copy', async (t) => {
    const { cache, store } = await setup(t, 400);
    const paths = Array.from({ length: 12 }, (_, i) => `r/${i % 3}/f${i}`);
    const sizeOf = (p: string): number => 40 + Number(p.slice(p.lastIndexOf('f') + 1)) * 10;
    for (const p of paths) await putObjects(store, sizeOf(p), p);
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const held: { file: CachedFile; path: string }[] = [];
    const tasks: Promise<void>[] = [];
    for (let i = 0; i < 300; i++) {
      const p = paths[rand(paths.length)]!;
      const op = rand(10);
      if (op < 6) {
        tasks.push(
          cache.pin(p, sizeOf(p)).then((file) => {
            assert.equal(readFileSync(file.path, 'utf8'), p.padEnd(sizeOf(p), '.'), `content of ${p} while pinned`);
            held.push({ file, path: p });
          }),
        );
      } else if (op < 8 && held.length > 0) {
        const h = held.splice(rand(held.length), 1)[0]!;
        assert.equal(readFileSync(h.file.path, 'utf8'), h.path.padEnd(sizeOf(h.path), '.'), `content of ${h.path} at release`);
        h.file.release();
      } else if (op === 8) {
        const staged = cache.stagingPath('f');
        writeFileSync(staged, p.padEnd(sizeOf(p), '.'));
        tasks.push(cache.add(p, staged));
      } else {
        tasks.push(cache.remove(p));
      }
      if (rand(4) === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(tasks);
    for (const h of held) {
      assert.equal(readFileSync(h.file.path, 'utf8'), h.path.padEnd(sizeOf(h.path), '.'));
      h.file.release();
    }
    await cache.idle();
    const s = cache.stats();
    assert.equal(s.pinned, 0);
    assert.ok(s.bytes <= 400, `bytes ${s.bytes} within capacity`);
    const onDisk = cachedPaths(cache);
    assert.equal(onDisk.length, s.files);
    assert.equal(onDisk.reduce((sum, p) => sum + statSync(join(cache.dir, p)).size, 0), s.bytes);
    assert.deepEqual(leftovers(cache), []);
  });
});
