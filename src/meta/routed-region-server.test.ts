import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tableRouteKey, type Peer, type TableRoute } from '../catalog/table-route.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { regionId } from '../types/region-id.js';
import type { RegionServer, RegionStatistics } from '../types/region-server.js';
import { RoutedRegionServer } from './routed-region-server.js';

const STATS: RegionStatistics = { memtable_rows: 0, memtable_bytes: 0, sst_files: 0, sst_bytes: 0, sst_rows: 0 };

/** A datanode double: answers statistics, or fails as told; counts its calls. */
function node(name: string, fail?: StatusCode): RegionServer & { close(): void; calls: number; closed: boolean } {
  const n = {
    calls: 0,
    closed: false,
    close() {
      n.closed = true;
    },
    statistics: async () => {
      n.calls++;
      if (fail !== undefined) throw new TsdbError(fail, `${name} fails`);
      return { ...STATS, memtable_rows: name.length };
    },
  };
  return n as unknown as RegionServer & { close(): void; calls: number; closed: boolean };
}

function routeOf(tableId: number, leaders: Array<Peer | undefined>): TableRoute {
  return { table_id: tableId, version: 0, region_routes: leaders.map((leader_peer, region_number) => ({ region_number, follower_peers: [], ...(leader_peer !== undefined && { leader_peer }) })) };
}

function setup(routes: Map<number, TableRoute>, nodes: Record<string, RegionServer & { close(): void }>) {
  let reads = 0;
  const routed = new RoutedRegionServer({
    get: async (key) => {
      reads++;
      const r = [...routes.values()].find((x) => tableRouteKey(x.table_id) === key);
      return r === undefined ? undefined : Buffer.from(JSON.stringify(r));
    },
    connect: (peer) => nodes[peer.addr]!,
  });
  return { routed, reads: () => reads };
}

test('requests go to the leader the route names; routes are cached until invalidated', async () => {
  const a = node('a');
  const bb = node('bb');
  const routes = new Map([[1024, routeOf(1024, [{ id: 1, addr: 'a' }, { id: 2, addr: 'bb' }])]]);
  const { routed, reads } = setup(routes, { a, bb });
  assert.equal((await routed.statistics(regionId(1024, 0))).memtable_rows, 1);
  assert.equal((await routed.statistics(regionId(1024, 1))).memtable_rows, 2);
  assert.equal(reads(), 1, 'one read of the route for both regions');
  routes.set(1024, routeOf(1024, [{ id: 2, addr: 'bb' }, { id: 2, addr: 'bb' }]));
  assert.equal((await routed.statistics(regionId(1024, 0))).memtable_rows, 1, 'the cached route until told');
  routed.invalidate(1024);
  assert.equal((await routed.statistics(regionId(1024, 0))).memtable_rows, 2);
  routed.close();
  assert.ok(a.closed && bb.closed);
});

test('a leader gone (unreachable, region moved) makes the route read again and the request go to the new leader once', async () => {
  const dead = node('dead', StatusCode.StorageUnavailable);
  const alive = node('alive');
  const routes = new Map([[1024, routeOf(1024, [{ id: 1, addr: 'dead' }])]]);
  const { routed } = setup(routes, { dead, alive });
  // The route still names the dead node: its error, after one more read of the route.
  await assert.rejects(routed.statistics(regionId(1024, 0)), (e) => e instanceof TsdbError && e.code === StatusCode.StorageUnavailable);
  // Failover moved the region while the route was cached: the dead leader's error drops the cached
  // route, and the request goes to the new leader.
  routes.set(1024, routeOf(1024, [{ id: 2, addr: 'alive' }]));
  assert.equal((await routed.statistics(regionId(1024, 0))).memtable_rows, 5);
  assert.equal(alive.calls, 1);
  // A user's mistake (not a stale route) is not retried elsewhere.
  const wrong = node('wrong', StatusCode.InvalidArguments);
  const r2 = setup(new Map([[1025, routeOf(1025, [{ id: 3, addr: 'wrong' }])]]), { wrong });
  await assert.rejects(r2.routed.statistics(regionId(1025, 0)), (e) => e instanceof TsdbError && e.code === StatusCode.InvalidArguments);
  assert.equal(wrong.calls, 1);
});

test('a region without a leader, or unknown to its route, is a clear error; regions are created by the metasrv only', async () => {
  const { routed } = setup(new Map([[1024, routeOf(1024, [undefined])]]), {});
  await assert.rejects(routed.statistics(regionId(1024, 0)), (e) => e instanceof TsdbError && e.code === StatusCode.RegionNotReady && /has no datanode serving it/.test(e.message));
  await assert.rejects(routed.statistics(regionId(1024, 7)), (e) => e instanceof TsdbError && e.code === StatusCode.RegionNotFound && /not found in its table's route/.test(e.message));
  await assert.rejects(routed.statistics(regionId(2000, 0)), (e) => e instanceof TsdbError && e.code === StatusCode.RegionNotFound && /its table has no route/.test(e.message));
  await assert.rejects(routed.openRegion(regionId(1024, 0)), (e) => e instanceof TsdbError && e.code === StatusCode.Unexpected);
});
