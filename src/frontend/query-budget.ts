/**
 * From the configuration (`max_concurrent_queries`, `concurrent_query_limiter_timeout`, `[query]`)
 * to what bounds a frontend's queries: the admission gate, the limits of one result, and the
 * memory of the DuckDB queries run in.
 */
import { totalmem } from 'node:os';
import { memoryBytes, type MemorySize } from '../config/fields.js';
import type { Millis } from '../common/time/duration.js';
import { getHeapStatistics } from 'node:v8';
import { ResultMemory } from '../query/resource-limits.js';
import { QueryGate, type QueryBudget } from './query-gate.js';
import { SpillWatchdog } from './spill-watchdog.js';

export interface QueryBudgetConfig {
  readonly max_concurrent_queries: number;
  readonly concurrent_query_limiter_timeout: Millis;
  readonly query: {
    readonly memory_pool_size: MemorySize;
    readonly max_spill_size: number;
    readonly max_result_rows: number;
    readonly max_result_bytes: number;
  };
}

/** `spillDir`: where the queries' DuckDB spills (watched against `max_spill_size`). */
export function queryBudget(
  config: QueryBudgetConfig,
  spillDir: string,
  system: { readonly totalMemory: number } = { totalMemory: totalmem() },
): { readonly budget: QueryBudget; readonly memoryLimit: number | undefined } {
  const bytes = memoryBytes(config.query.memory_pool_size, system.totalMemory);
  return {
    budget: {
      gate: new QueryGate(config.max_concurrent_queries, config.concurrent_query_limiter_timeout),
      limits: { maxRows: config.query.max_result_rows, maxBytes: config.query.max_result_bytes, memory: new ResultMemory(resultMemory()) },
      ...(config.query.max_spill_size > 0 && { spill: new SpillWatchdog(spillDir, config.query.max_spill_size) }),
    },
    // 0: no budget of tsdb's (DuckDB's own default).
    memoryLimit: bytes > 0 ? bytes : undefined,
  };
}

/**
 * What the results being read may hold together: a quarter of Node's heap (4 GiB by default on a
 * large machine: 1 GiB), since `readResult`'s count is below what V8 holds for it and the answer is
 * rendered besides.
 */
export function resultMemory(heapLimit = getHeapStatistics().heap_size_limit): number {
  return Math.floor(heapLimit / 4);
}

/** Pool threads kept for file I/O (the WAL, logs) beside queries and background jobs. */
const IO_THREADS = 4;

/**
 * Each running query, and each flush or compaction, holds a thread of libuv's pool
 * (UV_THREADPOOL_SIZE: 24 as bin/tsdb starts, else Node's 4) while DuckDB works for it. A warning
 * when they could take the threads that file I/O (the WAL, logs) needs; undefined when they cannot.
 */
export function threadPoolWarning(maxQueries: number, backgroundJobs: number, pool = Number(process.env['UV_THREADPOOL_SIZE'] ?? 4) || 4): string | undefined {
  if (maxQueries > 0 && maxQueries + backgroundJobs + IO_THREADS <= pool) return undefined;
  const queries = maxQueries === 0 ? 'max_concurrent_queries = 0 (no limit)' : `max_concurrent_queries (${maxQueries})`;
  return `${queries} with max_background_jobs (${backgroundJobs}) may take the ${pool} threads of libuv's pool (UV_THREADPOOL_SIZE) that file I/O needs too, so running queries could delay writes; keep ${IO_THREADS} threads free or raise UV_THREADPOOL_SIZE`;
}
