/**
 * DuckDB's errors as tsdb's (DESIGN.md D9): the status code of each DuckDB error kind, and the
 * message as users see it. Apart from the query executor so that every reader of DuckDB results
 * (rows, Arrow) maps errors alike without importing the executor.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { limitErrorOf } from './resource-limits.js';
import { conversionError, knownConversionError } from './cast-errors.js';
import { DIVIDE_BY_ZERO } from './division.js';

/**
 * Status codes of DuckDB's error kinds (the `<Kind> Error:` its messages start with) other than
 * parser, binder, catalog and conversion errors (a cast failing on a value, `'abc'::INT`: 3001 as
 * GreptimeDB reports it, `cast-errors.ts`): a value out of its type's range or a bad function input
 * (`strptime('x', '%Y')`) is the query's argument at fault (InvalidArguments: PostgreSQL 22023,
 * MySQL 1210, HTTP 400); the rest fail executing the query.
 */
const DUCKDB_ERROR_CODES: ReadonlyMap<string, StatusCode> = new Map([
  ['Invalid Input', StatusCode.InvalidArguments],
  ['Out of Range', StatusCode.InvalidArguments],
  ['Not implemented', StatusCode.Unsupported],
  // A parameter placeholder ($1, $name, ?) where DuckDB takes none (ORDER BY, GROUP BY): the query's fault.
  ['Parameter Not Allowed', StatusCode.InvalidArguments],
  ['Parameter Not Resolved', StatusCode.InvalidArguments],
  // A function of an extension tsdb does not ship (it installs and loads none).
  ['Missing Extension', StatusCode.Unsupported],
  ['Extension Autoloading', StatusCode.Unsupported],
  ['Out of Memory', StatusCode.RuntimeResourcesExhausted],
  // DuckDB's own sandbox (external access off, configuration locked) refused something the SQL
  // front end let through: still the user's request at fault, and a permission matter.
  ['Permission', StatusCode.PermissionDenied],
]);

/**
 * How tsdb's functions start the message of an error they raise (`error()` in a macro, a scalar
 * function's error, `json-functions.ts`): GreptimeDB's DataFusion execution and planning errors,
 * which it reports as EngineExecuteQuery.
 */
export const EXECUTION_ERROR = 'Execution error: ';
export const EXECUTION_ERRORS: readonly string[] = [EXECUTION_ERROR, 'Error during planning: ', 'Cast error: ', 'Geohash error: ', 'Invalid function args: ', 'Fail to parse WKT: ', 'Great circle distance ', DIVIDE_BY_ZERO];

/**
 * A DuckDB error as a tsdb error: parser errors are syntax errors, binder errors planning errors,
 * the others as `DUCKDB_ERROR_CODES` says.
 * Only the first line of DuckDB's message is kept (the rest points into rewritten SQL), with the
 * names of scan views put back to the tables they stand for.
 */
const MEMORY_EXHAUSTED = 'Resources exhausted: the memory of queries (query.memory_pool_size) is used up and this query could not spill:';

/** Whether `err` is DuckDB's pool of query memory used up (not a limit of the query's own). */
export function isQueryMemoryExhausted(err: unknown): boolean {
  return err instanceof TsdbError && err.code === StatusCode.RuntimeResourcesExhausted && err.message.startsWith(MEMORY_EXHAUSTED);
}

export function duckdbError(err: unknown, views: ReadonlyMap<string, string> = new Map()): TsdbError {
  if (err instanceof TsdbError) return err;
  // A streamed query's parse error comes wrapped by @duckdb/node-api (`DuckDBConnection.stream`).
  let message = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.replace(/^Failed to extract statements: /, '');
  const limit = limitErrorOf(message);
  if (limit !== undefined) return limit;
  for (const [view, table] of views) message = message.replaceAll(view, table);
  if (/^Parser Error: /.test(message)) return new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: ${message.replace(/^Parser Error: /, '')}`, { cause: err });
  if (/^(Binder|Catalog) Error: /.test(message)) return new TsdbError(StatusCode.PlanQuery, `Failed to plan SQL: ${message.replace(/^(Binder|Catalog) Error: /, '')}`, { cause: err });
  const kind = /^([A-Za-z ]+) Error: /.exec(message)?.[1];
  // A value a cast cannot convert: a failure executing the query (3001), as in GreptimeDB.
  if (kind === 'Conversion') return conversionError(message.replace(/^Conversion Error: /, ''), err);
  const conversion = kind === undefined ? knownConversionError(message, err) : undefined;
  if (conversion !== undefined) return conversion;
  if (kind === 'Out of Memory') {
    return new TsdbError(StatusCode.RuntimeResourcesExhausted, `${MEMORY_EXHAUSTED} ${message.replace(/^[A-Za-z ]+ Error: /, '')}`, { cause: err });
  }
  // GreptimeDB's runtime errors of its functions, raised by tsdb's macros (`compat-functions.ts`) with its text.
  if (kind === 'Invalid Input' && EXECUTION_ERRORS.some((e) => message.startsWith(`Invalid Input Error: ${e}`))) return new TsdbError(StatusCode.EngineExecuteQuery, message.replace(/^Invalid Input Error: /, ''), { cause: err });
  return new TsdbError((kind !== undefined && DUCKDB_ERROR_CODES.get(kind)) || StatusCode.EngineExecuteQuery, message.replace(/^[A-Za-z ]+ Error: /, ''), { cause: err });
}
