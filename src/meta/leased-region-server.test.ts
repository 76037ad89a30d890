import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { regionId } from '../types/region-id.js';
import type { RegionMetadata } from '../types/region-metadata.js';
import { OP_PUT, type WriteBatch } from '../types/write-batch.js';
import { FakeRegionServer } from '../../test/support/fake-region-server.js';
import { LeasedRegionServer } from './leased-region-server.js';

const id = regionId(1024, 0);
const metadata: RegionMetadata = {
  region_id: String(id),
  schema_version: 0,
  columns: [{ column_id: 0, name: 'ts', type: 'TimestampMillisecond', semantic_type: 'timestamp', nullable: false }],
  primary_key: [],
  time_index: 0,
  options: { append_mode: false, merge_mode: 'last_row' },
};
const batch: WriteBatch = { op: OP_PUT, rowCount: 1, columns: new Map([[0, { type: 'int64', data: BigInt64Array.of(1n) }]]) };

function readonly(pattern: RegExp): (e: unknown) => boolean {
  return (e) => e instanceof TsdbError && e.code === StatusCode.RegionReadonly && pattern.test(e.message);
}

test('writes need a current lease: a first one of 4 intervals when created or opened, renewals from heartbeats', async () => {
  let now = 10_000;
  const inner = new FakeRegionServer();
  const leased = new LeasedRegionServer(inner, { heartbeatIntervalMs: 1000, clock: () => now });
  // The node has joined a cluster: a heartbeat was answered (with no region yet).
  leased.renew([], now);
  await leased.createRegion(metadata, 'tsdb/public/1024/1024_0000000000/');
  assert.equal(leased.leaseDeadline(id), 14_000);
  now = 13_999;
  assert.equal(await leased.write(id, batch), 1);
  now = 14_000;
  await assert.rejects(leased.write(id, batch), readonly(/Region 4398046511104\(1024, 0\) is read-only on this datanode: its lease lapsed 0s ago \(the metasrv did not renew it: it is unreachable, or the region moved/));
  assert.equal(inner.calls.filter((c) => c.method === 'write').length, 1, 'a refused write never reaches the region');
  // Reads and the metasrv's requests are not fenced.
  await leased.flushRegion(id);
  await leased.statistics(id);

  leased.renew([id], 20_000);
  assert.equal(await leased.write(id, batch), 1);
  leased.renew([id], 15_000);
  assert.equal(leased.leaseDeadline(id), 20_000, 'a renewal never shortens a lease');
  now = 25_000;
  await assert.rejects(leased.write(id, batch), readonly(/lapsed 5s ago/));

  // Closing ends the lease; opening again gives a first one, counted in the interval in force.
  await leased.closeRegion(id);
  assert.equal(leased.leaseDeadline(id), undefined);
  await assert.rejects(leased.write(id, batch), readonly(/it holds no lease from the metasrv/));
  leased.setHeartbeatInterval(2000);
  await leased.openRegion(id, 'tsdb/public/1024/1024_0000000000/');
  assert.equal(leased.leaseDeadline(id), 33_000);
  assert.equal(await leased.write(id, batch), 1);
  await leased.dropRegion(id);
  assert.equal(leased.leaseDeadline(id), undefined);
  assert.equal(leased.scanRelation, undefined, 'the fake has no in-process scans, nor does its wrapper');
});

test('a datanode no metasrv has answered yet fences nothing; the first answer starts the leases', async () => {
  let now = 10_000;
  const inner = new FakeRegionServer();
  const leased = new LeasedRegionServer(inner, { heartbeatIntervalMs: 1000, clock: () => now });
  await leased.createRegion(metadata, 'tsdb/public/1024/1024_0000000000/');
  now = 60_000;
  assert.equal(await leased.write(id, batch), 1, 'a lone datanode serves the regions its own requests made');
  leased.renew([], now);
  await assert.rejects(leased.write(id, batch), readonly(/its lease lapsed 46s ago/));
  leased.renew([id], now + 1000);
  assert.equal(await leased.write(id, batch), 1);
});
