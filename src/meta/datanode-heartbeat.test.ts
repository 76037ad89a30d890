import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { silentLogger } from '../common/logging.js';
import { regionId, type RegionId } from '../types/region-id.js';
import { OP_PUT, type WriteBatch } from '../types/write-batch.js';
import { metasrvHarness, tableInfo } from '../../test/support/metasrv-harness.js';
import { DatanodeHeartbeat, type DatanodeHeartbeatOptions } from './datanode-heartbeat.js';
import { MemoryKvBackend } from './kv/memory-kv-backend.js';
import { LeasedRegionServer } from './leased-region-server.js';
import type { HeartbeatRequest, HeartbeatResponse, MetaService } from './meta-service.js';
import { openDatanodeRegions } from './open-datanode-regions.js';

const batch: WriteBatch = { op: OP_PUT, rowCount: 1, columns: new Map([[1, { type: 'int64', data: BigInt64Array.of(1n) }]]) };

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 1));
  assert.ok(cond(), 'condition not met in time');
}

test('a datanode opens its regions at start, keeps their leases by heartbeats, and opens and closes what the answers say', async (t) => {
  const h = await metasrvHarness(t, new MemoryKvBackend(), [1, 2], { heartbeatIntervalMs: 1000 });
  await h.ms.ddl({ kind: 'create_table', info: tableInfo(1024, 'a', { region_numbers: [0, 1, 2] }), if_not_exists: false });
  const fake = h.fakes.get(1)!; // regions 0 and 2 (round robin)
  const [r0, r2] = [regionId(1024, 0), regionId(1024, 2)];
  // The datanode restarts: its regions are closed until it opens them.
  for (const id of fake.openIds()) await fake.closeRegion(id);
  const leased = new LeasedRegionServer(fake, { heartbeatIntervalMs: 1000, clock: () => h.now });
  const opened = await openDatanodeRegions(h.ms, 1, leased, silentLogger());
  assert.deepEqual([...opened.opened].sort(), [r0, r2].sort());
  assert.deepEqual(opened.failed, []);
  assert.equal(leased.leaseDeadline(r0), h.now + 4000, 'the first lease: 4 intervals');

  const hb = new DatanodeHeartbeat({
    meta: h.ms,
    peer: h.peer(1),
    version: 'test',
    startTimeMs: 1,
    sharedStorage: true,
    openRegionIds: () => fake.openIds(),
    regions: leased,
    leases: leased,
    openRegion: (r) => leased.openRegion(BigInt(r.region_id), r.dir, r.storage),
    closeRegion: (id) => leased.closeRegion(id),
    logger: silentLogger(),
    clock: () => h.now,
  });
  h.now += 3500;
  const sentAt = h.now;
  const res = await hb.beat();
  assert.deepEqual([...res.leased_regions].sort(), [String(r0), String(r2)].sort());
  assert.equal(leased.leaseDeadline(r0), sentAt + 4000, 'renewed from when the heartbeat was sent');
  assert.equal(hb.interval, 1000);
  h.now += 3999;
  assert.equal(await leased.write(r0, batch), 1);
  h.now += 1;
  await assert.rejects(leased.write(r0, batch), (e: unknown) => e instanceof TsdbError && e.code === StatusCode.RegionReadonly);
  await hb.beat();
  assert.equal(await leased.write(r0, batch), 1, 'a renewal makes it writable again');

  // A region the routes place elsewhere is closed; one placed here and closed is opened.
  const stray: RegionId = regionId(1024, 1); // routed to datanode 2
  await fake.createRegion({ ...fake.regions.get(r0)!.metadata, region_id: String(stray) }, 'elsewhere/');
  await fake.closeRegion(r2);
  const res2 = await hb.beat();
  assert.deepEqual(res2.close_regions, [String(stray)]);
  assert.deepEqual(res2.open_regions.map((r) => r.region_id), [String(r2)]);
  await until(() => fake.openIds().includes(r2) && !fake.openIds().includes(stray));
  assert.equal(leased.leaseDeadline(r2), h.now + 4000, 'opened through the wrapper: a first lease');
});

/** A meta service whose heartbeats fail until `up` is set. */
function flakyMeta(): MetaService & { up: boolean; calls: HeartbeatRequest[] } {
  const answer: HeartbeatResponse = { lease_ms: 4000, heartbeat_interval_ms: 20, leased_regions: [], close_regions: [], open_regions: [] };
  const meta = {
    up: false,
    calls: [] as HeartbeatRequest[],
    heartbeat: async (req: HeartbeatRequest) => {
      meta.calls.push(req);
      if (!meta.up) throw new TsdbError(StatusCode.StorageUnavailable, 'metasrv unreachable');
      return answer;
    },
  };
  return meta as unknown as MetaService & { up: boolean; calls: HeartbeatRequest[] };
}

test('failed heartbeats are retried and logged once, then once a minute, and once more when they succeed again', async () => {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as { level: number; msg: string }) });
  let now = 0;
  const meta = flakyMeta();
  const renewed: RegionId[][] = [];
  const opts: DatanodeHeartbeatOptions = {
    meta,
    peer: { id: 1, addr: 'a:1' },
    version: 'v',
    startTimeMs: 0,
    sharedStorage: false,
    openRegionIds: () => [7n],
    regions: { statistics: () => Promise.reject(new Error('closed meanwhile')) },
    leases: { renew: (ids) => void renewed.push([...ids]), setHeartbeatInterval: () => {} },
    openRegion: async () => {},
    closeRegion: async () => {},
    logger,
    clock: () => now,
  };
  const hb = new DatanodeHeartbeat(opts);
  for (let i = 0; i < 5; i++) {
    now += 3000;
    await assert.rejects(hb.beat());
  }
  const warnings = () => lines.filter((l) => l.level === 40).length;
  assert.equal(warnings(), 1, 'five failures, one warning');
  now += 60_000;
  await assert.rejects(hb.beat());
  assert.equal(warnings(), 2, 'again after a minute');
  meta.up = true;
  await hb.beat();
  assert.ok(lines.some((l) => l.level === 30 && /reach the metasrv again/.test(l.msg)));
  assert.deepEqual(meta.calls.at(-1)!.regions, [{ region_id: '7', memtable_rows: 0, memtable_bytes: 0, sst_rows: 0, sst_files: 0, sst_bytes: 0 }], 'reported even when its statistics fail');
  assert.deepEqual(renewed.at(-1), []);

  // The loop: beats at the interval the answers ask for, retrying failures; stop ends it.
  meta.up = false;
  meta.calls.length = 0;
  const loop = new DatanodeHeartbeat({ ...opts, intervalMs: 20, logger: silentLogger(), clock: Date.now });
  loop.start();
  await until(() => meta.calls.length >= 3);
  meta.up = true;
  const before = meta.calls.length;
  await until(() => meta.calls.length >= before + 3);
  await loop.stop();
  const stoppedAt = meta.calls.length;
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(meta.calls.length, stoppedAt, 'no heartbeat after stop');
});
