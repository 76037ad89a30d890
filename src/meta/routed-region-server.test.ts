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

const REGION = regionId(1024, 0);

function routeTo(id: number, version: number): Uint8Array {
  const route: TableRoute = { table_id: 1024, version, region_routes: [{ region_number: 0, leader_peer: { id, addr: `dn${id}:3001` }, follower_peers: [] }] };
  return Buffer.from(JSON.stringify(route));
}

/** Datanodes answering flushes, each failing with `fail[id]` while it is set; the calls each got. */
function flushingDatanodes() {
  const fail = new Map<number, TsdbError>();
  const calls = new Map<number, number>();
  const connect = (peer: Peer) =>
    ({
      flushRegion: async () => {
        calls.set(peer.id, (calls.get(peer.id) ?? 0) + 1);
        const err = fail.get(peer.id);
        if (err !== undefined) throw err;
      },
      close: () => {},
    }) as unknown as RegionServer & { close(): void };
  return { fail, calls, connect };
}

test('a leader that fails a request as gone sends it to the leader the route names now', async () => {
  const dn = flushingDatanodes();
  let stored = routeTo(1, 0);
  let reads = 0;
  const routed = new RoutedRegionServer({ get: async (k) => (assert.equal(k, tableRouteKey(1024)), reads++, stored), connect: dn.connect });
  await routed.flushRegion(REGION);
  // The region moved to datanode 2 (a failover); datanode 1 is unreachable.
  stored = routeTo(2, 1);
  dn.fail.set(1, new TsdbError(StatusCode.StorageUnavailable, 'dn1 is unavailable'));
  await routed.flushRegion(REGION);
  assert.deepEqual([dn.calls.get(1), dn.calls.get(2), reads], [2, 1, 2]);
  await routed.flushRegion(REGION);
  assert.deepEqual([dn.calls.get(2), reads], [2, 2], 'the new route is kept');
});

test('a route that cannot be read again is kept: the metasrv unreachable does not take the table down', async () => {
  const dn = flushingDatanodes();
  let metasrvDown = false;
  const routed = new RoutedRegionServer({
    get: async () => {
      if (metasrvDown) throw new TsdbError(StatusCode.StorageUnavailable, 'the metadata store is unreachable');
      return routeTo(1, 0);
    },
    connect: dn.connect,
  });
  await routed.flushRegion(REGION);
  metasrvDown = true;
  // The leader refuses once (its lease lapsed for a moment): the error is the leader's…
  dn.fail.set(1, new TsdbError(StatusCode.RegionReadonly, 'lease lapsed'));
  await assert.rejects(routed.flushRegion(REGION), /lease lapsed/);
  // …and the next request still goes to it.
  dn.fail.delete(1);
  await routed.flushRegion(REGION);
  assert.equal(dn.calls.get(1), 3);
  // An event that says the route changed does drop it.
  routed.invalidate(1024);
  await assert.rejects(routed.flushRegion(REGION), /the metadata store is unreachable/);
});
