/**
 * The data side of a datanode: its storage providers, the region engine, and the DuckDB region
 * queries run in, behind the region server of this process (`datanode/local-region-server.ts`),
 * fenced by region leases (`meta/leased-region-server.ts`), that the component serves on
 * `rpc_addr`. Once the region service listens, the datanode joins its cluster: it opens the
 * regions the metasrv places on it (`__dn_table/{node_id}/…`) and sends heartbeats that report its
 * regions and renew their leases (`meta/datanode-heartbeat.ts`). A metasrv that cannot be reached
 * at start is not fatal: the heartbeats keep trying (logged), the regions are opened when it
 * answers, and `/ready` says 503 meanwhile.
 */
import { availableParallelism, totalmem } from 'node:os';
import type { DuckDBInstance } from '@duckdb/node-api';
import { buildInfo } from '../common/build-info.js';
import { processHealth } from '../common/health/health-board.js';
import type { Logger } from '../common/logging.js';
import type { DatanodeOptions } from '../config/options.js';
import { LocalRegionServer } from '../datanode/local-region-server.js';
import { engineOptions, querySpillDir } from '../engine/engine-options.js';
import { RegionEngine } from '../engine/region-engine.js';
import { DatanodeHeartbeat } from '../meta/datanode-heartbeat.js';
import { LeasedRegionServer } from '../meta/leased-region-server.js';
import type { MetaService } from '../meta/meta-service.js';
import { openDatanodeRegions } from '../meta/open-datanode-regions.js';
import { openQueryDuckDb } from '../query/query-duckdb.js';
import { MetaClient } from '../servers/grpc/meta-client.js';
import { storageProviders } from '../storage/create-object-store.js';
import { openStorageProviders, type StorageProviders } from '../storage/storage-provider.js';
import type { RegionServer } from '../types/region-server.js';
import type { RegionServices } from './component.js';
import { CatalogManager } from '../catalog/catalog-manager.js';
import { MetaKvBackend } from '../meta/meta-kv-backend.js';
import { nameTablesFrom } from './table-names.js';

/**
 * The share of the machine's memory region queries may hold together (a datanode has no `[query]`
 * section: the rest stays with the write buffers, flushes and compactions).
 */
const REGION_QUERY_MEMORY_SHARE = 0.25;
const METASRV_HEALTH_KEY = 'datanode:metasrv';

export class DatanodeServices implements RegionServices {
  private storage: StorageProviders | undefined;
  private engine: RegionEngine | undefined;
  private queries: DuckDBInstance | undefined;
  private meta: MetaClient | undefined;
  private leased: LeasedRegionServer | undefined;
  private heartbeat: DatanodeHeartbeat | undefined;
  private unsetTableNames: (() => void) | undefined;
  private readonly startedAt = Date.now();

  constructor(
    private readonly config: DatanodeOptions,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<RegionServer> {
    const c = this.config;
    const storage = (this.storage = await openStorageProviders(c.storage, { partSize: c.region_engine.mito.sst_write_buffer_size, logger: this.logger }));
    const engine = (this.engine = await RegionEngine.open(engineOptions(c, storage, this.logger)));
    this.queries = await openQueryDuckDb({
      threads: Math.max(1, availableParallelism()),
      memoryLimit: Math.floor(totalmem() * REGION_QUERY_MEMORY_SHARE),
      spillDir: querySpillDir(c.storage.data_home),
      readableDirs: engine.readableDirs(),
      registerFunctions: (conn) => LocalRegionServer.registerScanFunctions(conn),
      sstMetaCache: c.region_engine.mito.sst_meta_cache_size > 0,
      pageCache: c.region_engine.mito.page_cache_size > 0,
    });
    const m = c.meta_client;
    this.meta = new MetaClient({ addrs: m.metasrv_addrs, timeoutMs: m.timeout, connectTimeoutMs: m.connect_timeout, ddlTimeoutMs: m.ddl_timeout, tcpNoDelay: m.tcp_nodelay, logger: this.logger });
    // tsdb_table_series names this datanode's tables from the metasrv's catalog.
    this.unsetTableNames = nameTablesFrom(CatalogManager.attach(new MetaKvBackend(this.meta)));
    this.leased = new LeasedRegionServer(new LocalRegionServer(engine, this.queries));
    return this.leased;
  }

  /** The region service listens at `addr`: open the regions placed here, then heartbeat. */
  serving(addr: string): void {
    const c = this.config;
    const meta = this.meta!;
    const leased = this.leased!;
    const engine = this.engine!;
    // rpc_hostname is what other nodes reach this one at (with the bound port when it names none).
    const host = c.rpc_hostname;
    const advertised = host === undefined ? addr : /:\d+$/.test(host) ? host : `${host}:${addr.slice(addr.lastIndexOf(':') + 1)}`;
    const shared = [...storageProviders(c.storage).values()].every((s) => s.type !== 'File');
    const tracked = trackReachability(meta);
    this.heartbeat = new DatanodeHeartbeat({
      meta: tracked,
      peer: { id: c.node_id!, addr: advertised },
      version: buildInfo().version,
      startTimeMs: this.startedAt,
      sharedStorage: shared,
      openRegionIds: () => engine.regionIds(),
      regions: leased,
      leases: leased,
      openRegion: (r) => leased.openRegion(BigInt(r.region_id), r.dir, r.storage),
      closeRegion: (id) => leased.closeRegion(id),
      logger: this.logger,
    });
    void openDatanodeRegions(tracked, c.node_id!, leased, this.logger)
      .then((r) => this.logger.info({ opened: r.opened.length, failed: r.failed.length, rpc_addr: advertised }, `opened the ${r.opened.length} region(s) the metasrv places on this datanode`))
      .catch((err: unknown) => this.logger.warn({ err }, 'could not read the regions placed on this datanode from the metasrv; they are opened when its heartbeats answer'))
      .finally(() => this.heartbeat?.start());
  }

  async stop(): Promise<void> {
    await this.heartbeat?.stop();
    this.heartbeat = undefined;
    this.unsetTableNames?.();
    this.meta?.close();
    this.meta = undefined;
    this.queries?.closeSync();
    this.queries = undefined;
    try {
      await this.engine?.close();
    } finally {
      this.engine = undefined;
      await this.storage?.close();
      this.storage = undefined;
    }
  }
}

/** The meta client, with `/ready` saying 503 while the metasrv cannot be reached. */
function trackReachability(meta: MetaService): MetaService {
  const track = <T>(p: Promise<T>): Promise<T> =>
    p.then(
      (v) => {
        processHealth.clear(METASRV_HEALTH_KEY);
        return v;
      },
      (err: unknown) => {
        processHealth.set(METASRV_HEALTH_KEY, 'datanode', `cannot reach the metasrv: ${(err as Error).message}`, true);
        throw err;
      },
    );
  return {
    heartbeat: (r) => track(meta.heartbeat(r)),
    get: (k) => meta.get(k),
    range: (p) => track(meta.range(p)),
    allocateTableId: () => meta.allocateTableId(),
    ddl: (t, ms) => meta.ddl(t, ms),
    clusterInfo: () => meta.clusterInfo(),
    subscribe: (l) => meta.subscribe(l),
  };
}
