/**
 * TQL (reference api.md §4.6): PromQL inside SQL. `TQL EVAL` evaluates a PromQL query over the
 * session's database (`SqlPromSource`: each selector one SQL scan through the instance's query
 * path, with its matchers and time range in the WHERE) and answers it as a table shaped as
 * GreptimeDB shapes it (`tql-columns.ts`); `TQL EXPLAIN` shows the expression and the scans it
 * would run (`plan_type | plan`), without reading a sample; `TQL ANALYZE` runs it and shows each
 * step with its time and rows (`stage | node | plan`). `{__schema__="db"}` / `{__database__="db"}`
 * on a selector read another database (as the same user); a TQL CTE's rows become a relation of
 * the query around it (`tqlArrow`: Arrow batches DuckDB scans in place).
 */
import { Dictionary, Field, Float64, Int32, makeData, RecordBatch, Schema, Struct, TimestampMillisecond, Utf8, vectorFromArray, type Data } from 'apache-arrow';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { parseTimestamp } from '../../common/time/timestamp.js';
import type { Expr, LabelMatcher, VectorSelector } from '../../promql/ast.js';
import { evaluateQuery } from '../../promql/engine.js';
import { DEFAULT_LOOKBACK_MS, DEFAULT_MAX_SAMPLES, MAX_POINTS_PER_SERIES, PromqlError } from '../../promql/errors.js';
import { compareLabels, getLabel, type Labels } from '../../promql/labels.js';
import { parsePromql, typeOf } from '../../promql/parser.js';
import type { MetadataRequest, PromSource, SelectRequest, SeriesData } from '../../promql/source.js';
import type { QueryResult } from '../../promql/values.js';
import type { TqlParam, TqlQuery } from '../../sql/ast.js';
import { records, type ArrowRows, type Cell, type Output, type OutputColumn } from '../../query/output.js';
import { DatabaseRoutedSource, FIELD_MATCHER, SqlPromSource, type PromTableAccess } from '../promql-source.js';
import type { Session } from '../session.js';
import { matcherValue, selectorsOf, ShapeOf, unwrap, type ResultShape, type SelectorTable } from './tql-columns.js';

/** A database's tables and SELECTs, also as Arrow when the instance offers it (`SqlPromSource` reads samples so). */
export type TqlAccess = PromTableAccess & { arrow?(sql: string, signal?: AbortSignal): Promise<ArrowRows | undefined> };

/** What TQL needs of the instance. */
export interface TqlContext {
  readonly session: Session;
  /** A database's tables and SELECTs as the session's user reads them; undefined when it does not exist. */
  access(database: string): Promise<TqlAccess | undefined>;
  /** An SQL expression (`now() - interval '5m'`) as seconds: since the epoch for a time, the length of an interval. */
  seconds(expr: string): Promise<number>;
}

/** The evaluation parameters in milliseconds. */
interface Range {
  readonly startMs: number;
  readonly endMs: number;
  readonly stepMs: number;
  readonly lookbackMs: number;
}

function syntax(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidSyntax, `Invalid TQL syntax: ${message}`);
}

/** A time: seconds since the epoch (a float) or RFC 3339, as Prometheus reads `start`/`end`; other timestamp text in the session's zone. */
function parseTime(text: string, zone: string): number {
  const t = text.trim();
  if (/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const ms = parseTimestamp(t, 'ms', zone);
  if (ms === undefined) throw syntax(`cannot parse ${JSON.stringify(text)} to a valid timestamp: expected seconds since the epoch or an RFC 3339 timestamp`);
  return Number(ms);
}

const DURATION = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const DURATION_MS = [365 * 86_400_000, 7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000, 1];

/** A step or lookback: seconds (a float) or a Prometheus duration (`5m`, `1h30m`, `500ms`). */
function parseDurationMs(text: string): number {
  const t = text.trim();
  if (/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const m = t === '' ? null : DURATION.exec(t);
  if (m === null) throw syntax(`cannot parse ${JSON.stringify(text)} to a valid duration: expected seconds or a duration like "5m", "1h30m"`);
  let ms = 0;
  for (let i = 0; i < DURATION_MS.length; i++) if (m[i + 1] !== undefined) ms += Number(m[i + 1]) * DURATION_MS[i]!;
  return ms;
}

async function paramMs(p: TqlParam, kind: 'time' | 'duration', ctx: TqlContext): Promise<number> {
  switch (p.kind) {
    case 'number':
      return Math.round(Number(p.text) * 1000);
    case 'string':
      return kind === 'time' ? parseTime(p.value, ctx.session.timezone) : parseDurationMs(p.value);
    case 'sql': {
      const s = await ctx.seconds(p.text);
      if (!Number.isFinite(s)) throw syntax(`Failed to evaluate TQL expression: ${p.text} is not a time or an interval`);
      return Math.round(s * 1000);
    }
  }
}

/** The evaluation range of a TQL statement, checked as Prometheus checks a range query's. */
async function rangeOf(q: TqlQuery, ctx: TqlContext): Promise<Range> {
  const p = q.params;
  if (p === undefined) return { startMs: 0, endMs: 0, stepMs: 300_000, lookbackMs: DEFAULT_LOOKBACK_MS };
  const startMs = await paramMs(p.start, 'time', ctx);
  const endMs = await paramMs(p.end, 'time', ctx);
  const stepMs = await paramMs(p.step, 'duration', ctx);
  const lookbackMs = p.lookback !== undefined ? await paramMs(p.lookback, 'duration', ctx) : DEFAULT_LOOKBACK_MS;
  if (endMs < startMs) throw new PromqlError('bad_data', 'end timestamp must not be before start time');
  if (stepMs <= 0) throw new PromqlError('bad_data', 'zero or negative query resolution step widths are not accepted. Try a positive integer');
  if ((endMs - startMs) / stepMs > MAX_POINTS_PER_SERIES) throw new PromqlError('bad_data', 'exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)');
  if (lookbackMs <= 0) throw new PromqlError('bad_data', 'lookback delta must be positive');
  return { startMs, endMs, stepMs, lookbackMs };
}

/** The PromQL, parsed; its syntax errors are SQL syntax errors (2000), as GreptimeDB answers them. */
function parse(text: string): Expr {
  try {
    return parsePromql(text);
  } catch (err) {
    if (err instanceof PromqlError && err.errorType === 'bad_data') throw new TsdbError(StatusCode.InvalidSyntax, err.message, { cause: err });
    throw err;
  }
}

/** One SQL scan a query ran (or, for EXPLAIN, would run). */
interface Scan {
  readonly database: string;
  readonly sql: string;
  rows: number;
  ms: number;
}

/** Whether a SELECT of the source reads a table (a scan), rather than checking matchers over constants. */
function readsTable(sql: string): boolean {
  return /\bFROM\s+"(?:[^"]|"")+"\s+WHERE\b/.test(sql);
}

/**
 * Records the scans of an access, with their rows and time; `dry` (EXPLAIN): scans are recorded,
 * not run (answered with no rows), so that no sample is read.
 */
function recording(access: TqlAccess, database: string, scans: Scan[], dry: boolean): TqlAccess {
  // A dry Arrow read answers undefined, and the source asks for the same rows again: one scan.
  let dryArrow: string | undefined;
  const run = async <T>(sql: string, read: () => Promise<T>, count: (r: T) => number, empty: T): Promise<T> => {
    if (!readsTable(sql)) return read();
    if (dry && sql === dryArrow) {
      dryArrow = undefined;
      return empty;
    }
    const scan: Scan = { database, sql, rows: 0, ms: 0 };
    scans.push(scan);
    if (dry) return empty;
    const t0 = performance.now();
    const out = await read();
    scan.ms = performance.now() - t0;
    scan.rows = count(out);
    return out;
  };
  const arrow = access.arrow;
  return {
    tables: (names) => access.tables(names),
    rows: (sql, signal) => run(sql, () => access.rows(sql, signal), (r) => r.length, [] as ReadonlyArray<readonly Cell[]>),
    ...(arrow !== undefined && {
      arrow: async (sql: string, signal?: AbortSignal) => {
        const out = await run<ArrowRows | undefined>(sql, () => arrow.call(access, sql, signal), (r) => (r === undefined ? 0 : r.batches.reduce((n, b) => n + b.numRows, 0)), undefined);
        if (dry && readsTable(sql)) dryArrow = sql;
        return out;
      },
    }),
  };
}

/** The tables the selectors of `expr` read (those that exist), for naming the result's columns. */
async function selectorTables(expr: Expr, sources: DatabaseRoutedSource, ctx: TqlContext): Promise<Map<VectorSelector, SelectorTable>> {
  const out = new Map<VectorSelector, SelectorTable>();
  const wanted = new Map<string, Set<string>>();
  const named: Array<{ sel: VectorSelector; database: string; name: string }> = [];
  for (const sel of selectorsOf(expr)) {
    const name = sel.name ?? matcherValue(sel, '__name__');
    if (name === undefined) continue;
    const { database } = sources.route(sel.matchers);
    named.push({ sel, database, name });
    let set = wanted.get(database);
    if (set === undefined) wanted.set(database, (set = new Set()));
    set.add(name);
  }
  const found = new Map<string, Map<string, SelectorTable['summary']>>();
  for (const [database, names] of wanted) {
    const access = await ctx.access(database);
    const tables = access === undefined ? [] : await access.tables([...names]);
    found.set(database, new Map(tables.map((t) => [t.name, t])));
  }
  for (const { sel, database, name } of named) {
    const summary = found.get(database)?.get(name);
    out.set(sel, { name, database, ...(summary !== undefined && { summary }) });
  }
  return out;
}

/** The answer as rows of the shape's columns. */
function tableOf(result: QueryResult, shape: ResultShape, range: Range, stringValue: string | undefined, signal: AbortSignal | undefined): { columns: OutputColumn[]; rows: Cell[][] } {
  // The label columns: the known ones, then any other label the answer has (label_replace…), sorted.
  const tags = [...shape.tags];
  const series: Array<{ labels: Labels; t: ArrayLike<number>; v: ArrayLike<number> }> = [];
  if (result.type === 'vector') for (const s of result.vector) series.push({ labels: s.labels, t: [s.t], v: [s.v] });
  else if (result.type === 'matrix') for (const s of result.matrix) series.push(s);
  else if (result.type === 'scalar') series.push({ labels: [], t: [result.t], v: [result.v] });
  const extra = new Set<string>();
  for (const s of series) for (const l of s.labels) if (l.name !== '__name__' && !tags.includes(l.name)) extra.add(l.name);
  tags.push(...[...extra].sort());
  series.sort((a, b) => compareLabels(a.labels, b.labels));

  const empty = series.length === 0 && stringValue === undefined;
  const time: OutputColumn = { name: shape.timeName, data_type: 'TimestampMillisecond' };
  const value: OutputColumn = { name: shape.valueName, data_type: stringValue !== undefined ? 'String' : 'Float64' };
  const tagCols: OutputColumn[] = tags.map((name) => ({ name, data_type: 'String' }));
  // Each column: where its cell comes from (0 time, 1 value, 2 + i tag i).
  let order: Array<{ col: OutputColumn; src: number }>;
  const tagSrc = tagCols.map((col, i) => ({ col, src: 2 + i }));
  switch (shape.layout) {
    case 'table': {
      const byName = new Map<string, { col: OutputColumn; src: number }>([[time.name, { col: time, src: 0 }], [value.name, { col: value, src: 1 }], ...tagSrc.map((t) => [t.col.name, t] as const)]);
      order = (shape.order ?? []).map((n) => byName.get(n)!).filter((x) => x !== undefined);
      for (const t of tagSrc) if (!order.includes(t)) order.push(t);
      if (!order.some((o) => o.src === 0)) order.unshift({ col: time, src: 0 });
      if (!order.some((o) => o.src === 1)) order.splice(1, 0, { col: value, src: 1 });
      break;
    }
    case 'field':
      order = [{ col: value, src: 1 }, ...tagSrc, { col: time, src: 0 }];
      break;
    case 'tags-time-value':
      order = [...tagSrc, { col: time, src: 0 }, { col: value, src: 1 }];
      break;
    default:
      order = [{ col: time, src: 0 }, { col: value, src: 1 }, ...tagSrc];
  }
  if (empty && shape.layout === 'plain') order = [{ col: { name: 'time', data_type: 'TimestampMillisecond' }, src: 0 }, { col: { name: 'value', data_type: 'Float64' }, src: 1 }];
  const rows: Cell[][] = [];
  const srcs = order.map((o) => o.src);
  if (stringValue !== undefined) {
    for (let t = range.startMs; t <= range.endMs; t += range.stepMs) rows.push(srcs.map((src) => (src === 0 ? t : src === 1 ? stringValue : null)));
  }
  const width = srcs.length;
  const timeAt = srcs.indexOf(0);
  const valueAt = srcs.indexOf(1);
  for (const s of series) {
    signal?.throwIfAborted();
    // The row of the series' labels, copied for each sample with its time and value written in.
    const template: Cell[] = new Array<Cell>(width);
    for (let c = 0; c < width; c++) {
      const src = srcs[c]!;
      if (src < 2) continue;
      const v = getLabel(s.labels, tags[src - 2]!);
      template[c] = v === '' ? null : v;
    }
    const n = s.t.length;
    for (let i = 0; i < n; i++) {
      const row = template.slice();
      row[timeAt] = s.t[i]!;
      row[valueAt] = s.v[i]!;
      rows.push(row);
    }
  }
  return { columns: order.map((o) => o.col), rows };
}

/** Evaluates a TQL query: its table, and what EXPLAIN / ANALYZE show of it. */
async function evaluate(q: TqlQuery, ctx: TqlContext, dry: boolean): Promise<{ expr: Expr; range: Range; table: { columns: OutputColumn[]; rows: Cell[][] }; scans: Scan[]; evalMs: number }> {
  const expr = parse(q.query);
  const range = await rangeOf(q, ctx);
  const scans: Scan[] = [];
  // `{__database__="db"}` / `{__schema__="db"}` on a selector read another database, as the same user.
  const sources = new DatabaseRoutedSource(ctx.session.database, async (database) => {
    const a = await ctx.access(database);
    return a === undefined ? undefined : new SqlPromSource(recording(a, database, scans, dry));
  });
  const tables = await selectorTables(expr, sources, ctx);
  for (const sel of selectorsOf(expr)) {
    const field = sel.matchers.filter((m) => m.name === FIELD_MATCHER);
    if (field.length > 0 && field.every((m) => m.type === '=') && tables.get(sel)?.summary !== undefined) {
      const t = tables.get(sel)!.summary!;
      for (const m of field) {
        if (!t.columns.some((c) => c.name === m.value)) throw new TsdbError(StatusCode.InvalidArguments, `Cannot find column ${m.value}`);
      }
    }
  }
  // A scalar has no labels and no table: `time | value`.
  const shape = typeOf(expr) === 'scalar' ? { timeName: 'time', valueName: q.alias ?? 'value', tags: [], layout: 'plain' as const } : new ShapeOf(tables).shape(expr, q.alias);
  const signal = ctx.session.signal;
  const t0 = performance.now();
  const top = unwrap(expr);
  let result: QueryResult;
  let stringValue: string | undefined;
  if (top.kind === 'string') {
    stringValue = top.value;
    result = { type: 'matrix', matrix: [] };
  } else {
    const instant = range.startMs === range.endMs;
    result = await evaluateQuery(expr, sources, {
      startMs: range.startMs,
      endMs: range.endMs,
      stepMs: instant ? 0 : range.stepMs,
      lookbackMs: range.lookbackMs,
      maxSamples: DEFAULT_MAX_SAMPLES,
      ...(signal !== undefined && { signal }),
    });
  }
  const evalMs = performance.now() - t0;
  // A deadline or KILL is a timer: let it fire before the (synchronous) table is built (a timer of
  // our own, not setImmediate, which may run before the loop's timers).
  await new Promise<void>((resolve) => setTimeout(resolve, 0));
  signal?.throwIfAborted();
  return { expr, range, table: tableOf(result, shape, range, stringValue, signal), scans, evalMs };
}

/** The rows of a TQL EVAL (a TQL CTE's body): columns and cells. */
export async function tqlTable(q: TqlQuery, ctx: TqlContext): Promise<{ columns: OutputColumn[]; rows: Cell[][] }> {
  return (await evaluate(q, ctx, false)).table;
}

/**
 * A TQL table as one Arrow record batch, for a TQL CTE's relation (`tsdb_arrow_scan`): times as
 * Timestamp(ms), values as Float64 (NaN and infinities as they are), labels dictionary-encoded
 * (a series' labels repeat on each of its rows).
 */
export function tqlArrow(columns: readonly OutputColumn[], rows: ReadonlyArray<readonly Cell[]>): { schema: Schema; batch: RecordBatch } {
  const n = rows.length;
  const fields: Field[] = [];
  const children: Data[] = [];
  columns.forEach((c, j) => {
    if (c.data_type === 'TimestampMillisecond') {
      const data = new BigInt64Array(n);
      for (let i = 0; i < n; i++) data[i] = BigInt(rows[i]![j] as number);
      fields.push(new Field(c.name, new TimestampMillisecond(), false));
      children.push(makeData({ type: new TimestampMillisecond(), length: n, data }));
    } else if (c.data_type === 'Float64') {
      const data = new Float64Array(n);
      for (let i = 0; i < n; i++) data[i] = rows[i]![j] as number;
      fields.push(new Field(c.name, new Float64(), false));
      children.push(makeData({ type: new Float64(), length: n, data }));
    } else {
      const ids = new Map<string, number>();
      const values: string[] = [];
      const indices = new Int32Array(n);
      const valid = new Uint8Array((n + 7) >> 3);
      let nulls = 0;
      for (let i = 0; i < n; i++) {
        const v = rows[i]![j];
        if (v === null || v === undefined) {
          nulls++;
          continue;
        }
        const text = String(v);
        let id = ids.get(text);
        if (id === undefined) {
          id = values.length;
          ids.set(text, id);
          values.push(text);
        }
        indices[i] = id;
        valid[i >> 3]! |= 1 << (i & 7);
      }
      const type = new Dictionary(new Utf8(), new Int32());
      fields.push(new Field(c.name, type, true));
      children.push(makeData({ type, length: n, nullCount: nulls, ...(nulls > 0 && { nullBitmap: valid }), data: indices, dictionary: vectorFromArray(values, new Utf8()) }));
    }
  });
  const schema = new Schema(fields);
  return { schema, batch: new RecordBatch(schema, makeData({ type: new Struct(fields), length: n, nullCount: 0, children })) };
}

/** Runs a TQL statement. */
export async function runTql(q: TqlQuery, ctx: TqlContext): Promise<Output> {
  if (q.mode === 'eval') {
    const { columns, rows } = await tqlTable(q, ctx);
    return records(columns, rows);
  }
  const analyze = q.mode === 'analyze';
  const run = await evaluate(q, ctx, !analyze);
  const header = `PromQL: ${q.query}${q.alias !== undefined ? ` AS ${q.alias}` : ''}`;
  const params = `range=[${run.range.startMs}..${run.range.endMs}], interval=[${run.range.stepMs}], lookback=[${run.range.lookbackMs}]`;
  const tree = planTree(run.expr, 1).join('\n');
  const logical = `${header}\n  Evaluate: ${params}${tree === '' ? '' : `\n${tree}`}`;
  const scanText = (s: Scan) => `Scan: ${s.database === ctx.session.database ? '' : `database=${s.database}, `}${s.sql}`;
  if (!analyze) {
    const physical = run.scans.length === 0 ? 'No scan' : run.scans.map(scanText).join('\n');
    const rows: Cell[][] = [];
    if (q.verbose) rows.push(['initial_logical_plan', `${header}\n  Parameters: start=${fmt(q.params?.start)}, end=${fmt(q.params?.end)}, step=${fmt(q.params?.step)}, lookback=${fmt(q.params?.lookback)}`]);
    rows.push(['logical_plan', logical], ['physical_plan', physical]);
    if (q.verbose) rows.push(['output_columns', run.table.columns.map((c) => `${c.name} ${c.data_type}`).join(', ')]);
    return records([{ name: 'plan_type', data_type: 'String' }, { name: 'plan', data_type: 'String' }], rows);
  }
  const ms = (x: number) => `${x.toFixed(3)}ms`;
  const rows: Cell[][] = [[0, 0, `${logical} metrics=[output_rows: ${run.table.rows.length}, elapsed: ${ms(run.evalMs)}]`]];
  run.scans.forEach((s, i) => rows.push([1, i, `${scanText(s)} metrics=[output_rows: ${s.rows}, elapsed: ${ms(s.ms)}]`]));
  if (q.verbose) rows.push([2, 0, `Output: ${run.table.columns.map((c) => `${c.name} ${c.data_type}`).join(', ')}`]);
  const last = rows[rows.length - 1]!;
  last[2] = `${String(last[2])}\n\nTotal rows: ${run.table.rows.length}`;
  return records([{ name: 'stage', data_type: 'UInt32' }, { name: 'node', data_type: 'UInt32' }, { name: 'plan', data_type: 'String' }], rows);
}

function fmt(p: TqlParam | undefined): string {
  if (p === undefined) return 'default';
  return p.kind === 'string' ? `'${p.value}'` : p.text;
}

/** The expression as an indented tree, one node a line. */
function planTree(e: Expr, depth: number): string[] {
  const pad = '  '.repeat(depth + 1);
  const sel = (s: VectorSelector) => `${s.name ?? ''}{${s.matchers.filter((m) => !(m.name === '__name__' && m.type === '=' && m.value === s.name)).map((m) => `${m.name}${m.type}${JSON.stringify(m.value)}`).join(', ')}}`;
  const at = (a: VectorSelector['at']) => (a === undefined ? '' : a.kind === 'time' ? `, at=[${a.ms}]` : `, at=[${a.kind}()]`);
  switch (e.kind) {
    case 'number':
      return [`${pad}Literal: ${e.value}`];
    case 'string':
      return [`${pad}Literal: ${JSON.stringify(e.value)}`];
    case 'vector':
      return [`${pad}VectorSelector: ${sel(e)}, offset=[${e.offsetMs}]${at(e.at)}`];
    case 'matrix':
      return [`${pad}MatrixSelector: range=[${e.rangeMs}]`, ...planTree(e.selector, depth + 1)];
    case 'subquery':
      return [`${pad}Subquery: range=[${e.rangeMs}], step=[${e.stepMs}], offset=[${e.offsetMs}]${at(e.at)}`, ...planTree(e.expr, depth + 1)];
    case 'call':
      return [`${pad}Function: ${e.func}`, ...e.args.flatMap((a) => planTree(a, depth + 1))];
    case 'aggregate':
      return [
        `${pad}Aggregate: ${e.op}${e.grouping.length > 0 || e.without ? ` ${e.without ? 'without' : 'by'} (${e.grouping.join(', ')})` : ''}`,
        ...(e.param !== undefined ? planTree(e.param, depth + 1) : []),
        ...planTree(e.expr, depth + 1),
      ];
    case 'binary': {
      const m = e.matching;
      const matching = m === undefined ? '' : `, ${m.on ? 'on' : 'ignoring'}(${m.labels.join(', ')}), ${m.card}${m.include.length > 0 ? ` (${m.include.join(', ')})` : ''}`;
      return [`${pad}Binary: ${e.op}${e.returnBool ? ' bool' : ''}${matching}`, ...planTree(e.lhs, depth + 1), ...planTree(e.rhs, depth + 1)];
    }
    case 'unary':
      return [`${pad}Unary: ${e.op}`, ...planTree(e.expr, depth + 1)];
    case 'paren':
      return planTree(e.expr, depth);
  }
}
