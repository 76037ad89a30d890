/**
 * The engine on a storage provider (STYLE.md "Shared suites"): every engine operation that reaches
 * files — region create and open (manifest read from the store), write, flush, scan, compaction,
 * TTL expiry, truncate, alter, drop, WAL replay after a restart — and, for object stores, the
 * local file cache under them (write-through, downloads after a restart with an empty cache, a
 * file larger than the cache, pins, a missing object). Run against File and every object-storage
 * provider on a real server by `engine-storage-*.test.ts`.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { cpuRegionMetadata, testEngineOptions } from '../../test/support/engine.js';
import { tempDir } from '../../test/support/temp.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { StorageProviders } from '../storage/storage-provider.js';
import { OP_PUT, type Vector, type WriteBatch } from '../types/write-batch.js';
import type { RegionMetadata } from '../types/region-metadata.js';
import { regionId, type RegionId } from '../types/region-id.js';
import { RegionEngine } from './region-engine.js';

export interface StorageBackend {
  /**
   * The providers of one engine run (one, the default), on a store of their own for this test:
   * `dir` is the test's directory (File keeps its objects in `{dir}/data`), `root` names the
   * object store's root (the same again is the same objects, as after a restart). Object stores
   * keep their cache in `{dir}/cache` with `cacheCapacity` bytes (default 64 MiB). The test closes them.
   */
  open(dir: string, root: string, cacheCapacity?: number): Promise<StorageProviders>;
  /** Whether the provider goes through a file cache (object storage), or reads files in place (File). */
  readonly cached: boolean;
}

const ID = regionId(2048, 0);
const OTHER = regionId(2049, 0);
const DIR = 'data/tsdb/public/2048/2048_0000000000/';
const OTHER_DIR = 'data/tsdb/public/2049/2049_0000000000/';
const HOUR = 3_600_000;

function metadata(id: RegionId = ID, options: Partial<RegionMetadata['options']> = {}): RegionMetadata {
  return cpuRegionMetadata(id, { compaction_trigger_file_num: 2, ...options });
}

/** `n` rows of `host` from `from` ms, one per ms step, `cpu = value`. */
function puts(host: string, from: number, n: number, value = 1, step = 1): WriteBatch {
  return {
    op: OP_PUT,
    rowCount: n,
    columns: new Map<number, Vector>([
      [0, { type: 'string', data: Array.from({ length: n }, () => host) }],
      [1, { type: 'int64', data: BigInt64Array.from({ length: n }, (_, i) => BigInt(from + i * step)) }],
      [2, { type: 'float64', data: Float64Array.from({ length: n }, () => value) }],
    ]),
  };
}

/** count(*), sum(cpu) and the column names of a scan of region `id`. */
async function scanned(engine: RegionEngine, id: RegionId = ID): Promise<{ count: number; sum: number; columns: string[] }> {
  const scan = await engine.scan(id);
  const conn = await engine.duckdb.connect();
  try {
    await scan.attach(conn, 'r');
    const [row] = (await conn.runAndReadAll('SELECT count(*), coalesce(sum(cpu), 0) FROM r')).getRows();
    const columns = (await conn.runAndReadAll('SELECT * FROM r LIMIT 0')).columnNames();
    await scan.detach(conn);
    return { count: Number(row![0]), sum: Number(row![1]), columns };
  } finally {
    scan.release();
    conn.closeSync();
  }
}

/** The SST objects of a region directory in the store. */
async function sstObjects(storage: StorageProviders, dir = DIR): Promise<string[]> {
  return (await storage.get().store.list(dir)).map((e) => e.path).filter((p) => p.endsWith('.parquet'));
}

/** Regions ID and OTHER, each with 100 rows in one flushed file. */
async function twoRegionsFlushed(engine: RegionEngine): Promise<void> {
  await engine.createRegion(metadata(), DIR);
  await engine.createRegion(metadata(OTHER), OTHER_DIR);
  for (const id of [ID, OTHER]) {
    await engine.write(id, puts('a', 0, 100));
    await engine.flushRegion(id);
  }
}

export function runEngineStorageSuite(name: string, makeBackend: () => StorageBackend): void {
  describe(`the engine on ${name}`, () => {
    let roots = 0;
    /** An engine on a fresh root; `restart` opens another on the same root and WAL (the first closed). */
    async function start(t: TestContext, cacheCapacity?: number) {
      const backend = makeBackend();
      const dir = tempDir(t);
      const root = `engine-${process.pid}-${++roots}`;
      const cacheDir = join(dir, 'cache');
      const open = async () => {
        const storage = await backend.open(dir, root, cacheCapacity);
        const engine = await RegionEngine.open(testEngineOptions(dir, { storage, compactAfterFlush: false }));
        t.after(async () => {
          await engine.close();
          await storage.close();
        });
        return { engine, storage };
      };
      const first = await open();
      return {
        ...first,
        backend,
        cacheDir,
        /** Closes `engine` and its storage, optionally empties the cache, and opens both again (regions not opened). */
        async restart(engine: RegionEngine, storage: StorageProviders, opts: { emptyCache?: boolean } = {}) {
          await engine.close();
          await storage.close();
          if (opts.emptyCache === true) rmSync(cacheDir, { recursive: true, force: true });
          return open();
        },
      };
    }

    test('create, write, flush, scan; the SST and the manifest are in the store; a restart replays the WAL and reads the file', async (t) => {
      const s = await start(t);
      await s.engine.createRegion(metadata(), DIR);
      await s.engine.write(ID, puts('a', 0, 1000, 2));
      const [file] = await s.engine.flushRegion(ID);
      assert.ok(file !== undefined);
      assert.deepEqual(await sstObjects(s.storage), [`${DIR}${file.file_id}.parquet`]);
      assert.ok((await s.storage.get().store.list(`${DIR}manifest/`)).length > 0, 'the manifest is in the store');
      assert.equal((await s.storage.get().store.stat(`${DIR}${file.file_id}.parquet`))?.size, file.file_size);
      await s.engine.write(ID, puts('b', 0, 500, 3)); // in the WAL only
      assert.deepEqual(await scanned(s.engine), { count: 1500, sum: 3500, columns: ['host', 'ts', 'cpu'] });
      if (s.backend.cached) {
        const st = s.storage.get().cacheStats()!;
        assert.equal(st.files, 1, 'the flushed file was kept in the cache (write-through)');
        assert.equal(st.downloads, 0, 'nothing was downloaded: the file was written here');
      }
      const again = await s.restart(s.engine, s.storage);
      await again.engine.openRegion(ID, DIR);
      assert.deepEqual(await scanned(again.engine), { count: 1500, sum: 3500, columns: ['host', 'ts', 'cpu'] });
      if (s.backend.cached) assert.equal(again.storage.get().cacheStats()!.downloads, 0, 'the cache survived the restart');
    });

    test('after a restart with an empty cache, the first scan downloads each file once; the next is served from the cache', async (t) => {
      const s = await start(t);
      await s.engine.createRegion(metadata(), DIR);
      for (let i = 0; i < 3; i++) {
        await s.engine.write(ID, puts(`h${i}`, i * 10_000, 2000, i + 1));
        await s.engine.flushRegion(ID);
      }
      const again = await s.restart(s.engine, s.storage, { emptyCache: true });
      await again.engine.openRegion(ID, DIR);
      // Two scans at once: they share the downloads.
      const [a, b] = await Promise.all([scanned(again.engine), scanned(again.engine)]);
      assert.deepEqual(a, { count: 6000, sum: 2000 * 6, columns: ['host', 'ts', 'cpu'] });
      assert.deepEqual(b, a);
      assert.deepEqual(await scanned(again.engine), a);
      if (s.backend.cached) {
        const st = again.storage.get().cacheStats()!;
        assert.equal(st.downloads, 3, 'one download per file, shared by concurrent scans');
        const bytes = (await Promise.all((await sstObjects(again.storage)).map((p) => again.storage.get().store.stat(p)))).reduce((n, e) => n + e!.size, 0);
        assert.equal(st.downloadedBytes, bytes);
        assert.ok(st.hits >= 3, `later scans hit the cache (${st.hits} hits)`);
      }
    });

    test('compaction reads its inputs through the provider, writes its output to the store, and deletes the inputs', async (t) => {
      const s = await start(t);
      await s.engine.createRegion(metadata(), DIR);
      await s.engine.write(ID, puts('a', 0, 1000, 1));
      await s.engine.flushRegion(ID);
      await s.engine.write(ID, puts('a', 500, 1000, 2)); // overlaps the first file
      await s.engine.flushRegion(ID);
      const before = await sstObjects(s.storage);
      assert.equal(before.length, 2);
      const again = s.backend.cached ? await s.restart(s.engine, s.storage, { emptyCache: true }) : s;
      if (again !== s) await again.engine.openRegion(ID, DIR);
      assert.deepEqual(await again.engine.compactRegion(ID), { removed: 2, added: 1 });
      const after = await sstObjects(again.storage);
      assert.equal(after.length, 1);
      assert.ok(!before.includes(after[0]!), 'a new file');
      assert.deepEqual(await scanned(again.engine), { count: 1500, sum: 500 + 2000, columns: ['host', 'ts', 'cpu'] });
      if (s.backend.cached) {
        const st = again.storage.get().cacheStats()!;
        assert.equal(st.files, 1, 'the inputs left the cache; the output is in it');
        assert.equal(st.downloads, 2, 'the inputs were downloaded once each');
      }
    });

    test('TTL: compaction drops files past it, from the store too', async (t) => {
      const s = await start(t);
      const now = Date.now();
      await s.engine.createRegion(metadata(ID, { ttl: HOUR, compaction_time_window: HOUR }), DIR);
      await s.engine.write(ID, puts('old', now - 5 * HOUR, 100, 1, 1000));
      await s.engine.flushRegion(ID);
      await s.engine.write(ID, puts('new', now - 60_000, 100, 1, 100));
      await s.engine.flushRegion(ID);
      assert.equal((await sstObjects(s.storage)).length, 2);
      assert.equal((await scanned(s.engine)).count, 100, 'expired rows are not read');
      const result = await s.engine.compactRegion(ID);
      assert.equal(result.removed, 1);
      assert.equal((await sstObjects(s.storage)).length, 1);
      assert.equal((await scanned(s.engine)).count, 100);
    });

    test('truncate removes the rows and, once unused, the files; alter adds a column to files written after it', async (t) => {
      const s = await start(t);
      await s.engine.createRegion(metadata(), DIR);
      await s.engine.write(ID, puts('a', 0, 100));
      await s.engine.flushRegion(ID);
      await s.engine.truncateRegion(ID);
      assert.deepEqual(await sstObjects(s.storage), []);
      assert.equal((await scanned(s.engine)).count, 0);
      if (s.backend.cached) assert.equal(s.storage.get().cacheStats()!.files, 0);
      const md = metadata();
      await s.engine.alterRegion(ID, {
        ...md,
        schema_version: 1,
        columns: [...md.columns, { column_id: 3, name: 'mem', type: 'Float64', semantic_type: 'field', nullable: true }],
      });
      await s.engine.write(ID, puts('b', 0, 10, 5));
      await s.engine.flushRegion(ID);
      const again = await s.restart(s.engine, s.storage, { emptyCache: true });
      await again.engine.openRegion(ID, DIR);
      assert.deepEqual(await scanned(again.engine), { count: 10, sum: 50, columns: ['host', 'ts', 'cpu', 'mem'] });
    });

    test('drop deletes every object of the region, and its cached files; another region is untouched', async (t) => {
      const s = await start(t);
      await twoRegionsFlushed(s.engine);
      await s.engine.dropRegion(ID);
      assert.deepEqual(await s.storage.get().store.list(DIR), []);
      assert.equal((await sstObjects(s.storage, OTHER_DIR)).length, 1);
      if (s.backend.cached) assert.equal(s.storage.get().cacheStats()!.files, 1);
      assert.equal((await scanned(s.engine, OTHER)).count, 100);
    });

    test('a missing object: the scan fails naming it; another region keeps working', async (t) => {
      const s = await start(t);
      await twoRegionsFlushed(s.engine);
      const [lost] = await sstObjects(s.storage);
      await s.storage.get().store.delete(lost!);
      const again = await s.restart(s.engine, s.storage, { emptyCache: true });
      await again.engine.openRegion(ID, DIR);
      await again.engine.openRegion(OTHER, OTHER_DIR);
      await assert.rejects(scanned(again.engine), (err: unknown) => {
        assert.ok(err instanceof TsdbError, String(err));
        assert.equal(err.code, StatusCode.StorageUnavailable);
        assert.ok(err.message.includes(lost!) && err.message.includes(again.storage.get().store.description), err.message);
        return true;
      });
      assert.equal((await scanned(again.engine, OTHER)).count, 100);
    });

    test('a cache smaller than one file: every file is still readable, and nothing unpinned stays past the capacity', async (t) => {
      const s = await start(t, 1024);
      await s.engine.createRegion(metadata(), DIR);
      for (let i = 0; i < 2; i++) {
        await s.engine.write(ID, puts(`h${i}`, i * 100_000, 5000, 1));
        await s.engine.flushRegion(ID);
      }
      const again = await s.restart(s.engine, s.storage, { emptyCache: true });
      await again.engine.openRegion(ID, DIR);
      // One scan held open (its files pinned) while another runs: both read every row.
      const held = await again.engine.scan(ID);
      try {
        assert.equal((await scanned(again.engine)).count, 10_000);
        if (s.backend.cached) assert.ok(again.storage.get().cacheStats()!.files >= 2, 'pinned files stay while in use');
      } finally {
        held.release();
      }
      assert.equal((await scanned(again.engine)).count, 10_000);
      if (s.backend.cached) {
        const st = again.storage.get().cacheStats()!;
        assert.ok(st.bytes <= 1024, `${st.bytes} bytes stay cached once nothing pins them`);
        assert.equal(st.pinned, 0);
      }
    });
  });
}
