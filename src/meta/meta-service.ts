/**
 * What a metasrv offers the other nodes of a cluster (reference internals.md §6), as one interface:
 * the metasrv implements it (`meta/metasrv/`), the gRPC meta client speaks it over the network
 * (`servers/grpc/meta-client.ts`), and datanodes and frontends use it without knowing which.
 *
 * - Heartbeats: every node reports itself every `heartbeat_interval_ms`; a datanode also reports
 *   the regions it has open and gets back the leases of those the routes place on it (a region
 *   whose lease lapses refuses writes: a node cut off from metasrv cannot write after its regions
 *   moved), the regions it should close (they moved) and those it should open (placed on it).
 * - Metadata reads: the catalog and the routes in the metadata store, read-only (every change is DDL).
 * - DDL: run by metasrv as procedures (persisted, locked, retried; a metasrv restarted midway
 *   finishes or undoes them); a task answers once its change is committed and every subscriber told.
 * - Events: after every committed change, subscribers are told what to forget from their caches.
 */
import type { TableInfo } from '../catalog/table-info.js';
import type { ViewInfo } from '../catalog/view-info.js';
import type { Peer } from '../catalog/table-route.js';
import type { KvEntry } from './kv/kv-backend.js';

export type NodeRole = 'datanode' | 'frontend' | 'metasrv';

/** What a datanode reports of one region it has open. */
export interface RegionStat {
  /** The region id, as a decimal string (a u64). */
  readonly region_id: string;
  readonly memtable_rows: number;
  readonly memtable_bytes: number;
  readonly sst_rows: number;
  readonly sst_files: number;
  readonly sst_bytes: number;
}

export interface HeartbeatRequest {
  readonly role: 'datanode' | 'frontend';
  /** The node's id (a frontend's: any number unique among frontends) and its gRPC address. */
  readonly peer: Peer;
  readonly version: string;
  readonly start_time_ms: number;
  /** A datanode's open regions (empty for a frontend). */
  readonly regions: readonly RegionStat[];
  /** Whether the node's regions are on storage other nodes can read (object storage): only those can fail over. */
  readonly shared_storage?: boolean;
}

/** A region the metasrv wants a datanode to open (placed there by a route). */
export interface RegionToOpen {
  readonly region_id: string;
  readonly dir: string;
  readonly storage?: string;
}

export interface HeartbeatResponse {
  /** How long the leases in this answer last, counted from when the node sent its request. */
  readonly lease_ms: number;
  /** The interval at which the node is to send heartbeats. */
  readonly heartbeat_interval_ms: number;
  /** Regions (of those reported) whose routes place them on this node: their leases are renewed. */
  readonly leased_regions: readonly string[];
  /** Regions this node reported that the routes place elsewhere or nowhere: to be closed. */
  readonly close_regions: readonly string[];
  /** Regions the routes place on this node that it did not report: to be opened. */
  readonly open_regions: readonly RegionToOpen[];
}

export interface NodeInfo {
  readonly peer: Peer;
  readonly role: NodeRole;
  readonly version: string;
  readonly start_time_ms: number;
  /** When its last heartbeat arrived (metasrv's clock); for the metasrv itself, now. */
  readonly last_activity_ms: number;
  /** Whether its lease is current (always for the metasrv). */
  readonly alive: boolean;
  /** Regions it reported in its last heartbeat (datanodes). */
  readonly region_count?: number;
}

export type DdlTask =
  | { readonly kind: 'create_table'; readonly info: TableInfo; readonly if_not_exists: boolean }
  | { readonly kind: 'alter_table'; readonly before: TableInfo; readonly after: TableInfo }
  | { readonly kind: 'drop_table'; readonly info: TableInfo }
  | { readonly kind: 'truncate_table'; readonly info: TableInfo }
  | { readonly kind: 'create_database'; readonly name: string; readonly options: Readonly<Record<string, string>>; readonly if_not_exists: boolean }
  | { readonly kind: 'alter_database'; readonly name: string; readonly set: Readonly<Record<string, string>>; readonly unset: readonly string[] }
  | { readonly kind: 'drop_database'; readonly name: string }
  | { readonly kind: 'create_view'; readonly info: ViewInfo; readonly replace: boolean }
  | { readonly kind: 'drop_view'; readonly info: ViewInfo };

export interface DdlResult {
  /** create_table / create_database: whether it was created (false: it existed, IF NOT EXISTS). */
  readonly created?: boolean;
}

/** What a cache of metadata must forget after a change (or everything, when changes may have been missed). */
export type MetaEvent = { readonly kind: 'table_changed'; readonly table_id: number } | { readonly kind: 'database_changed'; readonly name: string } | { readonly kind: 'reset' };

export interface MetaService {
  heartbeat(req: HeartbeatRequest): Promise<HeartbeatResponse>;
  get(key: string): Promise<Uint8Array | undefined>;
  /** Every entry whose key starts with `prefix`, sorted by key. */
  range(prefix: string): Promise<KvEntry[]>;
  allocateTableId(): Promise<number>;
  /** Runs a DDL task; fails with DeadlineExceeded after `timeoutMs` (the procedure still ends on its own). */
  ddl(task: DdlTask, timeoutMs?: number): Promise<DdlResult>;
  /** The nodes of the cluster (the metasrv first). */
  clusterInfo(): Promise<NodeInfo[]>;
  /**
   * Calls `listener` after every committed metadata change (and with `reset` whenever changes may
   * have been missed, e.g. after a reconnect). Returns the function that stops it.
   */
  subscribe(listener: (event: MetaEvent) => void): () => void;
}
