/**
 * The data side of a cluster's frontend: no storage of its own. The catalog is the metasrv's, read
 * through the meta client and cached until the metasrv's events say it changed; regions are reached
 * on the datanodes their routes name (`meta/routed-region-server.ts`); DDL is sent to the metasrv
 * (`meta/meta-table-ddl.ts`); queries are planned and finished in the frontend's own DuckDB, as in
 * a standalone server. Several frontends on one cluster see the same tables.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import { CatalogManager } from '../catalog/catalog-manager.js';
import type { TableInfo } from '../catalog/table-info.js';
import { buildInfo } from '../common/build-info.js';
import { processHealth } from '../common/health/health-board.js';
import type { Logger } from '../common/logging.js';
import type { FrontendOptions } from '../config/options.js';
import { FrontendInstance } from '../frontend/instance.js';
import { ProcessList } from '../frontend/process-list.js';
import { queryBudget } from '../frontend/query-budget.js';
import type { UserProvider } from '../frontend/auth/user-provider.js';
import { MetaKvBackend } from '../meta/meta-kv-backend.js';
import type { MetaEvent, MetaService, NodeInfo } from '../meta/meta-service.js';
import type { ClusterNodeRow } from '../catalog/information-schema.js';
import { MetaTableDdl } from '../meta/meta-table-ddl.js';
import { RoutedRegionServer } from '../meta/routed-region-server.js';
import { registerArrowScan } from '../query/arrow-scan-function.js';
import { copyDirs } from '../frontend/copy/copy-dirs.js';
import { openQueryDuckDb } from '../query/query-duckdb.js';
import type { AuthHandler, IngestHandler, PromqlHandler, SqlHandler } from '../servers/handlers.js';
import { RemoteRegionServer } from '../servers/grpc/region-client.js';
import type { ComponentServices } from './component.js';
import { frontendHandlers } from './frontend-handlers.js';
import { startSlowQueries } from '../frontend/slow-query/start-slow-queries.js';
import type { SlowQueryRecorder } from '../frontend/slow-query/slow-query-recorder.js';

/** A frontend reports itself this often (GreptimeDB: 6× the datanodes' interval). */
const FRONTEND_HEARTBEAT_MS = 18_000;
const METASRV_HEALTH_KEY = 'frontend:metasrv';

/** The meta client, and how to let it go. */
export type ClosableMetaService = MetaService & { close(): void | Promise<void> };

export class FrontendServices implements ComponentServices {
  private meta: ClosableMetaService | undefined;
  private frontend: FrontendInstance | undefined;
  private slowQueries: SlowQueryRecorder | undefined;
  private queries: DuckDBInstance | undefined;
  private users: UserProvider | undefined;
  private routed: RoutedRegionServer | undefined;
  private unsubscribe: (() => void) | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly spillRoot = join(tmpdir(), `tsdb-frontend-${process.pid}-${Date.now().toString(36)}`);
  readonly authEnabled: boolean;

  constructor(
    private readonly config: FrontendOptions,
    private readonly logger: Logger,
    /** Connects to the metasrv (`servers/grpc/meta-client.ts`). */
    private readonly connectMeta: () => ClosableMetaService,
  ) {
    this.authEnabled = config.user_provider !== undefined && config.user_provider !== '';
  }

  async start(): Promise<{ sql: SqlHandler; ingest: IngestHandler; promql: PromqlHandler; auth?: AuthHandler }> {
    const c = this.config;
    const meta = (this.meta = this.connectMeta());
    const catalog = CatalogManager.attach(new MetaKvBackend(meta));
    const routed = (this.routed = new RoutedRegionServer({ get: (k) => meta.get(k), connect: (peer) => new RemoteRegionServer(peer.addr) }));
    const forget = (e: MetaEvent) => {
      catalog.invalidate();
      routed.invalidate(e.kind === 'table_changed' ? e.table_id : undefined);
    };
    this.unsubscribe = meta.subscribe(forget);
    const ddl = new MetaTableDdl(meta, c.meta_client.ddl_timeout, (task) => forget(task.kind === 'create_table' || task.kind === 'alter_table' || task.kind === 'drop_table' || task.kind === 'truncate_table' ? { kind: 'table_changed', table_id: 'info' in task ? task.info.table_id : task.before.table_id } : { kind: 'reset' }));
    const spillDir = join(this.spillRoot, 'query');
    mkdirSync(spillDir, { recursive: true });
    const budget = queryBudget(c, spillDir);
    this.queries = await openQueryDuckDb({
      threads: c.query.parallelism,
      ...(budget.memoryLimit !== undefined && { memoryLimit: budget.memoryLimit }),
      spillDir,
      ...(c.query.max_spill_size > 0 && { maxSpillSize: c.query.max_spill_size }),
      // COPY's directory: COPY writes and reads its files through this DuckDB, on connections of its own.
      readableDirs: await copyDirs(c.copy.dir),
      registerFunctions: (conn) => registerArrowScan(conn),
      sstMetaCache: false,
      pageCache: false,
    });
    const cluster = { nodes: async () => (await meta.clusterInfo()).map(clusterNodeRow), routes: async (t: TableInfo) => (await routed.route(t.table_id))?.region_routes };
    const frontend = (this.frontend = new FrontendInstance(catalog, routed, this.queries, undefined, budget.budget, new ProcessList(this.authEnabled, this.config.grpc.addr), ddl, cluster));
    frontend.copy = { dir: c.copy.dir, objectStorage: c.copy.allow_object_storage, objectStoragePrefixes: c.copy.object_storage, logger: this.logger };
    this.startHeartbeat(meta);
    this.slowQueries = await startSlowQueries(c.slow_query, c.logging, frontend, this.logger);
    const handlers = frontendHandlers(frontend, catalog, c.query.timeout, c.user_provider, this.logger);
    this.users = handlers.users;
    return handlers;
  }

  /**
   * Reports this frontend to the metasrv (information_schema.cluster_info), now and every 18 s (every
   * second while it cannot reach it). Unreachable, the frontend still starts and answers — each
   * statement fails with the metasrv's unavailability — and `/ready` says 503 until it is reached.
   */
  private startHeartbeat(meta: MetaService): void {
    const peer = { id: frontendId(this.config.grpc.addr), addr: this.config.grpc.addr };
    const started = Date.now();
    let reached: boolean | undefined;
    const beat = () => {
      meta
        .heartbeat({ role: 'frontend', peer, version: buildInfo().version, start_time_ms: started, regions: [] })
        .then(() => {
          if (reached !== true) this.logger.info({ metasrv_addrs: this.config.meta_client.metasrv_addrs }, reached === false ? 'the metasrv is reachable again' : 'joined the cluster: the metasrv answers');
          reached = true;
          processHealth.clear(METASRV_HEALTH_KEY);
          next(FRONTEND_HEARTBEAT_MS);
        })
        .catch((err: unknown) => {
          const message = `cannot reach the metasrv at ${this.config.meta_client.metasrv_addrs.join(',')}: ${(err as Error).message}`;
          if (reached !== false) this.logger.error({ err }, `${message} (retried every second)`);
          reached = false;
          processHealth.set(METASRV_HEALTH_KEY, 'frontend', message, true);
          next(1000);
        });
    };
    const next = (ms: number) => {
      if (this.heartbeatStopped) return;
      this.heartbeat = setTimeout(beat, ms);
      this.heartbeat.unref();
    };
    beat();
  }

  private heartbeatStopped = false;

  interrupt(): number {
    this.frontend?.processes.killAll('the server is shutting down');
    return this.frontend?.interruptAll() ?? 0;
  }

  async stop(): Promise<void> {
    this.heartbeatStopped = true;
    if (this.heartbeat !== undefined) clearTimeout(this.heartbeat);
    this.frontend?.processes.killAll('the server is shutting down');
    // What is recorded is written while the regions are still open.
    await this.slowQueries?.close();
    this.slowQueries = undefined;
    this.users?.close();
    this.users = undefined;
    this.frontend?.close();
    this.frontend = undefined;
    this.queries?.closeSync();
    this.queries = undefined;
    this.unsubscribe?.();
    this.routed?.close();
    await this.meta?.close();
    this.meta = undefined;
    rmSync(this.spillRoot, { recursive: true, force: true });
  }
}

/** A node of the metasrv's list as `information_schema.cluster_info` shows it (frontends have id -1, as in GreptimeDB). */
function clusterNodeRow(n: NodeInfo): ClusterNodeRow {
  return {
    peer_id: n.role === 'frontend' ? -1 : n.role === 'metasrv' ? 0 : n.peer.id,
    peer_type: n.role.toUpperCase(),
    peer_addr: n.peer.addr,
    version: n.version,
    git_commit: buildInfo().commit,
    start_time_ms: n.start_time_ms,
    idle_ms: Math.max(0, Date.now() - n.last_activity_ms),
    alive: n.alive,
  };
}

/** A frontend's id in the cluster's node list: from its gRPC address, so that a restarted frontend keeps it. */
function frontendId(addr: string): number {
  let h = 0;
  for (const ch of addr) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  return h;
}
