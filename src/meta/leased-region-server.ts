/**
 * A datanode's region server behind region leases (reference internals.md §6.3): a write to a
 * region is refused (RegionReadonly) unless the region's lease is current. The metasrv renews the
 * lease of each region its routes place on this node with every heartbeat answer, for `lease_ms`
 * counted from when the heartbeat was sent; a node cut off from the metasrv, or whose regions the
 * metasrv moved to another node, stops writing once the leases lapse — before the metasrv itself
 * counts the node lost, so a failover never leaves two nodes writing one region.
 *
 * A region created or opened here gets a first lease of 4 heartbeat intervals (GreptimeDB), time
 * for the heartbeats to take over; closing or dropping it ends its lease. Every other request
 * passes through: reads, flushes and the metasrv's own requests are not fenced.
 *
 * Leases are enforced from the first heartbeat answer on (the node has joined a cluster): a
 * datanode no metasrv has ever answered holds only the regions its own region requests created or
 * opened — no metasrv knows them, so none can have moved them — and serves them without fencing
 * (a lone datanode driven through its region service). A datanode opens the regions the metasrv
 * places on it only through the metasrv, so every such region is fenced.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { formatDuration } from '../common/time/duration.js';
import { formatRegionId, type RegionId } from '../types/region-id.js';
import type { RegionMetadata } from '../types/region-metadata.js';
import type { RegionQuery, RegionQueryStream, RegionInfo, RegionServer, RegionSsts, RegionStatistics, ScanRelation } from '../types/region-server.js';
import type { ScanRequest } from '../types/scan-request.js';
import type { WriteBatch } from '../types/write-batch.js';

/** How many heartbeat intervals the first lease of a region opened or created here lasts. */
export const FIRST_LEASE_INTERVALS = 4;

/** What the heartbeat loop renews. */
export interface RegionLeases {
  /** Extends the leases of `ids` to `deadlineMs` (a later deadline already held is kept). */
  renew(ids: Iterable<RegionId>, deadlineMs: number): void;
  /** The interval the metasrv asked for (first leases are counted in it). */
  setHeartbeatInterval(ms: number): void;
}

export interface LeasedRegionServerOptions {
  /** The heartbeat interval until an answer says otherwise. Default 3000. */
  readonly heartbeatIntervalMs?: number;
  /** The time, in ms. Default Date.now. */
  readonly clock?: () => number;
}

export class LeasedRegionServer implements RegionServer, RegionLeases {
  private readonly deadlines = new Map<RegionId, number>();
  private readonly clock: () => number;
  private intervalMs: number;
  readonly scanRelation?: (id: RegionId, scan: ScanRequest, signal?: AbortSignal) => Promise<ScanRelation>;

  constructor(
    private readonly inner: RegionServer,
    opts: LeasedRegionServerOptions = {},
  ) {
    this.clock = opts.clock ?? Date.now;
    this.intervalMs = opts.heartbeatIntervalMs ?? 3000;
    if (inner.scanRelation !== undefined) this.scanRelation = inner.scanRelation.bind(inner);
  }

  /** Whether a heartbeat was ever answered (leases are enforced from then on). */
  private joined = false;

  renew(ids: Iterable<RegionId>, deadlineMs: number): void {
    this.joined = true;
    this.extend(ids, deadlineMs);
  }

  private extend(ids: Iterable<RegionId>, deadlineMs: number): void {
    for (const id of ids) {
      const current = this.deadlines.get(id);
      if (current === undefined || current < deadlineMs) this.deadlines.set(id, deadlineMs);
    }
  }

  setHeartbeatInterval(ms: number): void {
    if (ms > 0) this.intervalMs = ms;
  }

  /** A first lease (4 intervals from now) for a region just opened or created, unless it holds a longer one. */
  grant(id: RegionId): void {
    this.extend([id], this.clock() + FIRST_LEASE_INTERVALS * this.intervalMs);
  }

  /** When the lease of a region ends (undefined: it has none). */
  leaseDeadline(id: RegionId): number | undefined {
    return this.deadlines.get(id);
  }

  /** Fails with RegionReadonly unless the region's lease is current. */
  private checkLease(id: RegionId): void {
    if (!this.joined) return;
    const deadline = this.deadlines.get(id);
    const now = this.clock();
    if (deadline !== undefined && now < deadline) return;
    const why =
      deadline === undefined
        ? 'it holds no lease from the metasrv'
        : `its lease lapsed ${formatDuration(now - deadline)} ago (the metasrv did not renew it: it is unreachable, or the region moved to another datanode)`;
    throw new TsdbError(StatusCode.RegionReadonly, `Region ${formatRegionId(id)} is read-only on this datanode: ${why}`);
  }

  async createRegion(metadata: RegionMetadata, dir: string): Promise<void> {
    await this.inner.createRegion(metadata, dir);
    this.grant(BigInt(metadata.region_id));
  }

  async openRegion(id: RegionId, dir: string, storage?: string): Promise<void> {
    await this.inner.openRegion(id, dir, storage);
    this.grant(id);
  }

  async closeRegion(id: RegionId): Promise<void> {
    this.deadlines.delete(id);
    await this.inner.closeRegion(id);
  }

  async dropRegion(id: RegionId): Promise<void> {
    await this.inner.dropRegion(id);
    this.deadlines.delete(id);
  }

  write(id: RegionId, batch: WriteBatch): Promise<number> {
    try {
      this.checkLease(id);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.inner.write(id, batch);
  }

  alterRegion(id: RegionId, metadata: RegionMetadata): Promise<void> {
    return this.inner.alterRegion(id, metadata);
  }

  truncateRegion(id: RegionId): Promise<void> {
    return this.inner.truncateRegion(id);
  }

  flushRegion(id: RegionId): Promise<void> {
    return this.inner.flushRegion(id);
  }

  compactRegion(id: RegionId): Promise<void> {
    return this.inner.compactRegion(id);
  }

  statistics(id: RegionId): Promise<RegionStatistics> {
    return this.inner.statistics(id);
  }

  ssts(id: RegionId): Promise<RegionSsts> {
    return this.inner.ssts(id);
  }

  info(id: RegionId): Promise<RegionInfo> {
    return this.inner.info(id);
  }

  query(id: RegionId, query: RegionQuery, signal?: AbortSignal): Promise<RegionQueryStream> {
    return this.inner.query(id, query, signal);
  }
}
