/**
 * Crash test: a child process writes numbered batches (flushes, compactions, manifest
 * checkpoints and WAL purges going on) and reports each acknowledgement; it is killed with SIGKILL
 * at random moments. After each kill the region is reopened: every acknowledged batch is present
 * exactly once, and no batch is half there. TSDB_CRASH_ITERATIONS sets the number of kills
 * (default 8 in CI; raise it for a longer local run).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runAndKill } from '../../test/support/acked-child.js';
import { tempDir } from '../../test/support/temp.js';
import { crashEngineOptions, crashStorage, CRASH_DIR, CRASH_REGION } from '../../test/support/engine-crash-setup.js';
import { startS3rver } from '../../test/support/object-servers.js';
import { RegionEngine } from './region-engine.js';

const CHILD = new URL('../../test/support/engine-crash-child.js', import.meta.url).pathname;
const ITERATIONS = Number(process.env['TSDB_CRASH_ITERATIONS'] ?? 8);
const ROWS = 50;
type MemtableKind = 'time_series' | 'partition_tree';

/** Runs the writer from batch `first`, kills it after `killAfterMs`; returns the acknowledged batches. */
function runWriter(dir: string, first: number, killAfterMs: number, memtable: MemtableKind, s3?: Record<string, string>): Promise<number[]> {
  return runAndKill(CHILD, [dir, String(first), String(ROWS), memtable, ...(s3 === undefined ? [] : [JSON.stringify(s3)])], killAfterMs);
}

/**
 * Counts of rows per batch in the region now; and, on object storage, checks that every SST object
 * of the region is one its manifest records (orphans of an upload cut short are gone once it opens).
 */
async function batches(dir: string, memtable: MemtableKind, s3?: Record<string, string>): Promise<Map<number, number>> {
  const storage = await crashStorage(dir, s3);
  const engine = await RegionEngine.open(crashEngineOptions(dir, memtable, storage));
  try {
    await engine.openRegion(CRASH_REGION, CRASH_DIR);
    await engine.idle();
    if (s3 !== undefined) {
      const known = new Set(engine.region(CRASH_REGION).files().map((f) => `${CRASH_DIR}${f.file_id}.parquet`));
      const stored = (await storage.get().store.list(CRASH_DIR)).map((e) => e.path).filter((p) => p.endsWith('.parquet'));
      for (const p of stored) assert.ok(known.has(p), `${p} is in the bucket but not in the manifest`);
      for (const p of known) assert.ok(stored.includes(p), `${p} is in the manifest but not in the bucket`);
      objectsSeen = Math.max(objectsSeen, stored.length);
    }
    const scan = await engine.scan(CRASH_REGION);
    const conn = await engine.duckdb.connect();
    try {
      await scan.attach(conn, 'c');
      const rows = (await conn.runAndReadAll('SELECT batch, count(*), count(DISTINCT ts) FROM c GROUP BY batch')).getRows();
      const out = new Map<number, number>();
      for (const [b, n, distinct] of rows) {
        assert.equal(n, distinct, `batch ${b} has duplicate rows`);
        out.set(Number(b), Number(n));
      }
      return out;
    } finally {
      await scan.detach(conn);
      scan.release();
      conn.closeSync();
    }
  } finally {
    await engine.close();
    await storage.close();
  }
}

/** The most SST objects a reopen on object storage found (the S3 run must have flushed there). */
let objectsSeen = 0;

async function crashLoop(dir: string, iterations: number, s3?: Record<string, string>): Promise<void> {
  const acknowledged = new Set<number>();
  let next = 0;
  for (let i = 0; i < iterations; i++) {
    // The memtable kind alternates between runs (it is not part of the stored state).
    const memtable: MemtableKind = i % 2 === 0 ? 'time_series' : 'partition_tree';
    const acked = await runWriter(dir, next, 150 + Math.floor(Math.random() * 600), memtable, s3);
    for (const b of acked) acknowledged.add(b);
    const present = await batches(dir, i % 3 === 0 ? 'partition_tree' : memtable, s3);
    for (const b of acknowledged) assert.equal(present.get(b), ROWS, `iteration ${i}: acknowledged batch ${b} has ${present.get(b) ?? 0} of ${ROWS} rows`);
    for (const [b, n] of present) assert.equal(n, ROWS, `iteration ${i}: batch ${b} is half there (${n} of ${ROWS} rows)`);
    next = Math.max(next, ...present.keys(), ...acknowledged) + 1;
  }
  assert.ok(acknowledged.size > iterations * 5, `only ${acknowledged.size} batches were acknowledged`);
}

test(`acknowledged writes survive SIGKILL at ${ITERATIONS} random moments, exactly once, never half (both memtable kinds)`, async (t) => {
  await crashLoop(tempDir(t), ITERATIONS);
});

test(`on S3 (s3rver, through the file cache): the same at ${ITERATIONS} kills, and every SST object is in the manifest after each reopen`, async (t) => {
  const server = await startS3rver();
  t.after(() => server.stop());
  await crashLoop(tempDir(t), ITERATIONS, server.config(`crash-${process.pid}`));
  assert.ok(objectsSeen > 0, 'flushes reached the bucket');
});
