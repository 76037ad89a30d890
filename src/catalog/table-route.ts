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
