/**
 * The data side of a standalone server: the default object store, the catalog in a durable
 * key-value store under `{data_home}/metadata` (DESIGN.md D11), the region engine, and the frontend
 * that runs SQL on them. Started after the data home is locked, stopped after the servers.
 */
import { join } from 'node:path';
import { CatalogManager } from '../catalog/catalog-manager.js';
import type { Logger } from '../common/logging.js';
import type { StandaloneOptions } from '../config/options.js';
import type { DuckDBInstance } from '@duckdb/node-api';
import { engineOptions, querySpillDir } from '../engine/engine-options.js';
import { queryBudget, threadPoolWarning } from '../frontend/query-budget.js';
import { copyDirs } from '../frontend/copy/copy-dirs.js';
import { openQueryDuckDb } from '../query/query-duckdb.js';
import { RegionEngine } from '../engine/region-engine.js';
import { FrontendInstance } from '../frontend/instance.js';
import { LocalRegionServer } from '../datanode/local-region-server.js';
import { registerArrowScan } from '../query/arrow-scan-function.js';
import { ProcessList } from '../frontend/process-list.js';
import { LevelKvBackend } from '../meta/kv/level-kv-backend.js';
import type { AuthHandler, IngestHandler, PromqlHandler, SqlHandler } from '../servers/handlers.js';
import type { UserProvider } from '../frontend/auth/user-provider.js';
import { openStorageProviders, type StorageProviders } from '../storage/storage-provider.js';
import { storageProviders } from '../storage/create-object-store.js';
import type { RegionServer } from '../types/region-server.js';
import type { ComponentServices } from './component.js';
import { frontendHandlers } from './frontend-handlers.js';
import { nameTablesFrom } from './table-names.js';
import { startSlowQueries } from '../frontend/slow-query/start-slow-queries.js';
import type { SlowQueryRecorder } from '../frontend/slow-query/slow-query-recorder.js';

/** A region server the frontend reaches over the network, and how to let it go. */
export interface RemoteRegions {
  readonly regions: RegionServer;
  close(): void | Promise<void>;
}

export interface StandaloneServicesOptions {
  /**
   * The regions somewhere else (a datanode's region service) instead of an engine in this process:
   * the frontend's queries then read every region through region queries, as in a cluster. Tests
   * use it to run the SQL suites through the remote region client.
   */
  readonly remoteRegions?: () => Promise<RemoteRegions>;
}

export class StandaloneServices implements ComponentServices {
  private kv: LevelKvBackend | undefined;
  private engine: RegionEngine | undefined;
  private unsetTableNames: (() => void) | undefined;
  private storage: StorageProviders | undefined;
  private frontend: FrontendInstance | undefined;
  private slowQueries: SlowQueryRecorder | undefined;
  private queries: DuckDBInstance | undefined;
  private users: UserProvider | undefined;
  private remote: RemoteRegions | undefined;
  readonly authEnabled: boolean;

  constructor(
    private readonly config: StandaloneOptions,
    private readonly logger: Logger,
    private readonly opts: StandaloneServicesOptions = {},
  ) {
    this.authEnabled = config.user_provider !== undefined && config.user_provider !== '';
  }

  async start(): Promise<{ sql: SqlHandler; ingest: IngestHandler; promql: PromqlHandler; auth?: AuthHandler }> {
    const c = this.config;
    this.kv = await LevelKvBackend.open(join(c.storage.data_home, 'metadata'));
    const catalog = await CatalogManager.open(this.kv);
    // tsdb_table_series names the tables whose regions this process holds.
    this.unsetTableNames = nameTablesFrom(catalog);
    let regions: RegionServer;
    let storageNames: string[];
    let readableDirs: string[] = [];
    if (this.opts.remoteRegions !== undefined) {
      this.remote = await this.opts.remoteRegions();
      regions = this.remote.regions;
      storageNames = [...storageProviders(c.storage).keys()];
    } else {
      const storage = (this.storage = await openStorageProviders(c.storage, { partSize: c.region_engine.mito.sst_write_buffer_size, logger: this.logger }));
      this.engine = await RegionEngine.open(engineOptions(c, storage, this.logger));
      storageNames = storage.names();
      readableDirs = this.engine.readableDirs();
    }
    const spillDir = querySpillDir(c.storage.data_home);
    const budget = queryBudget(c, spillDir);
    this.queries = await openQueryDuckDb({
      threads: c.query.parallelism,
      ...(budget.memoryLimit !== undefined && { memoryLimit: budget.memoryLimit }),
      spillDir,
      ...(c.query.max_spill_size > 0 && { maxSpillSize: c.query.max_spill_size }),
      // COPY's directory too: COPY writes and reads its files through this DuckDB, on connections of its own.
      readableDirs: [...readableDirs, ...(await copyDirs(c.copy.dir))],
      registerFunctions: (conn) => {
        LocalRegionServer.registerScanFunctions(conn);
        registerArrowScan(conn);
      },
      sstMetaCache: c.region_engine.mito.sst_meta_cache_size > 0,
      pageCache: c.region_engine.mito.page_cache_size > 0,
    });
    this.logger.info({ memory_limit: budget.memoryLimit ?? 'DuckDB default', threads: c.query.parallelism, max_concurrent_queries: c.max_concurrent_queries, uv_threadpool_size: process.env['UV_THREADPOOL_SIZE'] ?? '4' }, 'opened the query DuckDB');
    const poolWarning = threadPoolWarning(c.max_concurrent_queries, c.region_engine.mito.max_background_jobs);
    if (poolWarning !== undefined) this.logger.warn(poolWarning);
    if (this.engine !== undefined) regions = new LocalRegionServer(this.engine, this.queries);
    const frontend = (this.frontend = new FrontendInstance(catalog, regions!, this.queries, storageNames, budget.budget, new ProcessList(this.authEnabled, c.grpc.addr)));
    frontend.copy = { dir: c.copy.dir, objectStorage: c.copy.allow_object_storage, objectStoragePrefixes: c.copy.object_storage, logger: this.logger };
    const started = Date.now();
    const tables = await frontend.openTables();
    this.logger.info({ tables, elapsed_ms: Date.now() - started }, 'opened the tables of the catalog');
    this.slowQueries = await startSlowQueries(c.slow_query, c.logging, frontend, this.logger);
    const handlers = frontendHandlers(frontend, catalog, c.query.timeout, c.user_provider, this.logger);
    this.users = handlers.users;
    return handlers;
  }

  interrupt(): number {
    this.frontend?.processes.killAll('the server is shutting down');
    return this.frontend?.interruptAll() ?? 0;
  }

  async stop(): Promise<void> {
    // Statements still running (their servers are closed by now) stop rather than hold the engine.
    this.frontend?.processes.killAll('the server is shutting down');
    this.unsetTableNames?.();
    // What is recorded is written while the regions are still open.
    await this.slowQueries?.close();
    this.slowQueries = undefined;
    this.users?.close();
    this.users = undefined;
    this.frontend?.close();
    this.frontend = undefined;
    this.queries?.closeSync();
    this.queries = undefined;
    try {
      await this.engine?.close();
      await this.remote?.close();
    } finally {
      this.remote = undefined;
      this.engine = undefined;
      await this.storage?.close();
      this.storage = undefined;
      await this.kv?.close();
      this.kv = undefined;
    }
  }
}
