/**
 * The SQL front end's half of the sandbox (DESIGN.md D12; DuckDB's own switches are the other half,
 * `common/duckdb-sandbox.ts`): a query's parse tree may name only the table functions that
 * compute rows (`range`, `unnest`, …) and no scalar function that reads the engine's settings or
 * state. Every table function that reads files or URLs (`read_text`, `read_parquet`, `glob`, …),
 * runs SQL given as text (`query`, `json_execute_serialized_sql`), or shows or changes the engine
 * (`duckdb_settings`, `enable_logging`, `checkpoint`, …) is refused with a permission error, as is
 * DuckDB's `DESCRIBE`/`SUMMARIZE` of a name inside a query (it would look the name up in DuckDB's
 * own catalog, not tsdb's). An allow-list, so that functions a DuckDB upgrade adds are refused
 * until someone decides otherwise.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { functionNameOf, isNode, type Json } from './sql-tree.js';

/** Table functions that compute rows from their arguments alone. */
export const ALLOWED_TABLE_FUNCTIONS: ReadonlySet<string> = new Set(['range', 'generate_series', 'unnest', 'repeat', 'repeat_row', 'json_each', 'json_tree', 'pg_timezone_names']);

/**
 * Scalar functions that read the engine's configuration or state, or write to its log. (PostgreSQL
 * sessions' `current_setting` is rewritten to read tsdb's `pg_settings` first, `pg-dialect.ts`.)
 */
export const REFUSED_SCALAR_FUNCTIONS: ReadonlySet<string> = new Set(['current_setting', 'current_query', 'write_log', 'setseed', 'getvariable', 'getenv']);

function refused(what: string): TsdbError {
  return new TsdbError(StatusCode.PermissionDenied, `Permission denied: ${what} is not allowed: tsdb SQL does not reach the server's files, network, extensions or engine settings`);
}

/** Throws a PermissionDenied TsdbError when the serialized parse tree `tree` names anything the sandbox refuses. */
export function checkSandbox(tree: unknown): void {
  const walk = (n: Json): void => {
    if (Array.isArray(n)) {
      for (const x of n) walk(x);
      return;
    }
    if (!isNode(n)) return;
    if (n['type'] === 'TABLE_FUNCTION') {
      const name = functionNameOf(n['function']);
      if (name === undefined || !ALLOWED_TABLE_FUNCTIONS.has(name)) throw refused(`the table function ${name ?? '(unknown)'}`);
    } else if (n['type'] === 'SHOW_REF') {
      throw refused(`${String(n['show_type'] ?? 'DESCRIBE')} inside a query`);
    } else if (n['class'] === 'FUNCTION') {
      const name = functionNameOf(n);
      if (name !== undefined && REFUSED_SCALAR_FUNCTIONS.has(name)) throw refused(`the function ${name}`);
    }
    for (const v of Object.values(n)) walk(v);
  };
  walk(tree as Json);
}
