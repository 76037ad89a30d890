/**
 * Times each statement a frontend runs into `tsdb_query_elapsed` (language `sql` or `tql`, the
 * statement's kind, its result) and counts the rows of SQL INSERTs as ingestion (`protocol="sql"`).
 * Whatever protocol sent the statement (HTTP, MySQL, PostgreSQL, gRPC) it is counted once here.
 */
import { secondsSince } from '../common/metrics/latency-buckets.js';
import { queryElapsed, recordIngest } from '../common/metrics/server-metrics.js';
import type { Output } from '../query/output.js';
import type { Statement } from '../sql/ast.js';

function languageOf(stmt: Statement): 'sql' | 'tql' {
  if (stmt.kind === 'tql' || stmt.kind === 'tql_query') return 'tql';
  if (stmt.kind === 'explain' && stmt.tql !== undefined) return 'tql';
  return 'sql';
}

/** Runs `run` (the statement) and records it; `database` is the session's (an INSERT naming none writes there). */
export async function timedStatement(stmt: Statement, database: string, run: () => Promise<Output>): Promise<Output> {
  const started = process.hrtime.bigint();
  const labels = { kind: languageOf(stmt), statement: stmt.kind };
  let out: Output;
  try {
    out = await run();
  } catch (err) {
    queryElapsed.observe({ ...labels, result: 'failure' }, secondsSince(started));
    throw err;
  }
  queryElapsed.observe({ ...labels, result: 'success' }, secondsSince(started));
  if (stmt.kind === 'insert' && out.kind === 'affected') {
    const parts = stmt.name.parts;
    recordIngest('sql', parts.length >= 2 ? parts[parts.length - 2]! : database, out.rows);
  }
  return out;
}
