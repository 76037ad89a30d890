/**
 * Runs a query (SELECT, WITH, VALUES …) on DuckDB over tsdb tables (DESIGN.md D2, D6): DuckDB parses
 * it (`json_serialize_sql`), each table reference is pointed at a temporary view over a consistent
 * scan of the table's regions, the tree goes back to SQL (`json_deserialize_sql`) and DuckDB runs
 * it. Views and scans live only as long as the query.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { quoteLiteral } from '../engine/sst/sst-format.js';
import { records, type Output } from './output.js';
import { convertResult, readResult } from './result-conversion.js';
import { bridgeQueryText } from '../sql/query-text.js';
import { nameSelectItems } from './column-names.js';
import { rewriteDistinctOn } from './distinct-on.js';
import { parseRangeQuery, rangeQuerySql } from './range-query.js';
import { rewriteSessionFunctions } from './session-functions.js';
import { tableRefs } from './table-refs.js';
import { rewriteTimeLiterals, TIME_TYPES, timeRangeOf, type TimeRange } from './time-predicates.js';
import type { TimeUnit } from '../common/time/timestamp.js';

/** A table a query can read: attached as a view for the query's life. */
export interface TableSource {
  /** Identifies the table (two references to one table share one view). */
  readonly key: string;
  /** The table's time index: integer literals compared with it are epochs in its unit. */
  readonly timeIndex?: { readonly name: string; readonly unit: TimeUnit };
  /** The table's primary key (the default groups of a range query). */
  readonly primaryKey?: readonly string[];
  /** Creates view `view` in `conn` (rows of the inclusive time range only, when given); returns what undoes it. */
  attach(conn: DuckDBConnection, view: string, range?: TimeRange): Promise<() => Promise<void>>;
}

export interface QueryContext {
  /** The session's database: where unqualified table names are looked up (and `database()`). */
  readonly database: string;
  /** The session's time zone (`timezone()`). */
  readonly timezone: string;
  /** The table `database.name` of catalog `catalog` ('' = the session's); throws TableNotFound. */
  resolve(catalog: string, database: string, name: string): Promise<TableSource>;
}

/**
 * A DuckDB error as a tsdb error: parser errors are syntax errors, binder errors planning errors.
 * Only the first line of DuckDB's message is kept (the rest points into rewritten SQL), with the
 * names of scan views put back to the tables they stand for.
 */
export function duckdbError(err: unknown, views: ReadonlyMap<string, string> = new Map()): TsdbError {
  if (err instanceof TsdbError) return err;
  let message = (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
  for (const [view, table] of views) message = message.replaceAll(view, table);
  if (/^Parser Error: /.test(message)) return new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: ${message.replace(/^Parser Error: /, '')}`, { cause: err });
  if (/^(Binder|Catalog) Error: /.test(message)) return new TsdbError(StatusCode.PlanQuery, `Failed to plan SQL: ${message.replace(/^(Binder|Catalog) Error: /, '')}`, { cause: err });
  return new TsdbError(StatusCode.EngineExecuteQuery, message.replace(/^[A-Za-z ]+ Error: /, ''), { cause: err });
}

/** Runs one query in `conn`; returns its rows. */
/** A range query as plain SQL (unchanged when the query is not one). */
async function expandRangeQuery(sql: string, ctx: QueryContext): Promise<string> {
  const rq = parseRangeQuery(sql);
  if (rq === undefined) return sql;
  const parts = rq.table;
  const source = await ctx.resolve(parts.length === 3 ? parts[0]! : '', parts.length >= 2 ? parts[parts.length - 2]! : ctx.database, parts[parts.length - 1]!);
  if (source.timeIndex === undefined) throw new TsdbError(StatusCode.PlanQuery, `Failed to plan SQL: a range query needs a table with a time index, not ${parts.join('.')}`);
  return rangeQuerySql(rq, { timeIndex: source.timeIndex.name, timeType: TIME_TYPES[source.timeIndex.unit], primaryKey: source.primaryKey ?? [] }, Date.now(), ctx.timezone);
}

/** DuckDB's name of an expression: its SQL text, as `json_deserialize_sql` writes it. */
async function expressionName(conn: DuckDBConnection, tree: unknown, expr: unknown): Promise<string> {
  const statements = (tree as { statements: Array<{ node: Record<string, unknown> }> }).statements;
  const probe = { error: false, statements: [{ ...statements[0], node: { ...statements[0]!.node, select_list: [expr], from_table: { type: 'EMPTY', alias: '', sample: null, query_location: 0 }, where_clause: null, group_expressions: [], group_sets: [], having: null, qualify: null, modifiers: [], cte_map: { map: [] } } }] };
  const text = (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(JSON.stringify(probe))})`)).getRows()[0]![0] as string;
  return text.replace(/^SELECT\s+/i, '');
}

export async function runQuery(conn: DuckDBConnection, text: string, ctx: QueryContext, explain?: 'explain' | 'analyze'): Promise<Output> {
  const sql = await expandRangeQuery(bridgeQueryText(text), ctx);
  const parsed = (await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string;
  // "No location" is 2^64 - 1, which a JSON number cannot hold exactly: kept as 0 instead.
  const tree = JSON.parse(parsed.replace(/"query_location":\d{16,}/g, '"query_location":0')) as { error: boolean; error_message?: string; error_type?: string };
  if (tree.error) {
    const message = tree.error_message ?? 'cannot parse the query';
    throw new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: ${message.replace(/^Parser Error: /, '')}`);
  }
  const cleanups: Array<() => Promise<void>> = [];
  const views = new Map<string, string>();
  const names = new Map<string, string>();
  try {
    const refs = tableRefs(tree);
    const sources: TableSource[] = [];
    for (const ref of refs) sources.push(await ctx.resolve(ref.catalog_name, ref.schema_name === '' ? ctx.database : ref.schema_name, ref.table_name));
    const timeColumns = new Map<string, TimeUnit>();
    for (const s of sources) if (s.timeIndex !== undefined && !timeColumns.has(s.timeIndex.name)) timeColumns.set(s.timeIndex.name, s.timeIndex.unit);
    const unnamed = rewriteTimeLiterals(tree, timeColumns);
    for (const u of unnamed) u.node['alias'] = await expressionName(conn, tree, u.original);
    // One table: unaliased functions of its columns are named as GreptimeDB names them.
    if (refs.length === 1) nameSelectItems(tree, refs[0]!.alias !== '' ? refs[0]!.alias : refs[0]!.table_name);
    const uses = new Map<string, number>();
    for (const s of sources) uses.set(s.key, (uses.get(s.key) ?? 0) + 1);
    for (const [i, ref] of refs.entries()) {
      const source = sources[i]!;
      let view = views.get(source.key);
      if (view === undefined) {
        // Temporary views belong to the connection, which serves one query at a time.
        view = `__tsdb_scan_${views.size + 1}`;
        // A table read once gets the query's time range on its scan; one read twice, all of it.
        const range = uses.get(source.key) === 1 && source.timeIndex !== undefined ? timeRangeOf(tree, ref, source.timeIndex.name, source.timeIndex.unit) : undefined;
        cleanups.push(await source.attach(conn, view, range));
        views.set(source.key, view);
        names.set(view, ref.table_name);
      }
      // Qualified column references (`cpu.usage`, `public.cpu.usage`) still name the table.
      if (ref.alias === '') ref.alias = ref.table_name;
      ref.catalog_name = '';
      ref.schema_name = '';
      ref.table_name = view;
    }
    const sessionChanged = rewriteSessionFunctions(tree, ctx);
    if (views.size > 0) rewriteDistinctOn(tree);
    const rewritten = views.size === 0 && !sessionChanged ? sql : ((await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(JSON.stringify(tree))})`)).getRows()[0]![0] as string);
    if (explain !== undefined) {
      // GreptimeDB's EXPLAIN columns: plan_type, plan.
      const plan = convertResult(await conn.runAndReadAll(`EXPLAIN ${explain === 'analyze' ? 'ANALYZE ' : ''}${rewritten}`));
      return records([{ name: 'plan_type', data_type: 'String' }, { name: 'plan', data_type: 'String' }], plan.rows.map((r) => [r[0]!, r[1]!]));
    }
    const { columns, rows } = await readResult(conn, rewritten);
    return records(columns, rows);
  } catch (err) {
    throw duckdbError(err, names);
  } finally {
    for (const undo of cleanups.reverse()) await undo().catch(() => {});
  }
}
