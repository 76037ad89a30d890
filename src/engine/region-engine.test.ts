import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { MemoryObjectStore } from '../../test/support/memory-object-store.js';
import { cpuRegionMetadata, testEngineOptions } from '../../test/support/engine.js';
import { tempDir } from '../../test/support/temp.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { MIB } from '../common/size/size.js';
import { silentLogger } from '../common/logging.js';
import { FileCache } from '../storage/file-cache.js';
import { CachedStorageProvider, StorageProviders } from '../storage/storage-provider.js';
import { OP_DELETE, OP_PUT, type Vector, type WriteBatch } from '../types/write-batch.js';
import type { RegionMetadata } from '../types/region-metadata.js';
import { regionId } from '../types/region-id.js';
import { RegionEngine, type RegionEngineOptions } from './region-engine.js';

const ID = regionId(1024, 0);
const DIR = 'data/tsdb/public/1024/1024_0000000000/';

function metadata(over: Partial<RegionMetadata['options']> = {}): RegionMetadata {
  return cpuRegionMetadata(ID, over);
}

function puts(host: string, from: number, n: number, value = 1): WriteBatch {
  return {
    op: OP_PUT,
    rowCount: n,
    columns: new Map<number, Vector>([
      [0, { type: 'string', data: Array.from({ length: n }, () => host) }],
      [1, { type: 'int64', data: BigInt64Array.from({ length: n }, (_, i) => BigInt(from + i)) }],
      [2, { type: 'float64', data: Float64Array.from({ length: n }, () => value) }],
    ]),
  };
}

function deletes(host: string, ts: number[]): WriteBatch {
  return {
    op: OP_DELETE,
    rowCount: ts.length,
    columns: new Map<number, Vector>([
      [0, { type: 'string', data: ts.map(() => host) }],
      [1, { type: 'int64', data: BigInt64Array.from(ts.map(BigInt)) }],
    ]),
  };
}

async function openEngine(t: TestContext, dir: string, over: Partial<RegionEngineOptions> = {}): Promise<RegionEngine> {
  const engine = await RegionEngine.open(testEngineOptions(dir, over));
  t.after(() => engine.close());
  return engine;
}

/** Visible rows: (host, ts, op, cpu) after merging, over all memtables. */
function rows(engine: RegionEngine): Array<[string, bigint, number, number | null]> {
  const out: Array<[string, bigint, number, number | null]> = [];
  for (const mt of engine.region(ID).memtables()) {
    for (const run of mt.runs('last_row')) {
      const cpu = run.fields[0]!;
      for (let i = 0; i < run.ts.length; i++) {
        const v = cpu.type === 'float64' && cpu.valid?.[i] !== 0 ? cpu.data[i]! : null;
        out.push([run.key[0] as string, run.ts[i]!, run.op[i]!, v]);
      }
    }
  }
  return out;
}

test('writes take consecutive sequences and survive a close and reopen (WAL replay)', async (t) => {
  const dir = tempDir(t);
  const engine = await openEngine(t, dir);
  await engine.createRegion(metadata(), DIR);
  assert.deepEqual(await engine.write(ID, puts('a', 0, 3)), { first: 1, last: 3 });
  assert.deepEqual(await engine.write(ID, puts('b', 0, 2)), { first: 4, last: 5 });
  assert.deepEqual(await engine.write(ID, deletes('a', [1])), { first: 6, last: 6 });
  await engine.close();

  const again = await openEngine(t, dir);
  await again.openRegion(ID, DIR);
  assert.equal(again.region(ID).committedSequence, 6);
  assert.deepEqual(rows(again), [
    ['a', 0n, 1, 1],
    ['a', 1n, 0, null],
    ['a', 2n, 1, 1],
    ['b', 0n, 1, 1],
    ['b', 1n, 1, 1],
  ]);
  assert.deepEqual(await again.write(ID, puts('a', 9, 1)), { first: 7, last: 7 });
});

test('a write is durable once acknowledged, without a clean close', async (t) => {
  const dir = tempDir(t);
  const engine = await openEngine(t, dir);
  await engine.createRegion(metadata(), DIR);
  await Promise.all(Array.from({ length: 50 }, (_, i) => engine.write(ID, puts(`h${i % 5}`, i * 10, 10))));
  // A second engine opens the same directories while the first never closed (as after a crash).
  const other = await openEngine(t, dir);
  await other.openRegion(ID, DIR);
  assert.equal(rows(other).length, 500);
  assert.equal(other.region(ID).committedSequence, 500);
});

test('concurrent writes to one region all land, in sequence order', async (t) => {
  const engine = await openEngine(t, tempDir(t));
  await engine.createRegion(metadata(), DIR);
  const results = await Promise.all(Array.from({ length: 100 }, (_, i) => engine.write(ID, puts('a', i, 1, i))));
  assert.deepEqual(results.map((r) => r.first), Array.from({ length: 100 }, (_, i) => i + 1));
  assert.deepEqual(rows(engine).map((r) => r[3]), Array.from({ length: 100 }, (_, i) => i));
});

test('bad batches are refused whole, with the reference\'s messages', async (t) => {
  const engine = await openEngine(t, tempDir(t));
  await engine.createRegion(metadata({ append_mode: true }), DIR);
  await assert.rejects(engine.write(ID, deletes('a', [1])), {
    code: StatusCode.InvalidArguments,
    message: 'Invalid request to region, reason: DELETE is not allowed under append mode',
  });
  const bad = puts('a', 0, 2);
  (bad.columns as Map<number, Vector>).set(2, { type: 'string', data: ['x', 'y'] });
  await assert.rejects(engine.write(ID, bad), /column cpu of type Float64 needs float64 values, got string/);
  const noTs = puts('a', 0, 2);
  (noTs.columns as Map<number, Vector>).delete(1);
  await assert.rejects(engine.write(ID, noTs), /the time index column ts is missing/);
  assert.equal(engine.region(ID).committedSequence, 0, 'nothing was written');
});

test('writes are rejected while memtables are above the reject size, and accepted again once flushes free memory', async (t) => {
  const engine = await openEngine(t, tempDir(t), { globalWriteBufferSize: 10_000, globalWriteBufferRejectSize: 20_000 });
  await engine.createRegion(metadata(), DIR);
  await engine.write(ID, puts('a', 0, 1000));
  const err = await engine.write(ID, puts('a', 1000, 10)).catch((e: unknown) => e);
  assert.ok(err instanceof TsdbError);
  assert.equal(err.code, StatusCode.StorageUnavailable);
  assert.match(err.message, /^write buffer full: memtables hold \d+B, at or above global_write_buffer_reject_size \(20000B\); retry once flushes free memory$/);
  // The write that went over the buffer started a flush; once it is done, writes are accepted.
  await engine.idle();
  assert.equal(engine.region(ID).files().length, 1);
  await engine.write(ID, puts('a', 1000, 10));
});

test('alter: rows keep their schema, new writes use the new one', async (t) => {
  const dir = tempDir(t);
  const engine = await openEngine(t, dir);
  await engine.createRegion(metadata(), DIR);
  await engine.write(ID, puts('a', 0, 2));
  const next: RegionMetadata = {
    ...metadata(),
    schema_version: 1,
    columns: [...metadata().columns, { column_id: 3, name: 'mem', type: 'Float64', semantic_type: 'field', nullable: true, default: 0.5 }],
  };
  await engine.alterRegion(ID, next);
  assert.equal(engine.region(ID).memtables().length, 2, 'the old rows are in a frozen memtable');
  await assert.rejects(engine.alterRegion(ID, next), /needs a schema version above 1/);
  await engine.write(ID, puts('a', 5, 1));
  await engine.close();
  const again = await openEngine(t, dir);
  await again.openRegion(ID, DIR);
  assert.equal(again.region(ID).metadata.columns.length, 4);
  assert.equal(again.region(ID).memtableRows(), 3, 'rows from before and after the alter replay');
});

test('truncate removes every row, also after a reopen; drop removes the region', async (t) => {
  const dir = tempDir(t);
  const engine = await openEngine(t, dir);
  await engine.createRegion(metadata(), DIR);
  await engine.write(ID, puts('a', 0, 5));
  await engine.truncateRegion(ID);
  assert.equal(engine.region(ID).memtableRows(), 0);
  await engine.write(ID, puts('a', 10, 2));
  await engine.close();

  const again = await openEngine(t, dir);
  await again.openRegion(ID, DIR);
  assert.deepEqual(rows(again).map((r) => r[1]), [10n, 11n]);
  await again.dropRegion(ID);
  assert.throws(() => again.region(ID), { code: StatusCode.RegionNotFound });
  assert.ok(!existsSync(join(dir, 'data', DIR)), 'the region directory is gone');
  await assert.rejects(again.openRegion(ID, DIR), { code: StatusCode.RegionNotFound });
});

test('create and open refuse a region that is already open; open refuses a missing one', async (t) => {
  const engine = await openEngine(t, tempDir(t));
  await engine.createRegion(metadata(), DIR);
  await assert.rejects(engine.createRegion(metadata(), DIR), { code: StatusCode.RegionAlreadyExists });
  await assert.rejects(engine.openRegion(ID, DIR), { code: StatusCode.RegionAlreadyExists });
  await assert.rejects(engine.openRegion(regionId(2048, 0), 'data/nowhere/'), { code: StatusCode.RegionNotFound });
});

async function sstRows(engine: RegionEngine, dir: string): Promise<number> {
  const conn = await engine.duckdb.connect();
  try {
    let n = 0;
    for (const f of engine.region(ID).files()) {
      const path = join(dir, 'data', DIR, `${f.file_id}.parquet`);
      const r = await conn.runAndReadAll(`SELECT count(*) FROM read_parquet('${path}')`);
      n += Number(r.getRows()[0]![0]);
    }
    return n;
  } finally {
    conn.closeSync();
  }
}

test('flush writes the memtable to an SST, records it, and a reopen replays only what came after', async (t) => {
  const dir = tempDir(t);
  const engine = await openEngine(t, dir, { wal: { dir: join(dir, 'wal'), fileSize: 4096, syncWrite: false, readBatchSize: 128, purgeInterval: 0, purgeThreshold: 1 << 30 } });
  await engine.createRegion(metadata(), DIR);
  for (let i = 0; i < 20; i++) await engine.write(ID, puts(`h${i % 4}`, i * 100, 100));
  await engine.write(ID, deletes('h0', [0, 1]));
  const segmentsBefore = engine.walStats().segments;
  const [file] = await engine.flushRegion(ID);
  assert.ok(file);
  assert.equal(file.num_rows, 2000, 'the deletes replace two rows and stay as tombstones');
  assert.equal(file.max_sequence, 2002);
  assert.equal(engine.region(ID).flushedSequence, 2002);
  assert.equal(engine.region(ID).memtableRows(), 0);
  assert.equal(await sstRows(engine, dir), 2000);
  await engine.purgeWal();
  assert.ok(engine.walStats().segments < segmentsBefore, 'flushed WAL segments are purged');

  await engine.write(ID, puts('h9', 0, 5));
  await engine.close();
  const again = await openEngine(t, dir);
  await again.openRegion(ID, DIR);
  assert.equal(again.region(ID).files().length, 1);
  assert.equal(again.region(ID).memtableRows(), 5, 'only the rows after the flush are replayed');
  assert.equal(again.region(ID).committedSequence, 2007);
});

test('writes go on while a flush runs', async (t) => {
  const engine = await openEngine(t, tempDir(t));
  await engine.createRegion(metadata(), DIR);
  for (let i = 0; i < 50; i++) await engine.write(ID, puts('a', i * 1000, 1000));
  const flushing = engine.flushRegion(ID);
  // Once the flush has frozen the memtable, writes go to a new one while the file is written.
  while (engine.region(ID).memtables().length < 2) await new Promise((r) => setImmediate(r));
  const during = await Promise.all(Array.from({ length: 20 }, (_, i) => engine.write(ID, puts('b', i, 1))));
  const [file] = await flushing;
  assert.equal(file!.num_rows, 50_000);
  assert.equal(during.length, 20);
  assert.equal(engine.region(ID).memtableRows(), 20, 'the writes during the flush are in the new memtable');
});

test('the global write buffer triggers flushes of the largest regions', async (t) => {
  const engine = await openEngine(t, tempDir(t), { globalWriteBufferSize: 200_000, globalWriteBufferRejectSize: 10_000_000 });
  await engine.createRegion(metadata(), DIR);
  for (let i = 0; i < 10; i++) await engine.write(ID, puts('a', i * 1000, 1000));
  await engine.idle();
  assert.ok(engine.region(ID).files().length >= 1, 'a flush ran');
  assert.ok(engine.writeBuffer.totalBytes() < 200_000);
});

test('auto_flush_interval flushes a region that has not flushed for that long', async (t) => {
  const engine = await openEngine(t, tempDir(t), { autoFlushInterval: 100 });
  await engine.createRegion(metadata(), DIR);
  await engine.write(ID, puts('a', 0, 10));
  const deadline = Date.now() + 5000;
  while (engine.region(ID).files().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(engine.region(ID).files().length, 1);
});

async function scanCount(engine: RegionEngine, where = 'true'): Promise<number> {
  const scan = await engine.scan(ID);
  const conn = await engine.duckdb.connect();
  try {
    await scan.attach(conn, 'v');
    return Number((await conn.runAndReadAll(`SELECT count(*) FROM v WHERE ${where}`)).getRows()[0]![0]);
  } finally {
    await scan.detach(conn);
    scan.release();
    conn.closeSync();
  }
}

test('compaction merges a window\'s files into one, drops tombstones, and deletes inputs once no scan uses them', async (t) => {
  const dir = tempDir(t);
  const engine = await openEngine(t, dir, { compactAfterFlush: false });
  await engine.createRegion(metadata(), DIR);
  for (let i = 0; i < 5; i++) {
    await engine.write(ID, puts('a', 0, 100, i)); // the same 100 rows rewritten
    await engine.flushRegion(ID);
  }
  await engine.write(ID, deletes('a', [0, 1, 2]));
  await engine.flushRegion(ID);
  const inputs = engine.region(ID).files().map((f) => f.file_id);
  assert.equal(inputs.length, 6);
  assert.equal(await scanCount(engine), 97);

  // A scan taken before the compaction keeps the input files until it is released.
  const held = await engine.scan(ID);
  const { removed, added } = await engine.compactRegion(ID);
  assert.deepEqual([removed, added], [6, 1]);
  const [merged] = engine.region(ID).files();
  assert.equal(merged!.level, 1);
  assert.equal(merged!.num_rows, 97, 'duplicates merged and tombstones dropped: every file of the window was an input');
  assert.ok(existsSync(join(dir, 'data', DIR, `${inputs[0]}.parquet`)), 'inputs stay while a scan holds them');
  held.release();
  await engine.idle();
  await engine.region(ID).purgeRemovedFiles();
  for (const id of inputs) assert.ok(!existsSync(join(dir, 'data', DIR, `${id}.parquet`)), `input ${id} was deleted`);
  assert.equal(await scanCount(engine), 97);
  assert.equal(await scanCount(engine, 'cpu = 4'), 97, 'the newest rewrite won');
});

test('TTL: expired rows are hidden at once and dropped by compaction; whole expired files go', async (t) => {
  const dir = tempDir(t);
  const engine = await openEngine(t, dir, { compactAfterFlush: false });
  await engine.createRegion(metadata({ ttl: 3_600_000 }), DIR);
  const now = Date.now();
  await engine.write(ID, puts('old', now - 10 * 3_600_000, 10)); // 10 hours ago
  await engine.flushRegion(ID);
  await engine.write(ID, puts('mixed', now - 2 * 3_600_000, 5)); // 2 hours ago
  await engine.write(ID, puts('mixed', now - 60_000, 5)); // a minute ago
  await engine.flushRegion(ID);
  await engine.write(ID, puts('new', now - 1000, 3));
  assert.equal(await scanCount(engine), 8, 'only rows within the TTL are visible, before any compaction');
  const { removed } = await engine.compactRegion(ID);
  assert.ok(removed >= 1, 'the expired file was dropped');
  assert.ok(engine.region(ID).files().every((f) => f.time_range[1] >= now - 3_600_000));
  assert.equal(await scanCount(engine), 8);
});

test('a scan reads only the files overlapping its time range', async (t) => {
  const engine = await openEngine(t, tempDir(t), { compactAfterFlush: false });
  await engine.createRegion(metadata(), DIR);
  for (let i = 0; i < 4; i++) {
    await engine.write(ID, puts('a', i * 10_000, 100));
    await engine.flushRegion(ID);
  }
  const all = await engine.scan(ID);
  const some = await engine.scan(ID, { start: 10_000n, end: 19_999n });
  const none = await engine.scan(ID, { start: 1_000_000n });
  assert.deepEqual([all.fileCount, some.fileCount, none.fileCount], [4, 1, 0]);
  for (const s of [all, some, none]) s.release();
  const conn = await engine.duckdb.connect();
  const scan = await engine.scan(ID, { start: 10_050n, end: 10_059n });
  await scan.attach(conn, 'w');
  assert.equal(Number((await conn.runAndReadAll('SELECT count(*) FROM w')).getRows()[0]![0]), 10);
  await scan.detach(conn);
  scan.release();
  conn.closeSync();
});

test('alter: a dropped column disappears without rewriting files; one re-added under the same name starts empty', async (t) => {
  const dir = tempDir(t);
  const engine = await openEngine(t, dir, { compactAfterFlush: false });
  await engine.createRegion(metadata(), DIR);
  await engine.write(ID, puts('a', 0, 10, 7));
  await engine.flushRegion(ID);
  const files = engine.region(ID).files().map((f) => f.file_id);
  const base = metadata();
  const dropped: RegionMetadata = { ...base, schema_version: 1, columns: base.columns.filter((c) => c.name !== 'cpu') };
  await engine.alterRegion(ID, dropped);
  const readAll = async () => {
    const conn = await engine.duckdb.connect();
    const scan = await engine.scan(ID);
    await scan.attach(conn, 'v');
    const result = await conn.runAndReadAll('SELECT * FROM v ORDER BY ts LIMIT 1');
    const out = { names: result.columnNames(), row: result.getRows()[0] };
    await scan.detach(conn);
    scan.release();
    conn.closeSync();
    return out;
  };
  assert.deepEqual((await readAll()).names, ['host', 'ts']);
  const readded: RegionMetadata = {
    ...dropped,
    schema_version: 2,
    columns: [...dropped.columns, { column_id: 3, name: 'cpu', type: 'Float64', semantic_type: 'field', nullable: true }],
  };
  await engine.alterRegion(ID, readded);
  const after = await readAll();
  assert.deepEqual(after.names, ['host', 'ts', 'cpu']);
  assert.equal(after.row![2], null, 'the old column\'s values do not come back');
  assert.deepEqual(engine.region(ID).files().map((f) => f.file_id), files, 'no file was rewritten');
});

test('sst_meta_cache_size and page_cache_size switch DuckDB\'s Parquet metadata and file caches', async (t) => {
  const setting = async (engine: RegionEngine, name: string) => {
    const conn = await engine.duckdb.connect();
    try {
      return String((await conn.runAndReadAll(`SELECT current_setting('${name}')`)).getRows()[0]![0]);
    } finally {
      conn.closeSync();
    }
  };
  const on = await openEngine(t, tempDir(t));
  assert.deepEqual([await setting(on, 'parquet_metadata_cache'), await setting(on, 'enable_external_file_cache')], ['true', 'true']);
  const off = await openEngine(t, tempDir(t), { sstMetaCache: false, pageCache: false });
  assert.deepEqual([await setting(off, 'parquet_metadata_cache'), await setting(off, 'enable_external_file_cache')], ['false', 'false']);
});

test('num_workers: regions spread over the workers; a worker serves queued writes up to 64 at a time, in order', async (t) => {
  const engine = await openEngine(t, tempDir(t), { numWorkers: 3 });
  assert.equal(engine.workers.workerOf(regionId(1024, 0)), 1, '(1024 mod 3 + 0) mod 3');
  assert.equal(engine.workers.workerOf(regionId(1024, 1)), 2);
  assert.equal(engine.workers.workerOf(regionId(1024, 2)), 0);
  assert.equal(engine.workers.workerOf(regionId(1025, 2)), 1);
  await engine.createRegion(metadata(), DIR);
  const results = await Promise.all(Array.from({ length: 100 }, (_, i) => engine.write(ID, puts('a', i * 10, 10))));
  // Served in arrival order: write i took sequences 10i+1 … 10i+10.
  results.forEach((r, i) => assert.deepEqual(r, { first: 10 * i + 1, last: 10 * i + 10 }));
  const stats = engine.workers.stats();
  assert.deepEqual(stats[1], { requests: 100, rounds: 2 }, 'two lots: 64 writes, then 36');
  assert.deepEqual([stats[0], stats[2]], [{ requests: 0, rounds: 0 }, { requests: 0, rounds: 0 }]);
  // A bad batch among good ones is refused alone.
  const mixed = await Promise.allSettled([engine.write(ID, puts('b', 0, 1)), engine.write(ID, { ...puts('b', 1, 1), op: 9 as never }), engine.write(ID, puts('b', 2, 1))]);
  assert.deepEqual(mixed.map((m) => m.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.equal(engine.region(ID).committedSequence, 1002);
});

test('a failed WAL append gives its sequences back: nothing is half-written and the region reopens', async (t) => {
  const dir = tempDir(t);
  let engine = await openEngine(t, dir);
  await engine.createRegion(metadata(), DIR);
  await engine.write(ID, puts('a', 0, 5));
  // The WAL's disk fails once (a test double in front of the real WAL).
  const wal = (engine as unknown as { wal: { append: (...args: unknown[]) => Promise<void> } }).wal;
  const append = wal.append.bind(wal);
  wal.append = () => {
    wal.append = append;
    return Promise.reject(new Error('EIO: injected'));
  };
  await assert.rejects(engine.write(ID, puts('a', 100, 5)), /EIO: injected/);
  assert.deepEqual(await engine.write(ID, puts('a', 200, 5)), { first: 6, last: 10 }, 'the failed write\'s sequences are taken again');
  await engine.close();
  engine = await openEngine(t, dir);
  await engine.openRegion(ID, DIR);
  assert.deepEqual(rows(engine).map((r) => Number(r[1])), [0, 1, 2, 3, 4, 200, 201, 202, 203, 204]);
});

test('sst_write_buffer_size: a flush to object storage uploads the SST in parts of that size', async (t) => {
  // A remote store (no local paths); the real multipart path is in the store's conformance suite.
  const store = new MemoryObjectStore();
  const uploads: Array<{ path: string; partSize: number; parts: number }> = [];
  const upload = store.upload.bind(store);
  store.upload = async (path, file, partSize) => {
    const parts = await upload(path, file, partSize);
    uploads.push({ path, partSize, parts });
    return parts;
  };
  const dir = tempDir(t);
  const cache = await FileCache.open({ dir: join(dir, 'cache'), capacity: 64 * MIB, store, logger: silentLogger() });
  const engine = await openEngine(t, dir, { storage: StorageProviders.single(new CachedStorageProvider('S3', store, cache, 5 * MIB)) });
  await engine.createRegion(metadata(), DIR);
  await engine.write(ID, puts('a', 0, 1000));
  const [file] = await engine.flushRegion(ID);
  assert.deepEqual(uploads, [{ path: `${DIR}${file!.file_id}.parquet`, partSize: 5 * MIB, parts: 1 }]);
  assert.equal((await store.stat(`${DIR}${file!.file_id}.parquet`))?.size, file!.file_size);
});

/** count(*) and sum(cpu) of a scan of the region. */
async function countAndSum(engine: RegionEngine): Promise<[number, number]> {
  const scan = await engine.scan(ID);
  const conn = await engine.duckdb.connect();
  try {
    await scan.attach(conn, 'r');
    const [row] = (await conn.runAndReadAll('SELECT count(*), sum(cpu) FROM r')).getRows();
    await scan.detach(conn);
    return [Number(row![0]), Number(row![1])];
  } finally {
    scan.release();
    conn.closeSync();
  }
}

test('vector_cache_size: scans of a frozen memtable read its merged rows once; the flush drops them; 0 disables', async (t) => {
  const engine = await openEngine(t, tempDir(t), { vectorCacheSize: 64 * MIB });
  await engine.createRegion(metadata(), DIR);
  await engine.write(ID, puts('a', 0, 1000, 2));
  await engine.write(ID, puts('a', 500, 1000, 3)); // overlapping times: the read-out merges them
  await engine.region(ID).freezeMutable();
  assert.deepEqual(await countAndSum(engine), [1500, 500 * 2 + 1000 * 3]);
  assert.deepEqual(await countAndSum(engine), [1500, 4000]);
  const cached = engine.vectorCacheStats();
  assert.equal(cached.misses, 1);
  assert.equal(cached.hits, 1);
  assert.ok(cached.bytes >= 1500 * 25, `${cached.bytes} bytes cached`);
  await engine.flushRegion(ID);
  assert.equal(engine.vectorCacheStats().bytes, 0, 'a flushed memtable leaves the cache');
  assert.deepEqual(await countAndSum(engine), [1500, 4000]);

  for (const [size, why] of [[0, 'disabled'], [1000, 'too small for the runs']] as const) {
    const other = await openEngine(t, tempDir(t), { vectorCacheSize: size });
    await other.createRegion(metadata(), DIR);
    await other.write(ID, puts('a', 0, 1000, 2));
    await other.region(ID).freezeMutable();
    assert.deepEqual(await countAndSum(other), [1000, 2000]);
    assert.deepEqual(await countAndSum(other), [1000, 2000]);
    assert.equal(other.vectorCacheStats().hits, 0, why);
    assert.equal(other.vectorCacheStats().bytes, 0, why);
  }
});

test('opening a region removes SST files its manifest does not record (a flush cut short)', async (t) => {
  const dir = tempDir(t);
  let engine = await openEngine(t, dir);
  await engine.createRegion(metadata(), DIR);
  await engine.write(ID, puts('a', 0, 10));
  const [file] = await engine.flushRegion(ID);
  await engine.write(ID, puts('a', 100, 10));
  await engine.close();
  const orphan = join(dir, 'data', DIR, '0b7c2f9e-0000-4000-8000-000000000000.parquet');
  writeFileSync(orphan, 'PAR1 half a file');
  engine = await openEngine(t, dir);
  await engine.openRegion(ID, DIR);
  assert.equal(existsSync(orphan), false);
  assert.equal(existsSync(join(dir, 'data', DIR, `${file!.file_id}.parquet`)), true);
  assert.deepEqual(await countAndSum(engine), [20, 20]);
});

test('scans give the time index its own unit whether rows come from memtables or SST files', async (t) => {
  for (const type of ['TimestampSecond', 'TimestampMillisecond', 'TimestampMicrosecond', 'TimestampNanosecond'] as const) {
    const engine = await openEngine(t, tempDir(t));
    const md = metadata();
    await engine.createRegion({ ...md, columns: md.columns.map((c) => (c.name === 'ts' ? { ...c, type } : c)) }, DIR);
    await engine.write(ID, puts('a', 0, 3));
    await engine.flushRegion(ID);
    await engine.write(ID, puts('b', 10, 3));
    const scan = await engine.scan(ID);
    const conn = await engine.duckdb.connect();
    try {
      await scan.attach(conn, 'r');
      const rows = (await conn.runAndReadAll('SELECT DISTINCT typeof(ts) FROM r')).getRows();
      const expected = { TimestampSecond: 'TIMESTAMP_S', TimestampMillisecond: 'TIMESTAMP_MS', TimestampMicrosecond: 'TIMESTAMP', TimestampNanosecond: 'TIMESTAMP_NS' }[type];
      assert.deepEqual(rows, [[expected]], type);
      await scan.detach(conn);
    } finally {
      scan.release();
      conn.closeSync();
    }
    await engine.close();
  }
});

test('vector_cache_size: repeated scans of an unchanged mutable memtable read it once; a write invalidates', async (t) => {
  const engine = await openEngine(t, tempDir(t), { vectorCacheSize: 64 * MIB });
  await engine.createRegion(metadata(), DIR);
  await engine.write(ID, puts('a', 0, 100, 2));
  assert.deepEqual(await countAndSum(engine), [100, 200]);
  assert.deepEqual(await countAndSum(engine), [100, 200]);
  // Times in order: the memtable keeps its own read out (views of its buffers), the cache is not used.
  assert.deepEqual([engine.vectorCacheStats().misses, engine.vectorCacheStats().hits], [0, 0]);
  await engine.write(ID, puts('a', 100, 50, 2));
  assert.deepEqual(await countAndSum(engine), [150, 300], 'an in-order write is seen');
  await engine.write(ID, puts('a', 50, 100, 3)); // overwrites 50..149, adds 150..
  assert.deepEqual(await countAndSum(engine), [150, 50 * 2 + 100 * 3], 'the out-of-order write is seen');
  assert.deepEqual(await countAndSum(engine), [150, 400]);
  assert.deepEqual([engine.vectorCacheStats().misses, engine.vectorCacheStats().hits], [1, 1]);
  await engine.write(ID, puts('a', 150, 10, 1));
  assert.deepEqual(await countAndSum(engine), [160, 410], 'a later write is seen');
  assert.deepEqual([engine.vectorCacheStats().misses, engine.vectorCacheStats().hits], [2, 1]);
});

test("DuckDB keeps to memoryLimit and spills to spillDir, which is emptied at open", async (t) => {
  const dir = tempDir(t);
  const spillDir = join(dir, 'spill');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(spillDir, { recursive: true });
  writeFileSync(join(spillDir, 'duckdb_temp_storage-left-by-a-crash.tmp'), 'x');
  const engine = await openEngine(t, dir, { memoryLimit: 64 * MIB, spillDir });
  assert.ok(!existsSync(join(spillDir, 'duckdb_temp_storage-left-by-a-crash.tmp')), 'stale spill files removed');
  const conn = await engine.duckdb.connect();
  try {
    const settings = (await conn.runAndReadAll("SELECT current_setting('memory_limit'), current_setting('temp_directory')")).getRows()[0]!;
    assert.deepEqual(settings, ['64.0 MiB', spillDir]);
    // A sort of ~300 MiB of rows: more than the limit, so it only completes by spilling.
    const sorted = (await conn.runAndReadAll('SELECT count(*), min(r), max(r) FROM (SELECT i, random() AS r, repeat(\'x\', 20) AS pad FROM range(10000000) t(i) ORDER BY r)')).getRows()[0]!;
    assert.equal(sorted[0], 10_000_000n);
  } finally {
    conn.closeSync();
  }
});

test('timeSlices: overlapping sources are cut where a range starts or ends; a slice lists the sources covering it', async () => {
  const { timeSlices } = await import('./read/region-scan.js');
  const src = (name: string, lo: number, hi: number) => ({ from: name, columnIds: new Set<number>(), timeRange: [lo, hi] as const });
  const a = src('a', 0, 99);
  const b = src('b', 90, 199);
  const c = src('c', 150, 160);
  const got = timeSlices([a, b, c]).map((x) => [x.slice.lo, x.slice.hiExclusive, x.sources.map((s) => s.from).join('')]);
  assert.deepEqual(got, [[0n, 90n, 'a'], [90n, 100n, 'ab'], [100n, 150n, 'b'], [150n, 161n, 'bc'], [161n, 200n, 'b']]);
  // Equal ranges stay one slice.
  assert.deepEqual(timeSlices([a, src('d', 0, 99)]).map((x) => [x.slice.lo, x.slice.hiExclusive, x.sources.length]), [[0n, 100n, 2]]);
});

for (const mode of ['last_row', 'last_non_null'] as const) {
  test(`${mode}: files and memtables overlapping in part read like a model (random puts, NULLs, deletes, flushes)`, async (t) => {
    // No compaction: it would merge the overlapping files.
    const engine = await openEngine(t, tempDir(t), { compactAfterFlush: false });
    await engine.createRegion(metadata({ merge_mode: mode }), DIR);
    let seed = 99;
    const r = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
    const model = new Map<string, Array<{ seq: number; del: boolean; v: number | null }>>();
    let seq = 0;
    let base = 0;
    for (let step = 0; step < 40; step++) {
      // Time moves forward as in a real load, with late rows reaching back into older files.
      base += 20;
      const host = `h${Math.floor(r() * 3)}`;
      const from = Math.max(0, base - Math.floor(r() * 60));
      const n = 1 + Math.floor(r() * 30);
      if (r() < 0.2) {
        const ts = Array.from({ length: n }, (_, i) => from + i);
        await engine.write(ID, deletes(host, ts));
        for (const x of ts) model.set(`${host}/${x}`, [...(model.get(`${host}/${x}`) ?? []), { seq: ++seq, del: true, v: null }]);
      } else {
        const v = Array.from({ length: n }, () => (r() < 0.3 ? null : Math.round(r() * 100)));
        await engine.write(ID, {
          op: OP_PUT,
          rowCount: n,
          columns: new Map<number, Vector>([
            [0, { type: 'string', data: Array.from({ length: n }, () => host) }],
            [1, { type: 'int64', data: BigInt64Array.from({ length: n }, (_, i) => BigInt(from + i)) }],
            [2, { type: 'float64', data: Float64Array.from(v, (x) => x ?? 0), valid: Uint8Array.from(v, (x) => (x === null ? 0 : 1)) }],
          ]),
        });
        v.forEach((x, i) => model.set(`${host}/${from + i}`, [...(model.get(`${host}/${from + i}`) ?? []), { seq: ++seq, del: false, v: x }]));
      }
      if (r() < 0.25 && step < 35) await engine.flushRegion(ID);
    }
    const want: Array<[string, number, number | null]> = [];
    for (const [k, ops] of model) {
      const [host, ts] = k.split('/') as [string, string];
      const newest = ops[ops.length - 1]!;
      if (newest.del) continue;
      let v: number | null;
      if (mode === 'last_row') v = newest.v;
      else {
        const lastDel = Math.max(0, ...ops.filter((o) => o.del).map((o) => o.seq));
        v = [...ops].reverse().find((o) => !o.del && o.seq > lastDel && o.v !== null)?.v ?? null;
      }
      want.push([host, Number(ts), v]);
    }
    want.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] - y[1]));
    assert.ok(engine.region(ID).files().length >= 5, `${engine.region(ID).files().length} files`);
    assert.ok(engine.region(ID).memtables().some((m) => !m.isEmpty()), 'rows in the memtable too');
    const scan = await engine.scan(ID);
    const conn = await engine.duckdb.connect();
    try {
      await scan.attach(conn, 'r');
      const got = (await conn.runAndReadAll('SELECT host, epoch_ms(ts)::INTEGER, cpu FROM r ORDER BY host, ts')).getRows();
      assert.deepEqual(got, want);
      await scan.detach(conn);
    } finally {
      scan.release();
      conn.closeSync();
    }
  });
}
