/**
 * The regions of a cluster as one region server, for a frontend: each request goes to the datanode
 * the table's route names as the region's leader (`__table_route/{table_id}`, read through the
 * metasrv and cached until an event says the route changed). A request that finds the leader gone
 * (unreachable, or the region no longer there: it moved) drops the cached route and, when the route
 * now names another leader, is sent there once more — so frontends follow a failover on their own.
 * A route that cannot be read again is kept, so that a metasrv or etcd outage does not take the
 * tables whose leaders still serve them down with it.
 *
 * Regions are created and removed by the metasrv's DDL procedures, not from here.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { RegionMetadata } from '../types/region-metadata.js';
import { formatRegionId, regionNumberOf, tableIdOf, type RegionId } from '../types/region-id.js';
import type { RegionQuery, RegionQueryStream, RegionInfo, RegionServer, RegionSsts, RegionStatistics } from '../types/region-server.js';
import type { WriteBatch } from '../types/write-batch.js';
import { leaderOf, tableRouteKey, type Peer, type TableRoute } from '../catalog/table-route.js';

/** Errors after which the route is read again: the leader's node is unreachable, or the region is not (or no longer) there. */
const STALE_ROUTE_CODES: ReadonlySet<StatusCode> = new Set([StatusCode.StorageUnavailable, StatusCode.RegionNotFound, StatusCode.RegionReadonly]);

export interface RoutedRegionServerOptions {
  /** Reads a metadata key (the metasrv's store). */
  readonly get: (key: string) => Promise<Uint8Array | undefined>;
  /** A region server for a datanode (one per address, kept until `close()`). */
  readonly connect: (peer: Peer) => RegionServer & { close(): void };
}

export class RoutedRegionServer implements RegionServer {
  private readonly routes = new Map<number, Promise<TableRoute | undefined>>();
  private readonly peers = new Map<string, RegionServer & { close(): void }>();

  constructor(private readonly opts: RoutedRegionServerOptions) {}

  /** Forgets the cached route of a table (undefined: of every table). */
  invalidate(tableId?: number): void {
    if (tableId === undefined) this.routes.clear();
    else this.routes.delete(tableId);
  }

  /** The cached route of a table, read when missing. */
  route(tableId: number): Promise<TableRoute | undefined> {
    let r = this.routes.get(tableId);
    if (r === undefined) {
      r = this.read(tableId);
      this.routes.set(tableId, r);
      const kept = r;
      r.catch(() => {
        if (this.routes.get(tableId) === kept) this.routes.delete(tableId);
      });
    }
    return r;
  }

  private read(tableId: number): Promise<TableRoute | undefined> {
    return this.opts.get(tableRouteKey(tableId)).then((v) => (v === undefined ? undefined : (JSON.parse(Buffer.from(v).toString('utf8')) as TableRoute)));
  }

  /**
   * Reads a table's route again after its leader failed a request. Until the read succeeds the
   * cached route stays: with the metasrv (or its etcd) unreachable it is still the best known,
   * and dropping it would fail every later request of the table, which the leader may well serve.
   */
  private async reread(tableId: number): Promise<void> {
    const fresh = this.read(tableId);
    await fresh;
    this.routes.set(tableId, fresh);
  }

  private async leader(id: RegionId): Promise<Peer> {
    const route = await this.route(tableIdOf(id));
    if (route === undefined) throw new TsdbError(StatusCode.RegionNotFound, `Region ${formatRegionId(id)} not found: its table has no route`);
    const leader = leaderOf(route, id);
    if (leader === undefined) {
      const known = route.region_routes.some((r) => r.region_number === regionNumberOf(id));
      if (!known) throw new TsdbError(StatusCode.RegionNotFound, `Region ${formatRegionId(id)} not found in its table's route`);
      throw new TsdbError(StatusCode.RegionNotReady, `Region ${formatRegionId(id)} has no datanode serving it (its datanode was lost and it has not been moved)`);
    }
    return leader;
  }

  private server(peer: Peer): RegionServer {
    let s = this.peers.get(peer.addr);
    if (s === undefined) {
      s = this.opts.connect(peer);
      this.peers.set(peer.addr, s);
    }
    return s;
  }

  /** Runs `call` on the region's leader; once more on a new leader when the route changed under it. */
  private async onLeader<T>(id: RegionId, call: (server: RegionServer) => Promise<T>): Promise<T> {
    const first = await this.leader(id);
    try {
      return await call(this.server(first));
    } catch (err) {
      if (!(err instanceof TsdbError) || !STALE_ROUTE_CODES.has(err.code)) throw err;
      const now = await this.reread(tableIdOf(id))
        .then(() => this.leader(id))
        .catch(() => first);
      if (now.addr === first.addr && now.id === first.id) throw err;
      return call(this.server(now));
    }
  }

  createRegion(metadata: RegionMetadata): Promise<void> {
    return Promise.reject(new TsdbError(StatusCode.Unexpected, `region ${metadata.region_id} is created by the metasrv's DDL, not by a frontend`));
  }

  openRegion(id: RegionId): Promise<void> {
    return Promise.reject(new TsdbError(StatusCode.Unexpected, `region ${formatRegionId(id)} is opened by its datanode, not by a frontend`));
  }

  closeRegion(id: RegionId): Promise<void> {
    return this.onLeader(id, (s) => s.closeRegion(id));
  }

  alterRegion(id: RegionId, metadata: RegionMetadata): Promise<void> {
    return this.onLeader(id, (s) => s.alterRegion(id, metadata));
  }

  dropRegion(id: RegionId): Promise<void> {
    return this.onLeader(id, (s) => s.dropRegion(id));
  }

  truncateRegion(id: RegionId): Promise<void> {
    return this.onLeader(id, (s) => s.truncateRegion(id));
  }

  flushRegion(id: RegionId): Promise<void> {
    return this.onLeader(id, (s) => s.flushRegion(id));
  }

  compactRegion(id: RegionId): Promise<void> {
    return this.onLeader(id, (s) => s.compactRegion(id));
  }

  write(id: RegionId, batch: WriteBatch): Promise<number> {
    return this.onLeader(id, (s) => s.write(id, batch));
  }

  statistics(id: RegionId): Promise<RegionStatistics> {
    return this.onLeader(id, (s) => s.statistics(id));
  }

  ssts(id: RegionId): Promise<RegionSsts> {
    return this.onLeader(id, (s) => s.ssts(id));
  }

  info(id: RegionId): Promise<RegionInfo> {
    return this.onLeader(id, (s) => s.info(id));
  }

  query(id: RegionId, query: RegionQuery, signal?: AbortSignal): Promise<RegionQueryStream> {
    return this.onLeader(id, (s) => s.query(id, query, signal));
  }

  /** Closes the connections to the datanodes. */
  close(): void {
    for (const s of this.peers.values()) s.close();
    this.peers.clear();
  }
}
