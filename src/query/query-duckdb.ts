/**
 * The DuckDB queries run in, apart from the engine's (which flushes and compacts): its own memory
 * budget (`[query] memory_pool_size`) and spill directory, so that a query at its budget fails or
 * spills while flushes and compactions keep theirs. Queries' SQL names Parquet SST paths and the
 * memtable scan function, so this instance has the function registered (by whoever hands out the
 * region relations: `registerFunctions`) and the engine's sandbox (it reads only the engine's
 * directories).
 */
import { mkdir, rm } from 'node:fs/promises';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { sandboxDuckDb } from '../common/duckdb-sandbox.js';

export interface QueryDuckDbOptions {
  /** DuckDB threads (≥ 1). */
  readonly threads: number;
  /** Bytes queries may hold together (DuckDB's `memory_limit`); undefined: DuckDB's default (80% of memory). */
  readonly memoryLimit?: number;
  /** Where queries spill (DuckDB's `temp_directory`), created empty here. */
  readonly spillDir: string;
  /** Bytes of spill files at most (DuckDB's `max_temp_directory_size`); undefined: DuckDB's default (90% of the free disk). */
  readonly maxSpillSize?: number;
  /**
   * The directories this DuckDB may open (the engine's: `RegionEngine.readableDirs`; and COPY's
   * `[copy] dir`, whose files only tsdb's own COPY statements name — user SQL names no file).
   */
  readonly readableDirs: readonly string[];
  /**
   * Registers the functions the region relations name (in standalone, the engine's memtable scan
   * function: `LocalRegionServer.registerScanFunctions`; the Arrow scan of remote regions' answers), before the configuration is locked.
   */
  readonly registerFunctions: (conn: DuckDBConnection) => void;
  /** Parquet footer and file block caches (the engine's `sst_meta_cache_size` / `page_cache_size` > 0). */
  readonly sstMetaCache?: boolean;
  readonly pageCache?: boolean;
}

const mib = (bytes: number) => `${Math.max(1, Math.floor(bytes / 2 ** 20))}MiB`;

/** Opens the query DuckDB (in memory); close it with `closeSync` after the last query. */
export async function openQueryDuckDb(opts: QueryDuckDbOptions): Promise<DuckDBInstance> {
  await rm(opts.spillDir, { recursive: true, force: true });
  await mkdir(opts.spillDir, { recursive: true });
  const db = await DuckDBInstance.create(':memory:', {
    threads: String(opts.threads),
    ...(opts.memoryLimit !== undefined && { memory_limit: mib(opts.memoryLimit) }),
    temp_directory: opts.spillDir,
    ...(opts.maxSpillSize !== undefined && { max_temp_directory_size: mib(opts.maxSpillSize) }),
  });
  try {
    const conn = await db.connect();
    try {
      opts.registerFunctions(conn);
      await conn.run(`SET GLOBAL parquet_metadata_cache = ${opts.sstMetaCache ?? true}`);
      await conn.run(`SET GLOBAL enable_external_file_cache = ${opts.pageCache ?? true}`);
      await sandboxDuckDb(conn, opts.readableDirs);
    } finally {
      conn.closeSync();
    }
  } catch (err) {
    db.closeSync();
    throw err;
  }
  return db;
}
