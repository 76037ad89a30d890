/**
 * Runs a query (SELECT, WITH, VALUES …) on DuckDB over tsdb tables (DESIGN.md D2, D6): DuckDB parses
 * it (`json_serialize_sql`), each table reference is renamed to a placeholder, the tree goes back to
 * SQL (`json_deserialize_sql`), each placeholder is replaced by the subquery of a consistent scan
 * of the table's regions, and DuckDB runs it. Scans live only as long as the query.
 *
 * Subqueries rather than temporary views: a view costs two more round trips to DuckDB (create,
 * drop) and is bound twice (at creation and in the query), which for Parquet files means reading
 * their footers twice; per query that was ~1.5–3 ms of a small query's ~10.
 */
import { randomBytes } from 'node:crypto';
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

/** A table as an SQL relation, valid until released. */
export interface Relation {
  readonly sql: string;
  release?(): void;
}

/** A table a query can read. */
export interface TableSource {
  /** Identifies the table (two references to one table share one view). */
  readonly key: string;
  /** The table's time index: integer literals compared with it are epochs in its unit. */
  readonly timeIndex?: { readonly name: string; readonly unit: TimeUnit };
  /** The table's primary key (the default groups of a range query). */
  readonly primaryKey?: readonly string[];
  /** The table's rows (of the inclusive time range only, when given) as a relation for DuckDB. */
  relation(range?: TimeRange): Promise<Relation>;
}

/**
 * A client protocol's dialect (PostgreSQL's, `pg-dialect.ts`): a rewrite of the query text before
 * DuckDB parses it, and of the parse tree before its table references are resolved.
 */
export interface QueryDialect {
  text(sql: string): string;
  /** Rewrites `tree` (parsed from `sql`) in place; `parse` gives the tree of `SELECT <expr>`'s item. Returns whether it changed. */
  rewrite(tree: unknown, sql: string, parse: (expr: string) => Promise<unknown>): Promise<boolean>;
}

export interface QueryContext {
  /** The session's database: where unqualified table names are looked up (and `database()`). */
  readonly database: string;
  /** The session's time zone (`timezone()`). */
  readonly timezone: string;
  /** The table `database.name` of catalog `catalog` ('' = the session's); throws TableNotFound. */
  resolve(catalog: string, database: string, name: string): Promise<TableSource>;
  /** The session's protocol dialect, if it has one. */
  readonly dialect?: QueryDialect;
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

/**
 * What a table reference is renamed to until its subquery replaces it in the SQL text: an
 * identifier DuckDB writes unquoted, with a per-process nonce so no literal of a query matches it.
 */
const PLACEHOLDER = `__tsdb_scan_${randomBytes(6).toString('hex')}_`;
const PLACEHOLDER_PATTERN = new RegExp(`"?${PLACEHOLDER}\\d+"?`, 'g');

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

/** DuckDB's parse tree of `sql` (query locations DuckDB has none for are 0). */
async function serializeSql(conn: DuckDBConnection, sql: string): Promise<{ error: boolean; error_message?: string; error_type?: string }> {
  const parsed = (await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(sql)})`)).getRows()[0]![0] as string;
  // "No location" is 2^64 - 1, which a JSON number cannot hold exactly: kept as 0 instead.
  return JSON.parse(parsed.replace(/"query_location":\d{16,}/g, '"query_location":0')) as { error: boolean; error_message?: string; error_type?: string };
}

/** The parse tree of the one select item of `SELECT <expr>`. */
async function parseExpression(conn: DuckDBConnection, expr: string): Promise<unknown> {
  const tree = await serializeSql(conn, `SELECT ${expr}`);
  if (tree.error) throw new TsdbError(StatusCode.Internal, `cannot parse ${expr}: ${tree.error_message ?? ''}`);
  return (tree as unknown as { statements: Array<{ node: { select_list: unknown[] } }> }).statements[0]!.node.select_list[0];
}

/** Runs one query in `conn`; returns its rows. */
export async function runQuery(conn: DuckDBConnection, text: string, ctx: QueryContext, explain?: 'explain' | 'analyze'): Promise<Output> {
  const sql = await expandRangeQuery(bridgeQueryText(ctx.dialect?.text(text) ?? text), ctx);
  const tree = await serializeSql(conn, sql);
  if (tree.error) {
    const message = tree.error_message ?? 'cannot parse the query';
    throw new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: ${message.replace(/^Parser Error: /, '')}`);
  }
  const relations: Relation[] = [];
  const views = new Map<string, string>();
  const bodies = new Map<string, string>();
  const names = new Map<string, string>();
  try {
    const dialectChanged = ctx.dialect !== undefined && (await ctx.dialect.rewrite(tree, sql, (expr) => parseExpression(conn, expr)));
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
        view = `${PLACEHOLDER}${views.size + 1}`;
        // A table read once gets the query's time range on its scan; one read twice, all of it.
        const range = uses.get(source.key) === 1 && source.timeIndex !== undefined ? timeRangeOf(tree, ref, source.timeIndex.name, source.timeIndex.unit) : undefined;
        const relation = await source.relation(range);
        relations.push(relation);
        views.set(source.key, view);
        bodies.set(view, relation.sql);
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
    const deserialized = views.size === 0 && !sessionChanged && !dialectChanged ? sql : ((await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(JSON.stringify(tree))})`)).getRows()[0]![0] as string);
    const rewritten = views.size === 0 ? deserialized : deserialized.replace(PLACEHOLDER_PATTERN, (view: string) => `(${bodies.get(view.replaceAll('"', ''))!})`);
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
    for (const r of relations) r.release?.();
  }
}
