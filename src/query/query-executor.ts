/**
 * Runs a query (SELECT, WITH, VALUES …) on DuckDB over tsdb tables (DESIGN.md D2, D6): DuckDB parses
 * it (`json_serialize_sql`), each table reference is renamed to a placeholder, the tree goes back to
 * SQL (`json_deserialize_sql`), each placeholder is replaced by the subquery of a consistent scan
 * of the table's regions, and DuckDB runs it (or writes its result to a file, `QueryEnd`). Scans
 * live only as long as the query. A query of one table only (named once or more) whose rows are
 * elsewhere (a datanode) may run whole there instead (`TableSource.pushdown`): the same text with
 * the rows' relation there in place of the table, its answer then read here in its order.
 *
 * Subqueries rather than temporary views: a view costs two more round trips to DuckDB (create,
 * drop) and is bound twice (at creation and in the query), which for Parquet files means reading
 * their footers twice; per query that was ~1.5–3 ms of a small query's ~10.
 */
import { startPhase, type PhaseSpan } from '../common/tracing/tracing.js';
import { randomBytes } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { StatusCode } from '../common/error/status-code.js';
import { duckdbError } from './duckdb-error.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { quoteLiteral } from '../common/sql-quote.js';
import { affected, records, type ArrowRows, type Output } from './output.js';
import { arrowRecords, readRecords } from './arrow-records.js';
import { convertResult } from './result-conversion.js';
import { readArrowResult } from './arrow-output.js';
import { resultQuery, type ResultQuery } from './result-query.js';
import { bridgeQueryText } from '../sql/query-text.js';
import { unfoldLiteralLists, type LiteralList } from '../sql/literal-lists.js';
import { FoldedLists } from './folded-lists.js';
import { resultNames, widenIntegerLiterals, type ResultNames } from './column-names.js';
import { rewriteDistinctOn } from './distinct-on.js';
import { rewriteFirstLastValue } from './first-last-value.js';
import { mayCallAnomaly, rewriteAnomalyScores } from './anomaly-functions.js';
import { readsLastRows } from './last-row-read.js';
import { parseRangeQuery, rangeQuerySql } from './range-query.js';
import { rewriteSessionFunctions } from './session-functions.js';
import { checkIntegerStringCasts } from './strict-casts.js';
import { rewriteDivision } from './division.js';
import { rewriteAtat } from './term-match.js';
import { rewriteDataFusionCalls } from './datafusion-calls.js';
import { floatDecimalLiterals } from './float-literals.js';
import { rewriteDecimalArithmetic } from './decimal-arithmetic.js';
import { rewriteDecimalAggregates, type DecimalType } from './decimal-aggregates.js';
import { rewriteJsonGetCasts } from './json-get-casts.js';
import { AGGREGATE_MACROS } from './sketch-functions.js';
import { parseSqlJson, stringifySqlJson } from './sql-json.js';
import { constantSpans, type TextSpan } from './constant-splice.js';
import { ParseCache } from './parse-cache.js';
import { cteNames, referencedColumns, tableRefs, type BaseTableNode } from './table-refs.js';
import { keyConditionsOf, keyValuesOf, type KeyConditions, type KeyValues } from './key-predicates.js';
import { spliceTableRefs, type ParsedTableRef } from './table-splice.js';
import { foldableBounds, rewriteTimeLiterals, TIME_TYPES, timeRangeOf, type TimeRange } from './time-predicates.js';
import { checkSandbox } from './sandbox.js';
import { expandViews, type ViewBody } from './view-expansion.js';
import { explainAnalyze, explainPlan } from './explain-plan.js';
import { scanLimitOf } from './scan-limit.js';
import { limitErrorOf, type ResultLimits } from './resource-limits.js';
import { rewriteSessionBuckets, rewriteSessionTime, timestampTest } from './session-time.js';
import { castNode, functionNode, isNode, selectLists, selectTree, type Json, type Node } from './sql-tree.js';
import { FINAL_INPUT, splitQuery, wholeFinalSql } from './query-split.js';
import type { TimeUnit } from '../types/time-unit.js';

/** A table as an SQL relation, valid until released. */
export interface Relation {
  readonly sql: string;
  /**
   * The relation's rows as Arrow batches, when they are a query's whole answer already (a region's
   * answer to a query run whole there): the query's output may then be read from them directly.
   */
  readonly answer?: ArrowRows;
  release?(): void;
}

/** A table a query can read. */
/** What a table's relation may further use to leave rows out (`TableSource.relation`). */
export interface ScanHints {
  readonly conditions?: KeyConditions;
  readonly lastRow?: boolean;
  /** The rows the scan may stop at (the query's LIMIT, nothing between them; `scan-limit.ts`). */
  readonly limit?: number;
}

export interface TableSource {
  /** Identifies the table (two references to one table share one view). */
  readonly key: string;
  /** The table's time index: integer literals compared with it are epochs in its unit. */
  readonly timeIndex?: { readonly name: string; readonly unit: TimeUnit };
  /** The table's primary key (the default groups of a range query). */
  readonly primaryKey?: readonly string[];
  /**
   * The columns whose equality terms (`keys` of `relation`) the relation can use: the primary key
   * and a partitioned table's partition columns (the regions it reads). Absent: the primary key.
   */
  readonly keyColumns?: readonly string[];
  /** Its timestamp columns (the time index among them) by name: what literals compared with them mean. */
  readonly timestampColumns?: ReadonlyMap<string, TimeUnit>;
  /** Every column's name. */
  readonly columnNames?: readonly string[];
  /**
   * A partitioned table's partition columns (`catalog/partition-rule.ts`): a query its regions may
   * answer apart (`PushdownQuery.split`). Absent: the table is not partitioned.
   */
  readonly partitionColumns?: readonly string[];
  /** Its columns of integer and floating-point types. */
  readonly numericColumns?: readonly string[];
  /** Its DECIMAL columns by name (`avg`/`sum` of them as DataFusion types them: `decimal-aggregates.ts`). */
  readonly decimalColumns?: ReadonlyMap<string, DecimalType>;
  /** Its relation takes a LIMIT (`ScanHints.limit`; `public.numbers`): worked out only for such tables. */
  readonly limitedScan?: boolean;
  /**
   * The table's rows (of the inclusive time range only, when given; the relation may also leave
   * out rows whose primary key columns hold none of `keys`' values) as a relation for DuckDB.
   */
  /**
   * `signal`: the statement's; stops a wait for the table's files (downloads into a file cache).
   * `columns`: the (lower-case) names the query refers to, when it names every column it reads:
   * the relation may leave the others out. `conditions`: further terms on primary key columns
   * (`!=`, NOT IN, regex, LIKE) the relation may use to skip rows (by an inverted index).
   */
  /**
   * `hints`: what else the relation may use to leave rows out — `conditions`, further terms on
   * primary key columns (`!=`, NOT IN, regex, LIKE; by an inverted index); `lastRow`, the query
   * keeps only the last row of each series (`last-row-read.ts`, `ScanRequest.lastRow`).
   */
  relation(range?: TimeRange, keys?: KeyValues, signal?: AbortSignal, columns?: ReadonlySet<string>, hints?: ScanHints): Promise<Relation>;
  /**
   * A query that reads this table alone (named once, or more: a self-join), run whole where the
   * table's rows are when that is elsewhere (a datanode), so that only its answer comes back.
   * Resolves to the answer as a relation whose rows keep the answer's order, or to undefined when
   * the table does not take the query (then `relation` serves it).
   */
  pushdown?(query: PushdownQuery): Promise<Relation | undefined>;
}

/** A whole query handed to the one table it reads (`TableSource.pushdown`). */
export interface PushdownQuery {
  /**
   * The query as it would run here (every rewrite done) with `relation`, SQL of the table's rows
   * where they are, in place of the table.
   */
  text(relation: string): string;
  /** Names the query's WITH clauses define (lower case): a relation naming one of them would read it instead. */
  readonly names: ReadonlySet<string>;
  /** The rows it reads, as `relation` gets them: the inclusive time range, the primary key values. */
  readonly range?: TimeRange;
  readonly keys?: KeyValues;
  /** Further terms on primary key columns (`TableSource.relation`'s `conditions`). */
  readonly conditions?: KeyConditions;
  /** The query keeps only the last row of each series (`ScanHints.lastRow`). */
  readonly lastRow?: boolean;
  readonly signal?: AbortSignal;
  /** Rows its answer may have (`ResultLimits.maxRows`; 0: no limit). */
  readonly maxRows: number;
  /**
   * How the query splits over several regions of a partitioned table, each answering its part
   * (`query-split.ts`), worked out when asked; undefined when it does not split.
   */
  split?(): Promise<RegionSplit | undefined>;
}

/** A query split over a partitioned table's regions (`PushdownQuery.split`). */
export interface RegionSplit {
  /** What each region runs, with `relation` (SQL of the region's rows there) in place of the table. */
  text(relation: string): string;
  /**
   * The frontend's query of the regions' answers: `answers` is a relation of them all, their
   * columns named `splitColumn(i)`; `names` their names in a region's answer. Undefined when the
   * answers do not have the columns the split expects (the table changed meanwhile).
   */
  final(answers: string, names: readonly string[]): string | undefined;
  /** Whether the answer is every row of the regions' answers (`maxRows` then bounds those). */
  readonly allRows: boolean;
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
  /** The session's time zone (`timezone()`, and the one naive timestamp strings are read in: `session-time.ts`). */
  readonly timezone: string;
  /** The logged-in user (`user()`, `current_user`) and the session's protocol (`version()`): `session-functions.ts`. */
  readonly user?: string;
  readonly channel?: 'mysql' | 'postgres' | 'http' | 'grpc';
  /** `connection_id()` / `pg_backend_pid()`: the wire connection's id. */
  readonly connectionId?: number;
  /** The table `database.name` of catalog `catalog` ('' = the session's); throws TableNotFound. */
  resolve(catalog: string, database: string, name: string): Promise<TableSource>;
  /** The session's protocol dialect, if it has one. */
  readonly dialect?: QueryDialect;
  /** Checks the shape of the parsed query (the caller runs a query of a given form); throws to refuse it. */
  check?(tree: unknown): void;
  /** Turns the query's plain SQL (range queries expanded) into the one that runs (INSERT … SELECT's casts). */
  wrap?(sql: string): string;
  /**
   * Literal lists folded out of the statement's text (`sql/literal-lists.ts`), by marker: put back
   * into the text DuckDB runs (`folded-lists.ts`).
   */
  readonly lists?: ReadonlyMap<string, LiteralList>;
  /** What one result may hold (`resource-limits.ts`); default: no limits. */
  readonly limits?: ResultLimits;
  /**
   * The statement's cancellation (`frontend/statement-control.ts`): checked between the DuckDB calls
   * of the query (the caller interrupts the connection on it, which stops only a call in progress).
   */
  readonly signal?: AbortSignal;
  /** Rows as Arrow record batches (`Output.arrow`) when every result column has an Arrow type here. */
  readonly arrow?: boolean;
  /** The result is a statement's own (a client reads it): its columns are named as GreptimeDB names them (`column-names.ts`). */
  readonly names?: boolean;
  /** The view `database.name` of catalog `catalog` ('' = the session's), if it is one (`view-expansion.ts`). */
  view?(catalog: string, database: string, name: string): Promise<ViewBody | undefined>;
}

/**
 * What a table reference is renamed to until its subquery replaces it in the SQL text: an
 * identifier DuckDB writes unquoted, with a per-process nonce so no literal of a query matches it.
 */
const PLACEHOLDER = `__tsdb_scan_${randomBytes(6).toString('hex')}_`;
const PLACEHOLDER_PATTERN = new RegExp(`"?${PLACEHOLDER}\\d+"?`, 'g');

/** A range query as plain SQL (unchanged when the query is not one). */
async function expandRangeQuery(sql: string, ctx: QueryContext, nowMs: number): Promise<string> {
  // A range query has the word ALIGN or RANGE: other text is not tokenized again.
  if (!/align|range/i.test(sql)) return sql;
  const rq = parseRangeQuery(sql);
  if (rq === undefined) return sql;
  const parts = rq.table;
  const source = await ctx.resolve(parts.length === 3 ? parts[0]! : '', parts.length >= 2 ? parts[parts.length - 2]! : ctx.database, parts[parts.length - 1]!);
  if (source.timeIndex === undefined) throw new TsdbError(StatusCode.PlanQuery, `Failed to plan SQL: a range query needs a table with a time index, not ${parts.join('.')}`);
  return rangeQuerySql(rq, { timeIndex: source.timeIndex.name, timeType: TIME_TYPES[source.timeIndex.unit], primaryKey: source.primaryKey ?? [] }, nowMs, ctx.timezone, ctx.limits?.maxRows ?? 0);
}

/** DuckDB's name of an expression: its SQL text, as `json_deserialize_sql` writes it. */
async function expressionName(conn: DuckDBConnection, expr: Json): Promise<string> {
  const text = (await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(stringifySqlJson(selectTree([expr])))})`)).getRows()[0]![0] as string;
  return text.replace(/^SELECT\s+/i, '');
}

/**
 * The values of constant timestamp expressions (nanoseconds since the epoch), evaluated by DuckDB in
 * one round trip; an expression DuckDB cannot evaluate is left out (the query itself reports it).
 */
async function foldTimestamps(conn: DuckDBConnection, exprs: readonly Node[]): Promise<Map<object, bigint>> {
  const out = new Map<object, bigint>();
  if (exprs.length === 0) return out;
  const probe = selectTree(exprs.map((e) => functionNode('epoch_ns', [{ ...castNode(structuredClone(e), 'TIMESTAMP_NS'), try_cast: true }])));
  try {
    const row = (await conn.runAndReadAll(`SELECT * FROM json_execute_serialized_sql(${quoteLiteral(stringifySqlJson(probe))})`)).getRows()[0] ?? [];
    exprs.forEach((e, i) => {
      const v = row[i];
      if (typeof v === 'bigint') out.set(e, v);
    });
  } catch {
    // Not foldable after all: the scan is not narrowed by it.
  }
  return out;
}

/**
 * Unaliased select items as written, to be named after the rewrites as DuckDB names what the user
 * wrote (`now()`, not the constant that replaced it): the lists, the index, the item before and its
 * text.
 */
function snapshotSelectItems(tree: unknown): Array<{ list: Json[]; index: number; original: Json; text: string }> {
  const out: Array<{ list: Json[]; index: number; original: Json; text: string }> = [];
  for (const list of selectLists(tree)) {
    list.forEach((item, index) => {
      if (isNode(item) && item['alias'] === '' && item['class'] !== 'STAR') {
        const text = stringifySqlJson(item);
        out.push({ list, index, original: JSON.parse(text) as Json, text });
      }
    });
  }
  return out;
}

/** DuckDB's parse tree of `sql` (query locations DuckDB has none for are 0). */
async function serializeSql(conn: DuckDBConnection, sql: string): Promise<{ error: boolean; error_message?: string; error_type?: string }> {
  // Integers beyond 2^53 (BIGINT, UBIGINT, HUGEINT and DECIMAL literals) are kept exactly (`parseSqlJson`).
  const serialize = async (text: string) => (await conn.runAndReadAll(`SELECT json_serialize_sql(${quoteLiteral(text)})`)).getRows()[0]![0] as string;
  return (await PARSE_CACHE.parse(sql, serialize)) as { error: boolean; error_message?: string; error_type?: string };
}

/** Parse trees by statement shape, for the process (a parse depends on the text alone). */
const PARSE_CACHE = new ParseCache();

/** The parse tree of the one select item of `SELECT <expr>`. */
async function parseExpression(conn: DuckDBConnection, expr: string): Promise<unknown> {
  const tree = await serializeSql(conn, `SELECT ${expr}`);
  if (tree.error) throw new TsdbError(StatusCode.Internal, `cannot parse ${expr}: ${tree.error_message ?? ''}`);
  return (tree as unknown as { statements: Array<{ node: { select_list: unknown[] } }> }).statements[0]!.node.select_list[0];
}

/**
 * The query text with its table references replaced by their relations (`table-splice.ts`), and the
 * constants the rewrites changed written in (`constant-splice.ts`), when the rewritten `tree` is the
 * parsed one (`parsed`) but for those; else undefined (the caller deserializes the tree).
 */
function spliceRewritten(tree: unknown, parsed: string, sql: string, refs: readonly BaseTableNode[], parsedRefs: readonly ParsedTableRef[], relationOf: (i: number) => string): string | undefined {
  const rewrittenRefs = refs.map((r) => ({ alias: r.alias, catalog_name: r.catalog_name, schema_name: r.schema_name, table_name: r.table_name }));
  refs.forEach((r, i) => Object.assign(r, { alias: parsedRefs[i]!.alias, catalog_name: parsedRefs[i]!.catalog_name, schema_name: parsedRefs[i]!.schema_name, table_name: parsedRefs[i]!.table_name }));
  let constants: TextSpan[] | undefined = [];
  try {
    if (stringifySqlJson(tree) !== parsed) constants = constantSpans(parseSqlJson(parsed), tree, sql);
  } finally {
    refs.forEach((r, i) => Object.assign(r, rewrittenRefs[i]!));
  }
  if (constants === undefined) return undefined;
  if (refs.length === 0 && constants.length === 0) return sql;
  return spliceTableRefs(sql, parsedRefs.map((ref, i) => ({ ref, relation: relationOf(i) })), constants);
}

/** DuckDB's aggregate function names (lower case) and tsdb's aggregate macros (`sketch-functions.ts`), asked once per process: they are built in. */
let aggregateNames: Promise<ReadonlySet<string>> | undefined;

function aggregatesOf(conn: DuckDBConnection): Promise<ReadonlySet<string>> {
  const asking = (aggregateNames ??= conn
    .runAndReadAll("SELECT DISTINCT lower(function_name) FROM duckdb_functions() WHERE function_type = 'aggregate'")
    .then((r) => new Set([...r.getRows().map((row) => row[0] as string), ...AGGREGATE_MACROS])));
  // A failure (DuckDB's memory used up) is asked again by the next query.
  asking.catch(() => {
    if (aggregateNames === asking) aggregateNames = undefined;
  });
  return asking;
}

const FINAL_INPUT_PATTERN = new RegExp(`"?${FINAL_INPUT}"?`, 'g');

/**
 * How the query `tree` (its one table a placeholder; `template` its text) splits over the regions
 * of a partitioned table (`query-split.ts`): the regions' query and the frontend's, as text.
 */
async function regionSplit(conn: DuckDBConnection, tree: unknown, template: string, source: TableSource, restore: (text: string) => Promise<string>): Promise<RegionSplit | undefined> {
  const table = {
    partitionColumns: source.partitionColumns ?? [],
    columnNames: source.columnNames ?? [],
    numericColumns: new Set((source.numericColumns ?? []).map((c) => c.toLowerCase())),
    aggregates: await aggregatesOf(conn),
  };
  let copy = structuredClone(tree);
  let split = splitQuery(copy, table);
  if (split === undefined) {
    // An unaliased item the final step computes otherwise keeps its name only by an alias: DuckDB's name of it.
    const items = selectLists(copy)[0] ?? [];
    const unnamed = items.filter((i): i is Node => isNode(i) && i['alias'] === '' && i['class'] !== 'COLUMN_REF' && i['class'] !== 'STAR');
    if (unnamed.length === 0) return undefined;
    copy = structuredClone(tree);
    for (const item of (selectLists(copy)[0] ?? []).filter((i): i is Node => isNode(i) && i['alias'] === '' && i['class'] !== 'COLUMN_REF' && i['class'] !== 'STAR')) {
      item['alias'] = await expressionName(conn, item);
    }
    split = splitQuery(copy, table);
    if (split?.kind !== 'partial') return undefined;
  }
  const deserialize = async (t: unknown) => restore((await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(stringifySqlJson(t))})`)).getRows()[0]![0] as string);
  const region = split.kind === 'whole' && split.unchanged ? template : await deserialize(split.region);
  const text = (relation: string) => region.replace(PLACEHOLDER_PATTERN, () => `(${relation})`);
  if (split.kind === 'whole') {
    const whole = split;
    return { text, final: (answers, names) => (names.length === whole.columns ? wholeFinalSql(whole, answers, names) : undefined), allRows: whole.limit === undefined && whole.offset === undefined };
  }
  const columns = split.columns;
  const final = await deserialize(split.final);
  return { text, final: (answers, names) => (names.length === columns ? final.replace(FINAL_INPUT_PATTERN, () => answers) : undefined), allRows: false };
}

/** The parse tree of a view's query (`view-expansion.ts`), read as a query's own text is, in the view's database. */
async function parseViewQuery(conn: DuckDBConnection, query: string, ctx: QueryContext, nowMs: number): Promise<unknown> {
  const text = await expandRangeQuery(bridgeQueryText(query), ctx, nowMs);
  const tree = await serializeSql(conn, text).catch((err: unknown) => {
    throw duckdbError(err);
  });
  if (tree.error) throw new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: ${(tree.error_message ?? 'cannot parse the query').replace(/^Parser Error: /, '')}`);
  return tree;
}

/** What an EXPLAIN of a query shows: its plans (with the unoptimized one for VERBOSE), or its run (ANALYZE). */
export type ExplainMode = 'explain' | 'verbose' | 'analyze';

/**
 * Takes a planned query in place of its rows being read (COPY (<query>) TO): `result` is SQL of its
 * result (`result-query.ts`: named and typed as a client would read it), valid on `conn` until the
 * call settles (its tables' relations are held until then). Resolves to the rows it wrote.
 */
export type QueryWriter = (conn: DuckDBConnection, result: ResultQuery) => Promise<number>;

/**
 * What a query ends in besides its rows: its plan (EXPLAIN [VERBOSE], EXPLAIN ANALYZE), or its SQL
 * handed to `write` (then the output is `affected` by the rows written, and the result's rows and
 * bytes are not limited, none being held here; a RANGE query's FILL slots still are,
 * `ResultLimits.maxRows`).
 */
export type QueryEnd = ExplainMode | { readonly write: QueryWriter };

/** Runs one query in `conn`; returns its rows, or what `end` makes of it. */
export async function runQuery(conn: DuckDBConnection, text: string, ctx: QueryContext, end?: QueryEnd): Promise<Output> {
  // From the text to the SQL that reads the regions (parsed by DuckDB, rewritten, tables resolved).
  const plan = startPhase('sql.plan');
  try {
    return await planAndRun(conn, text, ctx, plan, end);
  } catch (err) {
    plan.end(err);
    throw err;
  } finally {
    plan.end();
  }
}

async function planAndRun(conn: DuckDBConnection, text: string, ctx: QueryContext, plan: PhaseSpan, end?: QueryEnd): Promise<Output> {
  const explain = typeof end === 'string' ? end : undefined;
  const write = typeof end === 'object' ? end.write : undefined;
  const nowMs = Date.now();
  const plain = await expandRangeQuery(bridgeQueryText(ctx.dialect?.text(text) ?? text), ctx, nowMs);
  const sql = ctx.wrap?.(plain) ?? plain;
  const foldedLists = FoldedLists.of(sql, ctx.lists);
  // The query with its lists as written (the slow path): for a list that is not where it seemed to
  // be, a rewrite whose effect on a list tsdb cannot give, or the parse error of the text as written.
  const asWritten = () => runQuery(conn, unfoldLiteralLists(text, ctx.lists!), { ...ctx, lists: undefined }, end);
  const aborted = () => ctx.signal?.throwIfAborted();
  // DuckDB's parse can fail like any call (its memory used up by other queries): a tsdb error then,
  // so that the caller can tell a full pool (and wait for it) from its own fault.
  const tree = await serializeSql(conn, sql).catch((err: unknown) => {
    throw duckdbError(err);
  });
  aborted();
  if (tree.error) {
    if (foldedLists !== undefined) return asWritten();
    const message = tree.error_message ?? 'cannot parse the query';
    throw new TsdbError(StatusCode.InvalidSyntax, `Invalid SQL syntax: sql parser error: ${message.replace(/^Parser Error: /, '')}`);
  }
  const relations: Relation[] = [];
  // The tree as parsed: a query no rewrite changes but its table references skips the deserialization.
  const parsed = stringifySqlJson(tree);
  if (foldedLists !== undefined && !foldedLists.inPlace(tree, parsed)) return asWritten();
  const views = new Map<string, string>();
  const bodies = new Map<string, string>();
  const names = new Map<string, string>(foldedLists?.shortNames());
  try {
    ctx.check?.(tree);
    const dialectRewrote = (await ctx.dialect?.rewrite(tree, sql, (expr) => parseExpression(conn, expr))) === true;
    aborted();
    // Views become their queries before anything is checked or resolved: their text is the user's too.
    const withViews = ctx.view !== undefined && (await expandViews(tree, ctx.database, (c, d, n) => ctx.view!(c, d, n), (q, database) => parseViewQuery(conn, q, { ...ctx, database }, nowMs)));
    aborted();
    checkSandbox(tree);
    const refs = tableRefs(tree);
    const sources: TableSource[] = [];
    for (const ref of refs) sources.push(await ctx.resolve(ref.catalog_name, ref.schema_name === '' ? ctx.database : ref.schema_name, ref.table_name));
    const timeColumns = new Map<string, TimeUnit>();
    const columnNames = new Set<string>();
    // Decimal columns by name; a name of two different types in the query's tables is none of them.
    const decimals = new Map<string, DecimalType | undefined>();
    for (const s of sources) {
      for (const [name, unit] of s.timestampColumns ?? []) timeColumns.set(name, unit);
      for (const name of s.columnNames ?? []) columnNames.add(name.toLowerCase());
      for (const [name, d] of s.decimalColumns ?? []) {
        const key = name.toLowerCase();
        const seen = decimals.get(key);
        decimals.set(key, decimals.has(key) && (seen === undefined || seen.precision !== d.precision || seen.scale !== d.scale) ? undefined : d);
      }
    }
    // Result names from the query as written, before the rewrites (`column-names.ts`).
    let naming: ResultNames | undefined;
    // Not a query the dialect rewrote (a PostgreSQL client's catalog query: `NULL, NULL` it made of
    // catalog functions would be two items of one name).
    if (ctx.names === true && !dialectRewrote) {
      const columnsOf = new Map<object, readonly string[] | undefined>(refs.map((r, i) => [r, sources[i]!.columnNames]));
      naming = resultNames(tree, { sql, columnsOf: (ref) => columnsOf.get(ref), ...(foldedLists !== undefined && { opaque: (n) => foldedLists.listOf(n) !== undefined }) });
    }
    const items = snapshotSelectItems(tree);
    // Items named here need not DuckDB's name of them.
    const namedItems = new Set(items.filter((item) => naming?.named.has(item.list[item.index] as Node) === true));
    const nameOutput = (out: Output): Output => naming?.output(out) ?? out;
    // First of the rewrites: only the operators the user wrote become DataFusion's (`division.ts`).
    if (/[/%]|\bmod\s*\(/i.test(sql)) rewriteDivision(tree);
    if (sql.includes('@@')) rewriteAtat(tree);
    if (/~|\barrow_cast\s*\(/i.test(sql)) rewriteDataFusionCalls(tree, sql);
    // `1.5` is a Float64, an integer beyond BIGINT a UInt64 or a Float64 (`float-literals.ts`).
    if (/\d\.|\.\d|\d{19}/.test(sql)) floatDecimalLiterals(tree);
    const knownDecimals = new Map([...decimals].filter((e): e is [string, DecimalType] => e[1] !== undefined));
    if ((knownDecimals.size > 0 || /\b(decimal|numeric)\b/i.test(sql)) && /[-+*/]|\b(ceil|ceiling|floor)\s*\(/i.test(sql)) rewriteDecimalArithmetic(tree, knownDecimals);
    rewriteSessionTime(tree, { zone: ctx.timezone, nowMs, timestampColumns: timeColumns, columnNames, ...(foldedLists !== undefined && { foldedList: foldedLists.listOf }) });
    rewriteTimeLiterals(tree, timeColumns, foldedLists?.listOf);
    rewriteSessionBuckets(tree, ctx.timezone, timestampTest(timeColumns));
    if (/\b(first|last)_value\b/i.test(sql)) {
      // A table's time index by the name a FROM gives it (none when two tables of that name differ).
      const timeIndexes = new Map<string, string | undefined>();
      refs.forEach((ref, i) => {
        const name = ref.table_name.toLowerCase();
        const ti = sources[i]!.timeIndex?.name;
        timeIndexes.set(name, timeIndexes.has(name) && timeIndexes.get(name) !== ti ? undefined : ti);
      });
      rewriteFirstLastValue(tree, (table) => timeIndexes.get(table), await aggregatesOf(conn));
    }
    if (/\bjson_get\b/i.test(sql)) rewriteJsonGetCasts(tree);
    if (mayCallAnomaly(sql)) await rewriteAnomalyScores(tree, (expr) => parseExpression(conn, expr));
    if (knownDecimals.size > 0 && /\b(avg|sum)\s*\(/i.test(sql)) await rewriteDecimalAggregates(tree, knownDecimals, (expr) => parseExpression(conn, expr));
    // A select item holding a list whose elements change is named by DuckDB's text of the item as
    // written, which only DuckDB's parse of the whole list gives.
    if (foldedLists !== undefined && (foldedLists.conflicting || items.some((item) => FoldedLists.within(item.text) && (foldedLists.rewritesWithin(item.text) || stringifySqlJson(item.list[item.index]) !== item.text)))) {
      return await asWritten();
    }
    for (const item of items) {
      const now = item.list[item.index];
      if (isNode(now) && now['alias'] === '' && !namedItems.has(item) && stringifySqlJson(now) !== item.text) now['alias'] = await expressionName(conn, item.original);
    }
    if (naming !== undefined) widenIntegerLiterals(tree, naming.named);
    const uses = new Map<string, number>();
    for (const s of sources) uses.set(s.key, (uses.get(s.key) ?? 0) + 1);
    // Constant bounds on the time index of a table read once (`ts > now() - INTERVAL '1 hour'`), evaluated for its scan.
    const bounds: Node[] = [];
    refs.forEach((ref, i) => {
      const ti = sources[i]!.timeIndex;
      if (ti !== undefined && uses.get(sources[i]!.key) === 1) bounds.push(...foldableBounds(tree, ref, ti.name, ti.unit));
    });
    aborted();
    const folded = await foldTimestamps(conn, bounds);
    aborted();
    const parsedRefs: ParsedTableRef[] = refs.map((r) => ({ ...r }));
    // A reference naming a table or its alias (`SELECT t FROM t`: the whole row) reads every column.
    const named = referencedColumns(tree);
    const referenced = named !== undefined && refs.some((r) => named.has(r.table_name.toLowerCase()) || (r.alias !== '' && named.has(r.alias.toLowerCase()))) ? undefined : named;
    // Each table's reads, under the name its references have until its relation replaces them.
    const reads: Array<{ view: string; source: TableSource; ref: BaseTableNode; range: TimeRange | undefined; keys: KeyValues | undefined; conditions: KeyConditions | undefined; lastRow?: boolean }> = [];
    for (const [i, ref] of refs.entries()) {
      const source = sources[i]!;
      let view = views.get(source.key);
      if (view === undefined) {
        view = `${PLACEHOLDER}${views.size + 1}`;
        // A table read once gets the query's time range and key values on its scan; one read twice, all of it.
        const range = uses.get(source.key) === 1 && source.timeIndex !== undefined ? timeRangeOf(tree, ref, source.timeIndex.name, source.timeIndex.unit, folded) : undefined;
        const keyColumns = source.keyColumns ?? source.primaryKey;
        const keys = uses.get(source.key) === 1 && keyColumns !== undefined ? keyValuesOf(tree, ref, keyColumns) : undefined;
        const conditions = uses.get(source.key) === 1 && source.primaryKey !== undefined ? keyConditionsOf(tree, ref, source.primaryKey) : undefined;
        reads.push({ view, source, ref, range, keys, conditions });
        views.set(source.key, view);
        names.set(view, ref.table_name);
      }
      // Qualified column references (`cpu.usage`, `public.cpu.usage`) still name the table.
      if (ref.alias === '') ref.alias = ref.table_name;
      ref.catalog_name = '';
      ref.schema_name = '';
      ref.table_name = view;
    }
    rewriteSessionFunctions(tree, ctx, columnNames);
    checkIntegerStringCasts(tree);
    if (views.size > 0) rewriteDistinctOn(tree);
    // A table read once by a lastpoint shape (as DISTINCT ON and last_value are now written) needs
    // only its series' last rows.
    if (/\bqualify\b|\bdistinct\b|_value\b/i.test(sql)) {
      for (const r of reads) {
        const ti = r.source.timeIndex;
        if (ti === undefined || r.source.primaryKey === undefined || uses.get(r.source.key) !== 1) continue;
        r.lastRow = readsLastRows(tree, r.ref, { primaryKey: r.source.primaryKey, timeIndex: ti.name, unit: ti.unit }, await aggregatesOf(conn), folded);
      }
    }
    // The query's text with the views' names where their relations go (spliced in as `(view)`).
    const spliced = withViews ? undefined : spliceRewritten(tree, parsed, sql, refs, parsedRefs, (i) => views.get(sources[i]!.key)!);
    const deserialized = spliced !== undefined ? sql : ((await conn.runAndReadAll(`SELECT json_deserialize_sql(${quoteLiteral(stringifySqlJson(tree))})`)).getRows()[0]![0] as string);
    const template = foldedLists === undefined ? (spliced ?? deserialized) : await foldedLists.restore(spliced ?? deserialized);
    aborted();
    plan.end();
    // A query reading one table alone (once, or several times: a self-join) may run whole where its
    // rows are (`TableSource.pushdown`): then only the answer is read here. EXPLAIN shows the plan of
    // the query here, as it reads its tables.
    let rewritten: string | undefined;
    const only = reads.length === 1 && explain === undefined ? reads[0]! : undefined;
    if (only?.source.pushdown !== undefined) {
      const answer = await only.source.pushdown({
        text: (relation) => template.replace(PLACEHOLDER_PATTERN, () => `(${relation})`),
        names: cteNames(tree),
        ...(only.range !== undefined && { range: only.range }),
        ...(only.keys !== undefined && { keys: only.keys }),
        ...(only.conditions !== undefined && { conditions: only.conditions }),
        ...(only.lastRow === true && { lastRow: true }),
        ...(ctx.signal !== undefined && { signal: ctx.signal }),
        // An answer to be written is no result read here: bounded only by the bytes a relation may hold.
        maxRows: write === undefined ? (ctx.limits?.maxRows ?? 0) : 0,
        ...(only.source.partitionColumns !== undefined && refs.length === 1 && {
          split: () => regionSplit(conn, tree, template, only.source, (text) => foldedLists?.restore(text) ?? Promise.resolve(text)),
        }),
      }).catch((err: unknown) => {
        // A limit the query checks as it runs (`limitErrorSql`) fails it there with this process's marker.
        throw (err instanceof TsdbError ? limitErrorOf(err.message) : undefined) ?? err;
      });
      aborted();
      if (answer !== undefined) {
        relations.push(answer);
        // The answer as it came, unless Arrow is asked for (whose types `readArrowResult` gives) or a
        // column is of a type only DuckDB reads as clients expect.
        const direct = answer.answer !== undefined && ctx.arrow !== true && write === undefined ? arrowRecords(answer.answer, ctx.limits) : undefined;
        if (direct !== undefined) return nameOutput(records(direct.columns, direct.rows));
        rewritten = answer.sql;
      }
    }
    if (rewritten === undefined) {
      for (const r of reads) {
        // A table read more than once shares one relation: the largest of its readers' limits, when each has one.
        let limit: number | undefined;
        if (r.source.limitedScan === true) {
          const aggregates = await aggregatesOf(conn);
          const limits = refs.filter((_, i) => sources[i]!.key === r.source.key).map((ref) => scanLimitOf(tree, ref, aggregates));
          limit = limits.every((l) => l !== undefined) ? Math.max(...(limits as number[])) : undefined;
        }
        const relation = await r.source.relation(r.range, r.keys, ctx.signal, referenced, {
          ...(r.conditions !== undefined && { conditions: r.conditions }),
          ...(r.lastRow === true && { lastRow: true }),
          ...(limit !== undefined && { limit }),
        });
        relations.push(relation);
        bodies.set(r.view, relation.sql);
      }
      rewritten = views.size === 0 ? template : template.replace(PLACEHOLDER_PATTERN, (view: string) => `(${bodies.get(view.replaceAll('"', ''))!})`);
    }
    aborted();
    if (explain !== undefined) {
      // GreptimeDB's shapes: plan_type | plan; stage | node | plan for ANALYZE (`explain-plan.ts`).
      const plan = explain === 'analyze' ? await explainAnalyze(conn, rewritten) : await explainPlan(conn, rewritten, explain === 'verbose');
      aborted();
      return plan;
    }
    if (write !== undefined) {
      const rows = await write(conn, await resultQuery(conn, rewritten, naming?.rename));
      aborted();
      return affected(rows);
    }
    if (ctx.arrow === true) {
      const arrow = await readArrowResult(conn, rewritten, ctx.limits, ctx.signal);
      aborted();
      if (arrow !== undefined) return nameOutput({ kind: 'records', columns: arrow.columns, rows: [], arrow: { schema: arrow.schema, batches: arrow.batches } });
    }
    const { columns, rows } = await readRecords(conn, rewritten, ctx.limits, ctx.signal);
    // An interrupted read can end early without an error: its rows are not the answer.
    aborted();
    return nameOutput(records(columns, rows));
  } catch (err) {
    // A read cut short by the statement's cancellation fails as the cancellation says.
    aborted();
    throw duckdbError(err, names);
  } finally {
    for (const r of relations) r.release?.();
  }
}
