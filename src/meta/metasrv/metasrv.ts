/**
 * The metasrv (reference internals.md §6, DESIGN.md D7): the `MetaService` of a cluster, in
 * process. The gRPC transport (`servers/grpc/`) serves it to other nodes; the wiring
 * (`components/`) constructs it over the cluster's key-value store (etcd, or memory).
 *
 * - Catalog: the only writer of the cluster's metadata, through a CatalogManager over the store.
 * - DDL: each task a procedure (procedure-manager.ts): persisted, locked, retried; a restarted
 *   metasrv finishes or undoes what it finds (`start()`). A task answers once its change is
 *   committed and every subscriber told; after `timeoutMs` it fails and the procedure goes on.
 * - Heartbeats: nodes recorded (cluster-nodes.ts; in memory, written to the store without waiting
 *   for it, and placements read from the catalog's cache: an etcd outage alone does not let the
 *   leases of regions whose placement is known lapse); a datanode is told which of its regions keep
 *   their lease (those the routes place there), which to close (placed elsewhere or nowhere) and
 *   which to open (placed there, not reported). Regions a procedure is creating, dropping or
 *   moving are left out of all three until it is done.
 * - Placement: new regions go to datanodes with a current lease, chosen by the selector.
 * - Failover (`enableFailover`): every second, the regions of each datanode whose lease lapsed
 *   and whose storage is shared are moved to live datanodes (failover-procedure.ts). Without it
 *   routes stay; a datanode that comes back is told to close whatever moved meanwhile.
 */
import { CatalogManager } from '../../catalog/catalog-manager.js';
import type { Peer } from '../../catalog/table-route.js';
import { buildInfo } from '../../common/build-info.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Logger } from '../../common/logging.js';
import { formatDuration } from '../../common/time/duration.js';
import { formatRegionId, regionId, type RegionId } from '../../types/region-id.js';
import type { RegionServer } from '../../types/region-server.js';
import type { KvBackend, KvEntry } from '../kv/kv-backend.js';
import type { DdlResult, DdlTask, HeartbeatRequest, HeartbeatResponse, MetaEvent, MetaService, NodeInfo, RegionToOpen } from '../meta-service.js';
import { AlterTableProcedure, ALTER_TABLE, type AlterTableData } from './alter-table-procedure.js';
import { ClusterNodes } from './cluster-nodes.js';
import { CreateTableProcedure, CREATE_TABLE, type CreateTableData } from './create-table-procedure.js';
import { VIEW, ViewProcedure, type ViewData } from './view-procedure.js';
import { DATABASE, DatabaseProcedure, type DatabaseData } from './database-procedure.js';
import { DropTableProcedure, DROP_TABLE, type DropTableData } from './drop-table-procedure.js';
import { FailoverProcedure, FAILOVER, type FailoverData } from './failover-procedure.js';
import type { Procedure, ProcedureRecord } from './procedure.js';
import { ProcedureManager } from './procedure-manager.js';
import { createSelector, type Selector, type SelectorName } from './selector.js';
import { TruncateTableProcedure, TRUNCATE_TABLE, type TruncateTableData } from './truncate-table-procedure.js';
import { datanodeRegions, heartbeatReceived, leasesGranted } from '../../common/metrics/meta-metrics.js';

export const DEFAULT_HEARTBEAT_INTERVAL_MS = 3000;
/** A frontend reports itself 6× less often than a datanode (GreptimeDB). */
const FRONTEND_INTERVAL_FACTOR = 6;
const FAILOVER_TICK_MS = 1000;
/** How long stop() waits for heartbeats being written to the store. */
const NODE_WRITE_WAIT_MS = 1000;

/** A node's lease: 3 heartbeat intervals and 1 s (10 s for the default 3 s). */
export function leaseMsOf(intervalMs: number): number {
  return 3 * intervalMs + 1000;
}

export interface MetasrvParams {
  /** The cluster's metadata store. */
  readonly kv: KvBackend;
  /** The address nodes reach this metasrv at (`server_addr`), shown in `clusterInfo()`. */
  readonly serverAddr: string;
  /** How the metasrv reaches a datanode's region service (the gRPC region client); `close()` is called on stop when present. */
  readonly connect: (peer: Peer) => RegionServer;
  readonly logger: Logger;
  /** How datanodes are chosen for new regions. Default `lease_based` (the option's default). */
  readonly selector?: SelectorName;
  /** Datanodes' heartbeat interval. Default 3000; leases last 3× this + 1 s. */
  readonly heartbeatIntervalMs?: number;
  /** Move the regions of datanodes whose lease lapsed (shared storage only). Default false. */
  readonly enableFailover?: boolean;
  /** The time, in ms (tests move it by hand). Default Date.now. */
  readonly clock?: () => number;
  /** Drives the random selectors. Default Math.random. */
  readonly random?: () => number;
  /** Default 1000. */
  readonly failoverTickMs?: number;
  /** Procedures: at most `maxRunning` (128) at once; region calls tried `maxRetries` (12) times from `retryDelayMs` (500) doubling. */
  readonly procedures?: {
    readonly maxRunning?: number;
    readonly maxRetries?: number;
    readonly retryDelayMs?: number;
    /** How long stop() waits for procedures to give up. Default 5000. */
    readonly stopTimeoutMs?: number;
    /** Tests: called once a procedure's new step is persisted, before the step runs. */
    readonly beforeStep?: (p: { readonly id: string; readonly kind: string; readonly step: string }) => Promise<void> | void;
  };
}

export class Metasrv implements MetaService {
  readonly heartbeatIntervalMs: number;
  readonly leaseMs: number;
  private readonly clock: () => number;
  private readonly logger: Logger;
  private readonly selector: Selector;
  private readonly nodes: ClusterNodes;
  private readonly listeners = new Set<(event: MetaEvent) => void>();
  private readonly connections = new Map<string, RegionServer>();
  private readonly failingOver = new Set<number>();
  /** Datanodes whose lost regions all moved (until they send a heartbeat again). */
  private readonly failedOver = new Set<number>();
  /** Datanodes whose failover was refused for local storage, logged once. */
  private readonly localStorageWarned = new Set<number>();
  private catalogManager: CatalogManager | undefined;
  private manager: ProcedureManager | undefined;
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private stopped = false;
  private readonly version = buildInfo().version;

  constructor(private readonly params: MetasrvParams) {
    this.heartbeatIntervalMs = params.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
    if (!(this.heartbeatIntervalMs > 0)) throw new TsdbError(StatusCode.InvalidArguments, `heartbeat interval must be above 0, got ${this.heartbeatIntervalMs}`);
    this.leaseMs = leaseMsOf(this.heartbeatIntervalMs);
    this.clock = params.clock ?? Date.now;
    this.logger = params.logger;
    this.selector = createSelector(params.selector ?? 'lease_based', params.random);
    this.nodes = new ClusterNodes(params.kv, this.leaseMs, leaseMsOf(FRONTEND_INTERVAL_FACTOR * this.heartbeatIntervalMs), (err) => {
      // An unreachable store is reported once by whoever watches it (the metasrv's /ready); anything else is worth a line.
      if (!(err instanceof TsdbError && err.code === StatusCode.StorageUnavailable)) this.logger.warn({ err }, 'a heartbeat could not be written to the metadata store (kept in memory)');
    });
  }

  /** The catalog the metasrv writes (after start). */
  get catalog(): CatalogManager {
    if (this.catalogManager === undefined) throw new TsdbError(StatusCode.IllegalState, 'the metasrv is not started');
    return this.catalogManager;
  }

  private get procedures(): ProcedureManager {
    if (this.manager === undefined || this.stopped) throw new TsdbError(StatusCode.IllegalState, this.stopped ? 'the metasrv is stopped' : 'the metasrv is not started');
    return this.manager;
  }

  /**
   * Opens the catalog (creating it and `public` on first use), reads the nodes known, resumes
   * unfinished procedures (their locks held before this returns; they run on in the background:
   * `whenIdle()`), and starts the failover tick.
   */
  async start(): Promise<void> {
    if (this.manager !== undefined) throw new TsdbError(StatusCode.IllegalState, 'the metasrv is already started');
    this.startedAt = this.clock();
    const catalog = (this.catalogManager = await CatalogManager.open(this.params.kv));
    const known = await this.nodes.load();
    const p = this.params.procedures ?? {};
    this.manager = new ProcedureManager({
      kv: this.params.kv,
      catalog,
      logger: this.logger,
      connect: (peer) => this.regionServerOf(peer),
      select: (count, exclude) => this.selectDatanodes(count, exclude),
      emit: (event) => this.emit(event),
      restore: (record) => restoreProcedure(record),
      now: this.clock,
      ...(p.maxRunning !== undefined && { maxRunning: p.maxRunning }),
      ...(p.maxRetries !== undefined && { maxRetries: p.maxRetries }),
      ...(p.retryDelayMs !== undefined && { retryDelayMs: p.retryDelayMs }),
      ...(p.stopTimeoutMs !== undefined && { stopTimeoutMs: p.stopTimeoutMs }),
      ...(p.beforeStep !== undefined && { beforeStep: p.beforeStep }),
    });
    const resumed = await this.manager.recover();
    if (this.params.enableFailover === true) {
      this.timer = setInterval(() => void this.checkFailover(), this.params.failoverTickMs ?? FAILOVER_TICK_MS);
      this.timer.unref();
    }
    this.logger.info(
      { store: this.params.kv.description, selector: this.selector.name, heartbeat_interval_ms: this.heartbeatIntervalMs, failover: this.params.enableFailover === true, known_nodes: known, resumed_procedures: resumed },
      'metasrv ready: metadata store open, procedures resumed',
    );
  }

  /** Stops the failover tick and the procedures (their records stay for the next start); closes datanode connections. Always returns. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.manager?.stop();
    // Heartbeats being written are waited for (a restart then knows them), a while at most: the store may not answer.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.nodes.flush(), new Promise<void>((resolve) => (timer = setTimeout(resolve, NODE_WRITE_WAIT_MS)))]);
    clearTimeout(timer);
    for (const c of this.connections.values()) {
      try {
        (c as RegionServer & { close?: () => void }).close?.();
      } catch (err) {
        this.logger.warn({ err }, 'closing a datanode connection failed');
      }
    }
    this.connections.clear();
    this.listeners.clear();
  }

  /** Resolves once no procedure is under way (tests; a resumed procedure runs in the background). */
  whenIdle(): Promise<void> {
    return this.manager?.whenIdle() ?? Promise.resolve();
  }

  private regionServerOf(peer: Peer): RegionServer {
    const key = `${peer.id}@${peer.addr}`;
    let c = this.connections.get(key);
    if (c === undefined) this.connections.set(key, (c = this.params.connect(peer)));
    return c;
  }

  private emit(event: MetaEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.logger.warn({ err, event }, 'a metadata subscriber failed');
      }
    }
  }

  subscribe(listener: (event: MetaEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return this.params.kv.get(key);
  }

  range(prefix: string): Promise<KvEntry[]> {
    return this.params.kv.range(prefix);
  }

  allocateTableId(): Promise<number> {
    return this.catalog.allocateTableId();
  }

  /** Datanodes with a current lease, for placement. */
  private selectDatanodes(count: number, exclude?: ReadonlySet<number>): Peer[] {
    const now = this.clock();
    const candidates = this.nodes
      .datanodes()
      .filter((n) => this.nodes.isAlive(n, now) && !(exclude?.has(n.peer.id) ?? false))
      .map((n) => ({ peer: n.peer, regionCount: n.region_count }));
    if (candidates.length === 0) {
      const known = this.nodes.datanodes().length;
      throw new TsdbError(
        StatusCode.RuntimeResourcesExhausted,
        `no datanode is available to place ${count} region(s) on: ${known === 0 ? 'none has sent a heartbeat to this metasrv' : `none of the ${known} known has sent a heartbeat within its lease (${formatDuration(this.leaseMs)})`}${exclude !== undefined && exclude.size > 0 ? ` (datanode ${[...exclude].join(', ')} excluded)` : ''}`,
      );
    }
    return this.selector.select(candidates, count);
  }

  async ddl(task: DdlTask, timeoutMs?: number): Promise<DdlResult> {
    const proc = procedureOf(task);
    const run = this.procedures.submit(proc);
    if (timeoutMs === undefined) return run;
    run.catch(() => {}); // its end is logged if nobody waits any more
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new TsdbError(StatusCode.DeadlineExceeded, `${proc.describe()} did not finish within ${formatDuration(timeoutMs)}; it goes on in the metasrv (see its log): check the outcome before running it again`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([run, deadline]);
    } catch (err) {
      if (err instanceof TsdbError && err.code === StatusCode.DeadlineExceeded) {
        run.then(
          () => this.logger.info(`${proc.describe()} finished after its caller stopped waiting`),
          (e: unknown) => this.logger.warn({ err: e }, `${proc.describe()} failed after its caller stopped waiting`),
        );
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async heartbeat(req: HeartbeatRequest): Promise<HeartbeatResponse> {
    checkHeartbeat(req);
    heartbeatReceived.inc({ role: req.role });
    if (req.role === 'datanode') datanodeRegions.set({ datanode_id: String(req.peer.id) }, req.regions.length);
    const now = this.clock();
    const procedures = this.procedures;
    const before = await this.nodes.record(req, now);
    if (before === undefined) this.logger.info({ role: req.role, node: req.peer.id, addr: req.peer.addr }, `${req.role} ${req.peer.id} joined the cluster`);
    else if (!this.nodes.isAlive(before, now)) this.logger.info({ role: req.role, node: req.peer.id, addr: req.peer.addr }, `${req.role} ${req.peer.id} is back (its lease had lapsed)`);
    if (req.role === 'frontend') {
      const interval = FRONTEND_INTERVAL_FACTOR * this.heartbeatIntervalMs;
      return { lease_ms: this.nodes.frontendLeaseMs, heartbeat_interval_ms: interval, leased_regions: [], close_regions: [], open_regions: [] };
    }
    this.failedOver.delete(req.peer.id);
    this.localStorageWarned.delete(req.peer.id);
    // Taken before the routes are read: a region a procedure stops operating on meanwhile is
    // then already where the routes read next say.
    const operating = procedures.operatingRegions();
    const placed = new Map<RegionId, RegionToOpen>();
    for (const share of await this.catalog.datanodeTables(req.peer.id)) {
      for (const r of share.regions) {
        const id = regionId(share.table_id, r.region_number);
        placed.set(id, { region_id: String(id), dir: r.dir, ...(share.storage !== undefined && { storage: share.storage }) });
      }
    }
    const reported = new Set<RegionId>();
    const leased: string[] = [];
    const close: string[] = [];
    for (const stat of req.regions) {
      const id = BigInt(stat.region_id);
      reported.add(id);
      if (operating.has(id)) continue;
      if (placed.has(id)) leased.push(stat.region_id);
      else close.push(stat.region_id);
    }
    const open = [...placed].filter(([id]) => !reported.has(id) && !operating.has(id)).map(([, r]) => r);
    if (close.length > 0) this.logger.info({ node: req.peer.id, regions: close.map((r) => formatRegionId(BigInt(r))) }, `datanode ${req.peer.id} is told to close regions the routes place elsewhere`);
    leasesGranted.inc(leased.length);
    return { lease_ms: this.leaseMs, heartbeat_interval_ms: this.heartbeatIntervalMs, leased_regions: leased, close_regions: close, open_regions: open };
  }

  async clusterInfo(): Promise<NodeInfo[]> {
    const now = this.clock();
    const self: NodeInfo = { peer: { id: 0, addr: this.params.serverAddr }, role: 'metasrv', version: this.version, start_time_ms: this.startedAt, last_activity_ms: now, alive: true };
    return [self, ...this.nodes.list().map((n) => this.nodes.toInfo(n, now))];
  }

  /**
   * One failover tick: starts moving the regions of every datanode whose lease lapsed (counted
   * from this metasrv's start at the earliest), whose storage is shared and that is not being
   * handled already. Resolves once the moves it started ended.
   */
  async checkFailover(): Promise<void> {
    if (this.params.enableFailover !== true || this.stopped || this.manager === undefined) return;
    const now = this.clock();
    const started: Array<Promise<void>> = [];
    for (const n of this.nodes.datanodes()) {
      const id = n.peer.id;
      if (now - Math.max(n.last_activity_ms, this.startedAt) < this.leaseMs || this.failingOver.has(id) || this.failedOver.has(id)) continue;
      if (!n.shared_storage) {
        if (!this.localStorageWarned.has(id)) {
          this.localStorageWarned.add(id);
          this.logger.warn({ node: id }, `datanode ${id} lost its lease, but its regions are on local storage: they stay routed to it until it comes back`);
        }
        continue;
      }
      this.failingOver.add(id);
      started.push(this.failover(n.peer).finally(() => this.failingOver.delete(id)));
    }
    await Promise.all(started);
  }

  private async failover(lost: Peer): Promise<void> {
    try {
      const shares = await this.catalog.datanodeTables(lost.id);
      if (shares.length > 0) this.logger.warn({ node: lost.id, tables: shares.length }, `datanode ${lost.id} lost its lease: moving its regions`);
      const results = await Promise.allSettled(shares.map((s) => this.procedures.submit(FailoverProcedure.create(lost, s.table_id))));
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed.length === 0) this.failedOver.add(lost.id);
      else this.logger.warn({ node: lost.id, err: failed[0]!.reason as Error, failed: failed.length }, `moving the regions of datanode ${lost.id} failed for ${failed.length} table(s): tried again`);
    } catch (err) {
      if (!this.stopped) this.logger.warn({ err, node: lost.id }, `failover of datanode ${lost.id} failed: tried again`);
    }
  }
}

function checkHeartbeat(req: HeartbeatRequest): void {
  const bad = (why: string) => new TsdbError(StatusCode.InvalidArguments, `invalid heartbeat: ${why}`);
  if (req.role !== 'datanode' && req.role !== 'frontend') throw bad(`unknown role ${JSON.stringify(req.role)}`);
  if (!Number.isSafeInteger(req.peer?.id) || req.peer.id < 0) throw bad(`node id ${String(req.peer?.id)} is not an integer ≥ 0`);
  if (typeof req.peer.addr !== 'string' || req.peer.addr === '') throw bad('the node has no address');
  for (const r of req.regions) if (!/^\d{1,20}$/.test(r.region_id) || BigInt(r.region_id) >= 1n << 64n) throw bad(`region id ${JSON.stringify(r.region_id)} is not a u64`);
}

function procedureOf(task: DdlTask): Procedure {
  switch (task.kind) {
    case 'create_table':
      return CreateTableProcedure.create(task.info, task.if_not_exists);
    case 'alter_table':
      return AlterTableProcedure.create(task.before, task.after);
    case 'drop_table':
      return DropTableProcedure.create(task.info);
    case 'truncate_table':
      return TruncateTableProcedure.create(task.info);
    case 'create_database':
    case 'alter_database':
    case 'drop_database':
      return DatabaseProcedure.create(task);
    case 'create_view':
    case 'drop_view':
      return ViewProcedure.create(task);
    default:
      throw new TsdbError(StatusCode.InvalidArguments, `unknown DDL task ${JSON.stringify((task as { kind?: unknown }).kind)}`);
  }
}

function restoreProcedure(r: ProcedureRecord): Procedure {
  switch (r.kind) {
    case CREATE_TABLE:
      return new CreateTableProcedure(r.step, r.data as CreateTableData);
    case ALTER_TABLE:
      return new AlterTableProcedure(r.step, r.data as AlterTableData);
    case DROP_TABLE:
      return new DropTableProcedure(r.step, r.data as DropTableData);
    case TRUNCATE_TABLE:
      return new TruncateTableProcedure(r.step, r.data as TruncateTableData);
    case DATABASE:
      return new DatabaseProcedure(r.step, r.data as DatabaseData);
    case FAILOVER:
      return new FailoverProcedure(r.step, r.data as FailoverData);
    case VIEW:
      return new ViewProcedure(r.step, r.data as ViewData);
    default:
      throw new TsdbError(StatusCode.Internal, `unknown procedure kind ${JSON.stringify(r.kind)}`);
  }
}
