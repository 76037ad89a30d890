/**
 * The data side of a datanode: its storage providers, the region engine, and the DuckDB region
 * queries run in, behind the region server of this process (`datanode/local-region-server.ts`)
 * that the component serves on `rpc_addr`. A datanode started alone holds no region until a
 * region request opens or creates one (the metasrv that places regions comes with the cluster).
 */
import { availableParallelism, totalmem } from 'node:os';
import type { DuckDBInstance } from '@duckdb/node-api';
import type { Logger } from '../common/logging.js';
import type { DatanodeOptions } from '../config/options.js';
import { LocalRegionServer } from '../datanode/local-region-server.js';
import { engineOptions, querySpillDir } from '../engine/engine-options.js';
import { RegionEngine } from '../engine/region-engine.js';
import { openQueryDuckDb } from '../query/query-duckdb.js';
import { openStorageProviders, type StorageProviders } from '../storage/storage-provider.js';
import type { RegionServer } from '../types/region-server.js';
import type { RegionServices } from './component.js';

/**
 * The share of the machine's memory region queries may hold together (a datanode has no `[query]`
 * section: the rest stays with the write buffers, flushes and compactions).
 */
const REGION_QUERY_MEMORY_SHARE = 0.25;

export class DatanodeServices implements RegionServices {
  private storage: StorageProviders | undefined;
  private engine: RegionEngine | undefined;
  private queries: DuckDBInstance | undefined;

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
    this.logger.info({ rpc_addr: c.rpc_addr }, 'region server ready: regions are opened and created by region requests');
    return new LocalRegionServer(engine, this.queries);
  }

  async stop(): Promise<void> {
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
