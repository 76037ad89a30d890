/**
 * Where a table's regions are served in a cluster (reference internals.md §6.2), kept beside the
 * table's info in the metadata store:
 *
 *   __table_route/{table_id}          TableRoute: each region's leader datanode
 *   __dn_table/{node_id}/{table_id}   DatanodeTable: what a datanode opens at start
 *
 * A standalone server keeps neither: its regions are all in its own engine.
 */
import type { RegionId } from '../types/region-id.js';
import { regionId } from '../types/region-id.js';
import { regionDir, type TableInfo } from './table-info.js';

/** A node of the cluster: its id and the address others reach its gRPC services at. */
export interface Peer {
  readonly id: number;
  readonly addr: string;
}

export interface RegionRoute {
  /** The region's number in its table (its id is `table_id << 32 | number`). */
  readonly region_number: number;
  /** The partition expression this region holds (SQL text), when the table is partitioned. */
  readonly partition_expr?: string;
  /** The datanode serving the region; undefined while it has none (its node lost, no failover). */
  readonly leader_peer?: Peer;
  readonly follower_peers: readonly Peer[];
}

export interface TableRoute {
  readonly table_id: number;
  readonly region_routes: readonly RegionRoute[];
  /** Bumped by every change of the route (failover, migration). */
  readonly version: number;
}

/** A datanode's share of a table: the regions it opens at start, with their directories. */
export interface DatanodeTable {
  readonly table_id: number;
  readonly engine: string;
  /** The `storage` table option (a configured storage provider), when set. */
  readonly storage?: string;
  readonly regions: ReadonlyArray<{ readonly region_number: number; readonly dir: string }>;
}

export function tableRouteKey(tableId: number): string {
  return `__table_route/${tableId}`;
}

export function datanodeTableKey(nodeId: number, tableId: number): string {
  return `__dn_table/${nodeId}/${tableId}`;
}

/** The prefix of every `__dn_table` entry of one datanode. */
export function datanodeTablePrefix(nodeId: number): string {
  return `__dn_table/${nodeId}/`;
}

/** The leader of a region in its table's route; undefined when the route has no such region or no leader. */
export function leaderOf(route: TableRoute, id: RegionId): Peer | undefined {
  return route.region_routes.find((r) => regionId(route.table_id, r.region_number) === id)?.leader_peer;
}

/** Where a table's regions are placed in a cluster: its route and each datanode's share of it. */
export interface TablePlacement {
  readonly route: TableRoute;
  /** Each datanode's share, by node id. */
  readonly datanodeTables: ReadonlyMap<number, DatanodeTable>;
}

/**
 * The placement of a new table whose region `region_numbers[i]` is led by `leaders[i]`: version 0,
 * no followers, each region's partition expression from the table's `PARTITION ON`.
 */
export function tablePlacement(info: TableInfo, leaders: readonly Peer[]): TablePlacement {
  if (leaders.length !== info.region_numbers.length) throw new RangeError(`${leaders.length} leaders for ${info.region_numbers.length} regions`);
  const storage = info.options['storage'];
  const shares = new Map<number, Array<{ region_number: number; dir: string }>>();
  const region_routes = info.region_numbers.map((n, i) => {
    const leader = leaders[i]!;
    let share = shares.get(leader.id);
    if (share === undefined) shares.set(leader.id, (share = []));
    share.push({ region_number: n, dir: regionDir(info, n) });
    const expr = info.partition?.exprs[i];
    return { region_number: n, ...(expr !== undefined && { partition_expr: expr }), leader_peer: { id: leader.id, addr: leader.addr }, follower_peers: [] };
  });
  const datanodeTables = new Map<number, DatanodeTable>();
  for (const [node, regions] of shares) datanodeTables.set(node, { table_id: info.table_id, engine: info.engine, ...(storage !== undefined && { storage }), regions });
  return { route: { table_id: info.table_id, region_routes, version: 0 }, datanodeTables };
}

/** The datanodes a route names (leaders and followers), by id. */
export function routeNodeIds(route: TableRoute): Set<number> {
  const ids = new Set<number>();
  for (const r of route.region_routes) {
    if (r.leader_peer !== undefined) ids.add(r.leader_peer.id);
    for (const f of r.follower_peers) ids.add(f.id);
  }
  return ids;
}
