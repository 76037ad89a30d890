/**
 * The sandbox every DuckDB instance of tsdb runs in (DESIGN.md D12): the engine's (flushes,
 * compactions) and the one queries run in (`query/query-duckdb.ts`). Here, below both, so that
 * each opens its DuckDB the same way without importing the other.
 */
import { sep } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Shuts DuckDB in (DESIGN.md D12): it reads and writes only files under `dirs` (the store's local
 * root and the scratch directory; its spill directory is allowed by DuckDB itself), opens no network
 * connection, installs and loads no extension (json, parquet and icu are built in), and its
 * configuration is locked so that nothing run later can undo this. Session-dependent behaviour is
 * therefore fixed for the whole instance: the time zone is UTC (tsdb applies session time zones in
 * its own rewrites, `query/session-time.ts`) and integer division gives integers, as in the tsdb
 * dialect (`7 / 2` = 3).
 */
export async function sandboxDuckDb(conn: DuckDBConnection, dirs: readonly string[]): Promise<void> {
  const allowed = dirs.map((d) => (d.endsWith(sep) ? d : d + sep));
  const list = `[${allowed.map((d) => `'${d.replaceAll("'", "''")}'`).join(', ')}]`;
  for (const statement of [
    "SET GLOBAL TimeZone = 'UTC'",
    'SET GLOBAL integer_division = true',
    'SET GLOBAL autoinstall_known_extensions = false',
    'SET GLOBAL autoload_known_extensions = false',
    'SET GLOBAL allow_community_extensions = false',
    'SET GLOBAL allow_unsigned_extensions = false',
    `SET GLOBAL allowed_directories = ${list}`,
    'SET GLOBAL enable_external_access = false',
    // EXPLAIN gives the logical plans too (GreptimeDB shows a logical and a physical plan).
    "SET GLOBAL explain_output = 'all'",
    'SET GLOBAL lock_configuration = true',
  ]) {
    await conn.run(statement);
  }
}
