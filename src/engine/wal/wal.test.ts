import assert from 'node:assert/strict';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { StatusCode } from '../../common/error/status-code.js';
import type { TsdbError } from '../../common/error/tsdb-error.js';
import { processHealth } from '../../common/health/health-board.js';
import { tempDir } from '../../../test/support/temp.js';
import { fillDisk, mountTmpfs } from '../../../test/support/tmpfs.js';
import { A, B, batch, openWal, replayAll } from '../../../test/support/wal.js';
import type { RegionId } from '../../types/region-id.js';
import type { WalRecord } from './record.js';
import { WalCorruptionError } from './wal.js';

const seqs = (records: WalRecord[], r: RegionId) => records.filter((x) => x.regionId === r).map((x) => x.sequence);

test('appended records replay per region after the flushed sequence, and survive a reopen', async (t) => {
  const dir = tempDir(t);
  const wal = await openWal(t, dir);
  for (let n = 0; n < 5; n++) await wal.append([batch(A, n), batch(B, n)]);
  const all = await replayAll(wal, new Map([[A, 0], [B, 0]]));
  assert.deepEqual(seqs(all, A), [1, 11, 21, 31, 41]);
  assert.deepEqual(seqs(all, B), [1, 11, 21, 31, 41]);
  assert.deepEqual(Buffer.from(all[0]!.payload).subarray(0, 9).toString(), `${A}`.slice(0, 9));
  // After a flush up to sequence 20 only later batches come back.
  assert.deepEqual(seqs(await replayAll(wal, new Map([[A, 20]])), A), [21, 31, 41]);
  await wal.close();

  const again = await openWal(t, dir);
  assert.deepEqual(seqs(await replayAll(again, new Map([[A, 30]])), A), [31, 41]);
  // Each open starts a segment of its own.
  assert.equal(readdirSync(dir).filter((f) => f.endsWith('.wal')).length, 2);
});

test('replay hands out batches of at most read_batch_size records', async (t) => {
  const wal = await openWal(t, tempDir(t), { readBatchSize: 7 });
  for (let n = 0; n < 20; n++) await wal.append([batch(A, n)]);
  const sizes: number[] = [];
  for await (const b of wal.replay(new Map([[A, 0]]))) sizes.push(b.length);
  assert.deepEqual(sizes, [7, 7, 6]);
});

test('group commit: concurrent appends share writes and syncs', async (t) => {
  const wal = await openWal(t, tempDir(t), { syncWrite: true });
  await Promise.all(Array.from({ length: 200 }, (_, n) => wal.append([batch(A, n)])));
  assert.equal(wal.stats.appends, 200);
  assert.ok(wal.stats.writes < 50, `${wal.stats.writes} writes for 200 concurrent appends`);
  assert.equal(wal.stats.syncs, wal.stats.writes, 'with sync_write every write is synced');
  assert.deepEqual(seqs(await replayAll(wal, new Map([[A, 0]])), A), Array.from({ length: 200 }, (_, n) => n * 10 + 1));
});

test('segments rotate at wal.file_size; replay reads across them', async (t) => {
  const dir = tempDir(t);
  const wal = await openWal(t, dir, { fileSize: 4096 });
  for (let n = 0; n < 100; n++) await wal.append([batch(A, n, 200)]);
  const files = readdirSync(dir).filter((f) => f.endsWith('.wal'));
  assert.ok(files.length >= 5, `${files.length} segments`);
  for (const f of files) assert.ok(statSync(`${dir}/${f}`).size <= 4096, `${f} is within file_size`);
  assert.equal((await replayAll(wal, new Map([[A, 0]]))).length, 100);
  // A batch larger than file_size gets a segment of its own.
  await wal.append([batch(B, 0, 10_000)]);
  assert.equal((await replayAll(wal, new Map([[B, 0]])))[0]!.payload.length, 10_000);
});

test('purge removes segments from the oldest end once every region in them has flushed', async (t) => {
  const dir = tempDir(t);
  const wal = await openWal(t, dir, { fileSize: 2048 });
  for (let n = 0; n < 30; n++) await wal.append([batch(A, n, 100)]);
  await wal.append([batch(B, 0, 100)]);
  for (let n = 30; n < 60; n++) await wal.append([batch(A, n, 100)]);
  const before = wal.segmentCount();
  assert.deepEqual(await wal.purge(), [], 'nothing is flushed yet');
  assert.deepEqual(wal.regionsPinningOldest(), [A]);

  wal.markFlushed(A, 600);
  const removed = await wal.purge();
  assert.ok(removed.length > 0 && removed.length < before, 'the segments before region B\'s record are purged');
  assert.deepEqual(wal.regionsPinningOldest(), [B], 'B pins the oldest segment now');
  assert.deepEqual(seqs(await replayAll(wal, new Map([[A, 300]])), A).slice(0, 1), [301]);

  wal.forgetRegion(B);
  await wal.purge();
  assert.equal(wal.segmentCount(), 1, 'only the active segment is left');
  assert.ok(wal.totalSize() < 2048);
});

test('a gap in a region\'s sequences is reported as missing records', async (t) => {
  const wal = await openWal(t, tempDir(t));
  await wal.append([batch(A, 0)]);
  await wal.append([batch(A, 2)]); // sequences 11..20 never written
  await assert.rejects(replayAll(wal, new Map([[A, 0]])), (err: WalCorruptionError) =>
    err instanceof WalCorruptionError && /expects sequence 11 but the record holds 21: records are missing/.test(err.message));
  // Flushed past the gap, the region opens.
  assert.deepEqual(seqs(await replayAll(wal, new Map([[A, 20]])), A), [21]);
});

test('appends after close are refused', async (t) => {
  const wal = await openWal(t, tempDir(t));
  await wal.close();
  await assert.rejects(wal.append([batch(A, 0)]), /the WAL is closed/);
});

test('a full disk: the failed append is refused (StorageUnavailable) and cut from the segment; appends go on once space returns', async (t) => {
  const disk = mountTmpfs(t, 1);
  const dir = join(disk, 'wal');
  const wal = await openWal(t, dir);
  const acknowledged: number[] = [];
  await wal.append([batch(A, 0, 1000)]);
  acknowledged.push(0);
  fillDisk(join(disk, 'filler'));
  const segment = join(dir, readdirSync(dir).find((f) => f.endsWith('.wal'))!);
  const before = statSync(segment).size;
  // Large enough not to fit in the pages the segment already has.
  for (const n of [1, 2]) {
    await assert.rejects(wal.append([batch(A, n, 64 * 1024)]), (err: TsdbError) => {
      assert.equal(err.code, StatusCode.StorageUnavailable);
      assert.equal(err.message, `WAL write to ${segment} failed: no space left on the device; the write was not applied, retry it later`);
      return true;
    });
    assert.equal(statSync(segment).size, before, 'what the failed write left is cut');
  }
  assert.equal(processHealth.report().conditions.find((c) => c.source === 'wal')?.message, `WAL writes fail: no space left on the device (${dir}); writes are refused until they succeed again`);
  rmSync(join(disk, 'filler'));
  // The refused sequences are taken again by the next write (region.ts gives them back).
  await wal.append([batch(A, 1, 64 * 1024)]);
  acknowledged.push(1);
  assert.equal(processHealth.report().conditions.find((c) => c.source === 'wal'), undefined, 'the condition is over');
  assert.deepEqual(seqs(await replayAll(wal, new Map([[A, 0]])), A), acknowledged.map((n) => n * 10 + 1));
  await wal.close();
  const again = await openWal(t, dir);
  assert.deepEqual(seqs(await replayAll(again, new Map([[A, 0]])), A), acknowledged.map((n) => n * 10 + 1));
});

test('a full disk at rotation: the new segment is not left behind, the active one stays, appends go on once space returns', async (t) => {
  const disk = mountTmpfs(t, 1);
  const dir = join(disk, 'wal');
  const wal = await openWal(t, dir, { fileSize: 8192 });
  await wal.append([batch(A, 0, 6000)]);
  const files = readdirSync(dir).filter((f) => f.endsWith('.wal'));
  fillDisk(join(disk, 'filler'));
  await assert.rejects(wal.append([batch(A, 1, 6000)]), { code: StatusCode.StorageUnavailable });
  assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.wal')), files, 'no half-made segment');
  rmSync(join(disk, 'filler'));
  await wal.append([batch(A, 1, 6000)]);
  assert.equal(readdirSync(dir).filter((f) => f.endsWith('.wal')).length, files.length + 1);
  assert.deepEqual(seqs(await replayAll(wal, new Map([[A, 0]])), A), [1, 11]);
});
