/**
 * Last-row scans (`ScanRequest.lastRow`): the latest row of each series read through one equals
 * the full scan's, over files and memtables overlapping in part, updates of a series' latest time
 * in a newer source, NULL fields merged in last_non_null mode, append mode's equal times, deletes
 * in files and memtables, time ranges, key filters and a TTL; and without deletes the memtables,
 * and files whose last rows were kept from their flush, give fewer rows.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { cpuRegionMetadata, testEngineOptions } from '../../../test/support/engine.js';
import { tempDir } from '../../../test/support/temp.js';
import { regionId } from '../../types/region-id.js';
import type { RegionOptions } from '../../types/region-metadata.js';
import type { ScanRequest } from '../../types/scan-request.js';
import { OP_DELETE, OP_PUT, type Vector, type WriteBatch } from '../../types/write-batch.js';
import { RegionEngine } from '../region-engine.js';

const ID = regionId(1024, 0);
const DIR = 'data/tsdb/public/1024/1024_0000000000/';
/** Times start here (an hour ago), so that a TTL can expire some of them. */
const T0 = Date.now() - 3_600_000;

function puts(host: string, ts: readonly number[], v: ReadonlyArray<number | null>): WriteBatch {
  return {
    op: OP_PUT,
    rowCount: ts.length,
    columns: new Map<number, Vector>([
      [0, { type: 'string', data: ts.map(() => host) }],
      [1, { type: 'int64', data: BigInt64Array.from(ts, (t) => BigInt(T0 + t)) }],
      [2, { type: 'float64', data: Float64Array.from(v, (x) => x ?? 0), valid: Uint8Array.from(v, (x) => (x === null ? 0 : 1)) }],
    ]),
  };
}

function deletes(host: string, ts: readonly number[]): WriteBatch {
  return {
    op: OP_DELETE,
    rowCount: ts.length,
    columns: new Map<number, Vector>([
      [0, { type: 'string', data: ts.map(() => host) }],
      [1, { type: 'int64', data: BigInt64Array.from(ts, (t) => BigInt(T0 + t)) }],
    ]),
  };
}

async function openRegion(t: TestContext, options: Partial<RegionOptions>): Promise<RegionEngine> {
  // No compaction: it would merge the overlapping files.
  const engine = await RegionEngine.open(testEngineOptions(tempDir(t), { compactAfterFlush: false }));
  t.after(() => engine.close());
  await engine.createRegion(cpuRegionMetadata(ID, options), DIR);
  return engine;
}

/** The rows of each host's latest time (all of them: append mode may hold several), and how many rows the scan gave. */
async function latest(engine: RegionEngine, request: ScanRequest): Promise<{ rows: unknown[][]; scanned: number }> {
  const scan = await engine.scan(ID, request);
  const conn = await engine.duckdb.connect();
  try {
    await scan.attach(conn, 'r');
    const rows = (await conn.runAndReadAll('SELECT host, epoch_ms(ts) - ' + String(T0) + ', cpu FROM r QUALIFY ts = max(ts) OVER (PARTITION BY host) ORDER BY host, cpu NULLS FIRST')).getRows();
    const scanned = Number((await conn.runAndReadAll('SELECT count(*) FROM r')).getRows()[0]![0]);
    await scan.detach(conn);
    return { rows, scanned };
  } finally {
    scan.release();
    conn.closeSync();
  }
}

/** Random writes of 4 hosts, time moving forward with late rows into older files, flushes between. */
async function load(engine: RegionEngine, seed: number, opts: { deletes: boolean }): Promise<void> {
  const r = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  let base = 0;
  for (let step = 0; step < 40; step++) {
    base += 20;
    const host = `h${Math.floor(r() * 4)}`;
    const from = Math.max(0, base - Math.floor(r() * 60));
    const n = 1 + Math.floor(r() * 30);
    const ts = Array.from({ length: n }, (_, i) => from + i);
    if (opts.deletes && r() < 0.15) await engine.write(ID, deletes(host, ts));
    else await engine.write(ID, puts(host, ts, ts.map(() => (r() < 0.3 ? null : Math.round(r() * 100)))));
    if (r() < 0.25 && step < 36) await engine.flushRegion(ID);
  }
  // The latest rows updated again in the memtable (a NULL field among them), and a series only there.
  await engine.write(ID, puts('h0', [base + 40], [7]));
  await engine.write(ID, puts('h0', [base + 40], [null]));
  await engine.write(ID, puts('h9', [5, 6], [1, 2]));
}

/** Full and last-row scans of several requests: the same latest rows. Returns the rows each gave without a filter. */
async function compare(engine: RegionEngine, label: string): Promise<{ full: number; last: number }> {
  const end = 820;
  const requests: ScanRequest[] = [{}, { start: BigInt(T0 + 300) }, { end: BigInt(T0 + end) }, { start: BigInt(T0 + 100), end: BigInt(T0 + 500) }, { keys: new Map([[0, ['h1', 'h9']]]) }];
  let sizes = { full: 0, last: 0 };
  for (const [i, request] of requests.entries()) {
    const full = await latest(engine, request);
    const last = await latest(engine, { ...request, lastRow: true });
    assert.deepEqual(last.rows, full.rows, `${label}, request ${i}`);
    assert.ok(full.rows.length >= 2, `${label}, request ${i}: ${full.rows.length} hosts`);
    if (i === 0) sizes = { full: full.scanned, last: last.scanned };
  }
  return sizes;
}

for (const mode of ['last_row', 'last_non_null'] as const) {
  test(`${mode}: the latest rows through a last-row scan are the full scan's; memtables give only their last rows`, async (t) => {
    const engine = await openRegion(t, { merge_mode: mode });
    await load(engine, 7, { deletes: false });
    assert.ok(engine.region(ID).files().length >= 4, `${engine.region(ID).files().length} files`);
    const sizes = await compare(engine, mode);
    assert.ok(sizes.last < sizes.full, `${sizes.last} rows of ${sizes.full}`);
    if (mode === 'last_non_null') {
      // h0's latest time was written twice in the memtable, the newer NULL: the older value shows.
      const rows = (await latest(engine, { lastRow: true })).rows;
      assert.deepEqual(rows.find((row) => row[0] === 'h0')?.[2], 7);
    }
  });

  test(`${mode}: with deletes in files and memtables the last-row scan reads every row, and answers the same`, async (t) => {
    const engine = await openRegion(t, { merge_mode: mode });
    await load(engine, 11, { deletes: true });
    const sizes = await compare(engine, `${mode} with deletes`);
    assert.equal(sizes.last, sizes.full);
  });
}

test('a delete in the memtable at a series\' latest time: the latest row is an older one, updated there too', async (t) => {
  const engine = await openRegion(t, {});
  await engine.write(ID, puts('h0', [1, 2, 3], [1, 2, 3]));
  await engine.write(ID, puts('h1', [1], [1]));
  await engine.flushRegion(ID);
  // The memtable's last row of h0 is the delete at 3; its update of 2 is what h0's latest row holds.
  await engine.write(ID, puts('h0', [2], [9]));
  await engine.write(ID, deletes('h0', [3]));
  const full = await latest(engine, {});
  assert.deepEqual(full.rows, [['h0', 2n, 9], ['h1', 1n, 1]]);
  const last = await latest(engine, { lastRow: true });
  assert.deepEqual(last.rows, full.rows);
  assert.equal(last.scanned, full.scanned);
});

test('append mode: every row of a series\' latest time comes through a last-row scan', async (t) => {
  const engine = await openRegion(t, { append_mode: true });
  await engine.write(ID, puts('h0', [1, 2, 2], [1, 2, 3]));
  await engine.flushRegion(ID);
  await engine.write(ID, puts('h0', [2, 1], [4, 5]));
  await engine.write(ID, puts('h1', [3, 3, 1], [6, 7, 8]));
  const full = await latest(engine, {});
  assert.deepEqual(full.rows, [['h0', 2n, 2], ['h0', 2n, 3], ['h0', 2n, 4], ['h1', 3n, 6], ['h1', 3n, 7]]);
  const last = await latest(engine, { lastRow: true });
  assert.deepEqual(last.rows, full.rows);
  assert.ok(last.scanned < full.scanned);
});

test('TTL: rows past it are not a series\' last row', async (t) => {
  // Rows of the first half hour of T0's hour are expired.
  const engine = await openRegion(t, { ttl: 45 * 60_000 });
  await engine.write(ID, puts('h0', [0, 1_000, 2_000_000], [1, 2, 3]));
  await engine.write(ID, puts('h1', [0, 1_000], [4, 5]));
  const full = await latest(engine, {});
  assert.deepEqual(full.rows, [['h0', 2_000_000n, 3]]);
  assert.deepEqual((await latest(engine, { lastRow: true })).rows, full.rows);
});

test("files' last rows kept from their flush stand for them: a row per series of each file; not past a range's end, nor once a file may hold a delete", async (t) => {
  const engine = await openRegion(t, {});
  for (let f = 0; f < 4; f++) {
    for (const host of ['h0', 'h1', 'h2']) await engine.write(ID, puts(host, Array.from({ length: 50 }, (_, i) => f * 100 + i), Array.from({ length: 50 }, (_, i) => f * 1000 + i)));
    await engine.flushRegion(ID);
  }
  await engine.write(ID, puts('h1', [400], [1]));
  const all = await latest(engine, {});
  assert.deepEqual(all.rows, [['h0', 349n, 3049], ['h1', 400n, 1], ['h2', 349n, 3049]]);
  assert.equal(all.scanned, 601);
  const last = await latest(engine, { lastRow: true });
  assert.deepEqual(last.rows, all.rows);
  // Four files of three series and the memtable's one row.
  assert.equal(last.scanned, 13);
  // A range ending inside the last file: that file is read whole, the others by their last rows.
  const early = { end: BigInt(T0 + 320) };
  const ended = await latest(engine, { ...early, lastRow: true });
  assert.deepEqual(ended.rows, (await latest(engine, early)).rows);
  assert.deepEqual(ended.rows, [['h0', 320n, 3020], ['h1', 320n, 3020], ['h2', 320n, 3020]]);
  assert.equal(ended.scanned, 9 + 3 * 21);
  // A compaction's output has no kept last rows: memtables alone are cut.
  await engine.compactRegion(ID);
  assert.equal(engine.region(ID).files().length, 1);
  const compacted = await latest(engine, { lastRow: true });
  assert.deepEqual(compacted.rows, all.rows);
  assert.equal(compacted.scanned, 601);
  // A file holding a delete: only memtables are cut (the delete's file is older than them).
  await engine.write(ID, deletes('h0', [349]));
  await engine.flushRegion(ID);
  await engine.write(ID, puts('h2', [500], [5]));
  const deleted = await latest(engine, { lastRow: true });
  assert.deepEqual(deleted.rows, (await latest(engine, {})).rows);
  assert.deepEqual(deleted.rows, [['h0', 348n, 3048], ['h1', 400n, 1], ['h2', 500n, 5]]);
  assert.equal(deleted.scanned, 601);
});
