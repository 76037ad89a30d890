/**
 * PromQL's view of a database (`promql/source.ts` over SQL): a table is a metric (`__name__`),
 * its tags are labels, its time index the sample time and a numeric field the value; label
 * matchers and the time range become the WHERE of one scan per table, so the region scan reads
 * only the series and time asked for. Used by the Prometheus HTTP API, `/v1/promql`, the gRPC
 * PrometheusGateway and TQL.
 *
 * Which tables are metrics: every table with a time index and at least one numeric field
 * (integers, floats, decimals), except the physical tables of the metric engine (their rows are
 * read through their logical tables). The value of a sample is, as in GreptimeDB:
 * - `tsdb_value` when the table has it (the tables Prometheus remote write creates);
 * - else the first numeric field in the table's column order (GreptimeDB answers the first field
 *   column of its plan).
 * A `__field__` matcher (GreptimeDB's) first narrows the numeric fields a table offers (`=`, `!=`,
 * `=~`, `!~` on the field's name); a table left with none has no series. `__field__` is not a
 * label. Rows whose value is NULL are not samples; non-numeric fields are never samples.
 *
 * Labels: tags as text (non-string tags cast to VARCHAR); NULL and '' are the absent label, as in
 * Prometheus. A matcher on a label a table lacks is decided without scanning (absent = ""). Regular
 * expressions are RE2: DuckDB's `regexp_full_match` in the scan, the parser's RE2-faithful RegExp
 * (`promql/regex.ts`) for the decisions on constants taken here (table and field names, "").
 *
 * Samples are read through the Arrow path when the access offers it: DuckDB orders the rows by a
 * key of the series (a hash of its labels, or a logical table's `__tsid`), then time, and the
 * series are cut out of the Float64 columns in bulk; a key is never trusted alone (labels are
 * checked per key, see `readBranches`). All selectors of a query are one SQL statement
 * (`selectAll`: a UNION ALL of scans, each with its own WHERE), and logical tables of one physical
 * table with one WHERE are one scan of it (`__table_id IN (…)`). Each scan is LIMITed to the
 * samples its requests may hold (`maxSamples`), so a query that would hold more fails before it
 * does. Stale markers (NaN 0x7ff0000000000002) arrive as stored, bit for bit.
 */
import type { RecordBatch } from 'apache-arrow';
import type { ArrowRows, Cell } from '../query/output.js';
import { quoteIdent, quoteLiteral } from '../common/sql-quote.js';
import { METRIC_NAME, type LabelMatcher } from '../promql/ast.js';
import { PromqlError, TOO_MANY_SAMPLES } from '../promql/errors.js';
import { compileMatcherRegex, matcherMatches } from '../promql/regex.js';
import { compareLabels, labelsFrom, labelsKey, type Labels } from '../promql/labels.js';
import type { MetadataRequest, PromSource, SelectRequest, SeriesData } from '../promql/source.js';
import { TABLE_ID_COLUMN, TSID_COLUMN } from './metric-engine.js';
import type { TableSummary } from './table-summary.js';

/** What the source needs of the database it reads: its tables and a way to run a SELECT. */
export interface PromTableAccess {
  /** The tables of the database (only `names` when given). */
  tables(names?: readonly string[]): Promise<TableSummary[]>;
  /** The rows of one SELECT over the database. */
  rows(sql: string, signal?: AbortSignal): Promise<ReadonlyArray<readonly Cell[]>>;
  /**
   * The result of one SELECT as Arrow record batches (`Output.arrow`), undefined when the result
   * has a type the Arrow path lacks; optional: without it rows are read through `rows`.
   */
  arrow?(sql: string, signal?: AbortSignal): Promise<ArrowRows | undefined>;
}

/** GreptimeDB's matcher that picks the field column(s) of a table. */
export const FIELD_MATCHER = '__field__';
/** The value column of the tables Prometheus remote write creates. */
export const PROM_VALUE_COLUMN = 'tsdb_value';


const NUMERIC_TYPE = /^(?:U?Int(?:8|16|32|64)|Float(?:32|64)|Decimal\b)/;
const TIME_UNIT_SCALE: Record<string, { readonly perMs: bigint; readonly msPer: bigint }> = {
  TimestampSecond: { perMs: 0n, msPer: 1000n },
  TimestampMillisecond: { perMs: 1n, msPer: 1n },
  TimestampMicrosecond: { perMs: 1000n, msPer: 1n },
  TimestampNanosecond: { perMs: 1_000_000n, msPer: 1n },
};

/** A table as a metric: its labels (tags), time index and the numeric fields that may be its value. */
interface Metric {
  readonly name: string;
  readonly tags: ReadonlyArray<{ readonly name: string; readonly string: boolean }>;
  readonly tagNames: ReadonlySet<string>;
  readonly time: string;
  readonly timeType: string;
  readonly fields: readonly string[];
  /** A logical table of the metric engine: its physical table and `__table_id`. */
  readonly logical?: { readonly physicalTable: string; readonly tableId: number };
}

/** The numeric fields of a table: the columns that can be a metric's value. */
export function numericFields(t: TableSummary): string[] {
  return t.columns.filter((c) => c.semantic === 'field' && NUMERIC_TYPE.test(c.type)).map((c) => c.name);
}

/** The value column of a table (`tsdb_value` when it has one, else its first numeric field). */
export function defaultValueField(fields: readonly string[]): string | undefined {
  return fields.includes(PROM_VALUE_COLUMN) ? PROM_VALUE_COLUMN : fields[0];
}

/** The tags of a table that are labels (a tag named like a special label cannot be one: `__name__` is the table's name). */
export function labelTags(t: TableSummary): TableSummary['columns'] {
  return t.columns.filter((c) => c.semantic === 'tag' && c.name !== METRIC_NAME && c.name !== FIELD_MATCHER);
}

function metricOf(t: TableSummary): Metric | undefined {
  if (t.physical) return undefined;
  const ts = t.columns.find((c) => c.semantic === 'timestamp');
  if (ts === undefined || TIME_UNIT_SCALE[ts.type] === undefined) return undefined;
  const fields = numericFields(t);
  if (fields.length === 0) return undefined;
  const tags = labelTags(t).map((c) => ({ name: c.name, string: c.type === 'String' }));
  return { name: t.name, tags, tagNames: new Set(tags.map((c) => c.name)), time: ts.name, timeType: ts.type, fields, ...(t.logical !== undefined && { logical: t.logical }) };
}

const isRegex = (m: LabelMatcher) => m.type === '=~' || m.type === '!~';

/**
 * A matcher's verdict on a constant (a table or field name, or "" for a label a table lacks):
 * the parser's RE2-faithful RegExp (`promql/regex.ts`, linear time on the patterns that could
 * backtrack), so no query is needed for it; an invalid pattern is bad_data.
 */
const matches = matcherMatches;

/** One table to read for one matcher set: its value column and WHERE terms (the time range's, then the set's). */
interface Plan {
  readonly metric: Metric;
  readonly value: string;
  readonly time: readonly string[];
  readonly filters: readonly string[];
}

/** One table to read for several matcher sets (metadata): the time range AND (set 1 OR set 2 …). */
interface MergedPlan {
  readonly metric: Metric;
  readonly where: string;
}

/** The plans of every set, one per table (`match[]` may name thousands of sets: one scan per table, not per set). */
function mergePlans(sets: readonly Plan[][]): MergedPlan[] {
  const byTable = new Map<string, { metric: Metric; time: readonly string[]; filters: Set<string> }>();
  for (const p of sets.flat()) {
    let g = byTable.get(p.metric.name);
    if (g === undefined) byTable.set(p.metric.name, (g = { metric: p.metric, time: p.time, filters: new Set() }));
    g.filters.add(p.filters.join(' AND '));
  }
  return [...byTable.values()].map((g) => {
    const alternatives = [...g.filters];
    const any = alternatives.length === 1 ? alternatives[0]! : alternatives.map((f) => `(${f})`).join(' OR ');
    return { metric: g.metric, where: [...g.time, alternatives.length === 1 ? any : `(${any})`].join(' AND ') };
  });
}

/** The most tables one statement of `selectAll` reads (logical tables of one physical table count one each). */
const MAX_BRANCHES = 64;

/** The range from which readBranches reads labels apart from samples (measured: a loss at 1 h, a gain at 6 h). */
const TWO_SCAN_MIN_SPAN_MS = 2 * 3_600_000;

const whereOf = (p: Plan) => [...p.time, ...p.filters].join(' AND ');

/** A label's column as text. */
function labelExpr(tag: { name: string; string: boolean }): string {
  return tag.string ? quoteIdent(tag.name) : `CAST(${quoteIdent(tag.name)} AS VARCHAR)`;
}

/**
 * The WHERE term of a matcher on a tag the table has; `emptyMatches`: whether the matcher holds
 * for "" (NULL is the absent label ""). The plain forms `tag = 'v'` and `regexp_full_match(tag,
 * 'p')` (which the region scan narrows on) are kept whenever "" does not match.
 */
function tagCondition(m: LabelMatcher, col: string, emptyMatches: boolean): string {
  const v = quoteLiteral(m.value);
  switch (m.type) {
    case '=':
      return m.value === '' ? `(${col} IS NULL OR ${col} = '')` : `${col} = ${v}`;
    case '!=':
      return m.value === '' ? `${col} <> ''` : `(${col} IS NULL OR ${col} <> ${v})`;
    case '=~':
      return emptyMatches ? `(${col} IS NULL OR regexp_full_match(${col}, ${v}))` : `regexp_full_match(${col}, ${v})`;
    case '!~':
      return emptyMatches ? `(${col} IS NULL OR NOT regexp_full_match(${col}, ${v}))` : `NOT regexp_full_match(${col}, ${v})`;
  }
}

/** The time index within [startMs, endMs] as integer literals of the column's unit (what the scan narrows on). */
function timeConditions(m: Metric, startMs: number, endMs: number): string[] {
  const scale = TIME_UNIT_SCALE[m.timeType]!;
  const col = quoteIdent(m.time);
  const out: string[] = [];
  const lo = Math.ceil(startMs);
  const hi = Math.floor(endMs);
  if (Number.isFinite(lo) && Math.abs(lo) < 2 ** 62) {
    const b = BigInt(lo);
    out.push(`${col} >= ${scale.perMs === 0n ? ceilDiv(b, scale.msPer) : b * scale.perMs}`);
  }
  if (Number.isFinite(hi) && Math.abs(hi) < 2 ** 62) {
    const b = BigInt(hi);
    out.push(`${col} <= ${scale.perMs === 0n ? floorDiv(b, scale.msPer) : b * scale.perMs}`);
  }
  return out;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return -floorDiv(-a, b);
}

/** Runs `fn` over `items` with at most `n` at a time, keeping their order. */
async function mapLimit<T, R>(items: readonly T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

/** Metadata queries on several tables run this many at a time. */
const METADATA_CONCURRENCY = 4;

/** One table read for one request of a batch (`selectAll`): a branch of its UNION ALL. */
interface Branch {
  readonly plan: Plan;
  /** The request's index. */
  readonly req: number;
  /** The most samples the request may hold. */
  readonly room: number;
}

/**
 * One statement's part of a batch: one table scan serving `members` (branch indexes). Several
 * logical tables of one physical table, read with the same WHERE, are one scan of the physical
 * table (`__table_id IN (…)`) instead of one per table.
 */
interface Scan {
  readonly members: readonly number[];
  /** The physical table, when the members are logical tables read through it. */
  readonly physical?: string;
  /** The most rows it returns: the sum of its members' rooms (+1 each). */
  readonly limit: number;
}

/** The scans of a batch's branches: logical tables of one physical table with one WHERE and one tag list together. */
function scansOf(branches: readonly Branch[]): Scan[] {
  const groups = new Map<string, number[][]>();
  const scans: Scan[] = [];
  branches.forEach((b, i) => {
    const m = b.plan.metric;
    if (m.logical === undefined) {
      scans.push({ members: [i], limit: Math.max(0, b.room) + 1 });
      return;
    }
    const key = JSON.stringify([m.logical.physicalTable, m.time, b.plan.value, whereOf(b.plan), m.tags]);
    let list = groups.get(key);
    if (list === undefined) groups.set(key, (list = []));
    // A table twice (two selectors with one WHERE on it): another scan, so that a row has one branch.
    let g = list.find((members) => members.every((j) => branches[j]!.plan.metric.logical!.tableId !== m.logical!.tableId));
    if (g === undefined) list.push((g = []));
    g.push(i);
  });
  for (const list of groups.values()) {
    for (const members of list) {
      const limit = members.reduce((n, j) => n + Math.max(0, branches[j]!.room) + 1, 0);
      const physical = branches[members[0]!]!.plan.metric.logical!.physicalTable;
      scans.push({ members, physical, limit });
    }
  }
  return scans;
}

/**
 * Fails when a branch's rows (column 0: its index) are more than its room, or a scan returned its
 * LIMIT (then some member had more than its room, and the LIMIT may have hidden which).
 */
function checkRoom(branches: readonly Branch[], scans: readonly Scan[], batches: readonly RecordBatch[]): void {
  const counts = new Float64Array(branches.length);
  for (const b of batches) {
    const ps = b.getChildAt(0)!.toArray() as Int32Array;
    for (let i = 0; i < b.numRows; i++) counts[ps[i]!]! += 1;
  }
  checkCounts(branches, scans, counts);
}

function checkCounts(branches: readonly Branch[], scans: readonly Scan[], counts: Float64Array): void {
  branches.forEach((b, i) => {
    if (counts[i]! > b.room) throw new PromqlError('execution', TOO_MANY_SAMPLES);
  });
  for (const s of scans) {
    if (s.members.reduce((n, j) => n + counts[j]!, 0) >= s.limit) throw new PromqlError('execution', TOO_MANY_SAMPLES);
  }
}

/**
 * The series of Arrow batches ordered by (branch, key, …, t), column 0 the branch (INTEGER), 1 the
 * key (UBIGINT), `tCol` and `tCol + 1` the time and value (DOUBLE): a series is a run of one
 * (branch, key), cut out of the Float64 columns in bulk (runs may span batches: segments, then one
 * copy per series). `labelsOf` gives a run's labels from its first and last rows, or undefined when
 * they cannot be trusted (the whole read is then undefined).
 */
function cutSeries(
  count: number, batches: readonly RecordBatch[], tCol: number,
  labelsOf: (p: number, batch: RecordBatch, first: number, lastBatch: RecordBatch, last: number) => Labels | undefined,
): SeriesData[][] | undefined {
  const out: SeriesData[][] = Array.from({ length: count }, () => []);
  let current: { p: number; batch: RecordBatch; first: number; segments: Array<[Float64Array, Float64Array]>; n: number } | undefined;
  let lastBatch: RecordBatch | undefined;
  let last = -1;
  let prevP = -1;
  let prevLo = -1;
  let prevHi = -1;
  const finish = (): boolean => {
    if (current === undefined) return true;
    const labels = labelsOf(current.p, current.batch, current.first, lastBatch!, last);
    if (labels === undefined) return false;
    const t = new Float64Array(current.n);
    const v = new Float64Array(current.n);
    let at = 0;
    for (const [st, sv] of current.segments) {
      t.set(st, at);
      v.set(sv, at);
      at += st.length;
    }
    out[current.p]!.push({ labels, t, v });
    return true;
  };
  for (const b of batches) {
    const n = b.numRows;
    if (n === 0) continue;
    const ps = b.getChildAt(0)!.toArray() as Int32Array;
    const keys = b.getChildAt(1)!.toArray() as BigUint64Array;
    // The key's two 32-bit words: reading a BigUint64Array element allocates a bigint.
    const words = new Uint32Array(keys.buffer, keys.byteOffset, n * 2);
    const ts = b.getChildAt(tCol)!.toArray() as Float64Array;
    const vs = b.getChildAt(tCol + 1)!.toArray() as Float64Array;
    let from = 0;
    for (let i = 0; i <= n; i++) {
      const boundary = i === n || ps[i] !== prevP || words[2 * i] !== prevLo || words[2 * i + 1] !== prevHi;
      if (!boundary) continue;
      if (i > from && current !== undefined) {
        current.segments.push([ts.subarray(from, i), vs.subarray(from, i)]);
        current.n += i - from;
      }
      if (i === n) break;
      if (i > 0) {
        lastBatch = b;
        last = i - 1;
      }
      if (!finish()) return undefined;
      current = { p: ps[i]!, batch: b, first: i, segments: [], n: 0 };
      prevP = ps[i]!;
      prevLo = words[2 * i]!;
      prevHi = words[2 * i + 1]!;
      from = i;
    }
    lastBatch = b;
    last = n - 1;
  }
  return finish() ? out : undefined;
}

export class SqlPromSource implements PromSource {
  constructor(private readonly access: PromTableAccess) {}

  /** The metrics the `__name__` matchers of every set may select (one lookup when a set names one). */
  private async metrics(sets: readonly (readonly LabelMatcher[])[]): Promise<Metric[]> {
    const exact = new Set<string>();
    let all = sets.length === 0;
    for (const set of sets) {
      const eq = set.find((m) => m.name === METRIC_NAME && m.type === '=');
      if (eq === undefined) all = true;
      else exact.add(eq.value);
    }
    const tables = await this.access.tables(all ? undefined : [...exact]);
    return tables.map(metricOf).filter((m): m is Metric => m !== undefined);
  }

  /** What to read for each matcher set (sets in order), deciding what can be decided without a scan. */
  private async plan(sets: readonly (readonly LabelMatcher[])[], startMs: number, endMs: number, signal?: AbortSignal): Promise<Plan[][]> {
    const metrics = await this.metrics(sets);
    // Patterns are checked before anything is read.
    for (const set of sets) for (const m of set) if (isRegex(m)) compileMatcherRegex(m.value);
    return sets.map((set) => {
      const plans: Plan[] = [];
      for (const t of metrics) {
        if (!set.every((m) => m.name !== METRIC_NAME || matches(m, t.name))) continue;
        const fields = t.fields.filter((f) => set.every((m) => m.name !== FIELD_MATCHER || matches(m, f)));
        if (fields.length === 0) continue;
        const value = defaultValueField(fields)!;
        const filters = [`${quoteIdent(value)} IS NOT NULL`];
        let possible = true;
        for (const m of set) {
          if (m.name === METRIC_NAME || m.name === FIELD_MATCHER) continue;
          const tag = t.tags.find((c) => c.name === m.name);
          const emptyMatches = matches(m, '');
          if (tag === undefined) {
            // Absent on every row: the matcher holds everywhere or nowhere.
            if (!emptyMatches) possible = false;
            continue;
          }
          filters.push(tagCondition(m, labelExpr(tag), emptyMatches));
        }
        if (possible) plans.push({ metric: t, value, time: timeConditions(t, startMs, endMs), filters });
      }
      return plans;
    });
  }

  async select(req: SelectRequest): Promise<SeriesData[]> {
    return (await this.selectAll([req]))[0]!;
  }

  /**
   * Every request's series in one SQL statement (two over long ranges): each table a request reads
   * is one branch of a UNION ALL, tagged with its index, so a query's selectors pay one statement's
   * fixed cost (parse, plan, limiter slot) instead of one per table. Each branch keeps its own
   * WHERE, so every table's scan is narrowed as when read alone.
   */
  async selectAll(reqs: readonly SelectRequest[]): Promise<SeriesData[][]> {
    const signal = reqs.find((r) => r.signal !== undefined)?.signal;
    const planned = await Promise.all(reqs.map(async (r) => (await this.plan([r.matchers], r.startMs, r.endMs, r.signal))[0]!));
    const branches: Branch[] = [];
    planned.forEach((plans, req) => {
      for (const plan of plans) branches.push({ plan, req, room: reqs[req]!.maxSamples });
    });
    const out: SeriesData[][] = reqs.map(() => []);
    if (branches.length === 0) return out;
    signal?.throwIfAborted();
    const spanMs = Math.max(...branches.map((b) => reqs[b.req]!.endMs - reqs[b.req]!.startMs));
    // Statements of at most MAX_BRANCHES tables: a selector over every table of a large database
    // must not become one statement of thousands of scans.
    const perBranch: SeriesData[][] = [];
    for (let i = 0; i < branches.length; i += MAX_BRANCHES) {
      signal?.throwIfAborted();
      perBranch.push(...(await this.readBranches(branches.slice(i, i + MAX_BRANCHES), spanMs, signal)));
    }
    const held = reqs.map(() => 0);
    perBranch.forEach((series, i) => {
      const b = branches[i]!;
      for (const s of series) held[b.req]! += s.t.length;
      if (held[b.req]! > b.room) throw new PromqlError('execution', TOO_MANY_SAMPLES);
      out[b.req]!.push(...series);
    });
    return out.map((series) => series.sort((a, b) => compareLabels(a.labels, b.labels)));
  }

  /** The series of every branch (in branch order); a branch with more than its room fails. */
  private async readBranches(branches: readonly Branch[], spanMs: number, signal?: AbortSignal): Promise<SeriesData[][]> {
    const width = Math.max(...branches.map((b) => b.plan.metric.tags.length));
    const scans = scansOf(branches);
    const sel = (scan: Scan, withLabels: boolean, samples: boolean, tsid = false) => {
      const first = branches[scan.members[0]!]!;
      const { metric } = first.plan;
      const labelCols = metric.tags.map((c) => `coalesce(${labelExpr(c)}, '')`);
      // A hash of the labels orders each series' rows together (cheaper to sort than the texts); a
      // logical table's rows have one already, `__tsid`, whose reading skips the label texts (from a
      // memtable, ten label columns cost ~6× the key column alone).
      const key = tsid && metric.logical !== undefined ? quoteIdent(TSID_COLUMN) : labelCols.length === 0 ? 'CAST(0 AS UBIGINT)' : `hash(${labelCols.join(', ')})`;
      const tableId = quoteIdent(TABLE_ID_COLUMN);
      const p = scan.physical === undefined
        ? `CAST(${scan.members[0]!} AS INTEGER)`
        : `CAST(CASE ${tableId} ${scan.members.map((j) => `WHEN ${branches[j]!.plan.metric.logical!.tableId} THEN ${j}`).join(' ')} END AS INTEGER)`;
      const cols = [`${p} AS p`, `${key} AS k`];
      if (withLabels) for (let c = 0; c < width; c++) cols.push(`${labelCols[c] ?? "''"} AS l${c}`);
      if (samples) cols.push(`CAST(epoch_ms(${quoteIdent(metric.time)}) AS DOUBLE) AS t`, `CAST(${quoteIdent(first.plan.value)} AS DOUBLE) AS v`);
      const where = scan.physical === undefined
        ? whereOf(first.plan)
        : `${tableId} IN (${scan.members.map((j) => branches[j]!.plan.metric.logical!.tableId).join(', ')}) AND ${whereOf(first.plan)}`;
      const limit = samples ? ` LIMIT ${scan.limit}` : '';
      return `SELECT ${cols.join(', ')} FROM ${quoteIdent(scan.physical ?? metric.name)} WHERE ${where}${limit}`;
    };
    const union = (withLabels: boolean, samples: boolean, tsid = false) =>
      scans.length === 1 ? sel(scans[0]!, withLabels, samples, tsid) : scans.map((scan) => `(${sel(scan, withLabels, samples, tsid)})`).join(' UNION ALL ');
    const labelOrder = Array.from({ length: width }, (_, c) => `l${c}`);
    const labelsAt = (b: Branch, get: (col: number) => unknown): Labels => {
      const pairs: Array<[string, string]> = [[METRIC_NAME, b.plan.metric.name]];
      b.plan.metric.tags.forEach((c, i) => pairs.push([c.name, String(get(i) ?? '')]));
      return labelsFrom(pairs);
    };
    // Labels in every row, ordered by them within a hash: a shared hash cannot merge two series.
    const inline = `SELECT * FROM (${union(true, true)}) ORDER BY ${['p', 'k', ...labelOrder, 't'].join(', ')}`;
    let result: SeriesData[][] | undefined;
    if (this.access.arrow !== undefined && width > 0 && spanMs >= TWO_SCAN_MIN_SPAN_MS) {
      result = await this.readThenLabels(branches, scans, union(false, true, true), `SELECT DISTINCT * FROM (${union(true, false, true)})`, labelsAt, signal);
    }
    if (result === undefined && this.access.arrow !== undefined) {
      const arrow = await this.access.arrow(inline, signal);
      if (arrow !== undefined) {
        checkRoom(branches, scans, arrow.batches);
        result = cutSeries(branches.length, arrow.batches, 2 + width, (p, batch, first, lastBatch, last) => {
          const b = branches[p]!;
          const labels = labelsAt(b, (c) => batch.getChildAt(2 + c)!.get(first));
          // Rows are ordered by labels within a hash: a run whose last row has other labels holds two series.
          if (labelsKey(labels) !== labelsKey(labelsAt(b, (c) => lastBatch.getChildAt(2 + c)!.get(last)))) return undefined;
          return labels;
        });
      }
    }
    if (result === undefined) {
      const rows = await this.access.rows(inline, signal);
      const counts = new Float64Array(branches.length);
      for (const r of rows) counts[Number(r[0])]! += 1;
      checkCounts(branches, scans, counts);
      result = branches.map(() => []);
      let i = 0;
      while (i < rows.length) {
        const p = Number(rows[i]![0]);
        const b = branches[p]!;
        const labels = labelsAt(b, (c) => rows[i]![2 + c]);
        const key = labelsKey(labels);
        let j = i + 1;
        while (j < rows.length && Number(rows[j]![0]) === p && labelsKey(labelsAt(b, (c) => rows[j]![2 + c])) === key) j++;
        const t = new Float64Array(j - i);
        const v = new Float64Array(j - i);
        for (let r = i; r < j; r++) {
          t[r - i] = Number(rows[r]![2 + width]);
          v[r - i] = Number(rows[r]![3 + width]);
        }
        result[p]!.push({ labels, t, v });
        i = j;
      }
    }
    return result;
  }

  /**
   * readBranches in two statements: the samples as (branch, key, t, v) only, then each key's labels
   * once. Turning the label texts of every sample into Arrow was most of a long query's time.
   * Undefined when the Arrow path is not offered, when a key of the first statement has no labels in
   * the second (its series went away in between), two label sets share a key or one label set has
   * two keys: the caller then reads labels with every sample.
   */
  private async readThenLabels(
    branches: readonly Branch[], scans: readonly Scan[], samplesSql: string, labelsSql: string, labelsAt: (b: Branch, get: (col: number) => unknown) => Labels, signal?: AbortSignal,
  ): Promise<SeriesData[][] | undefined> {
    const samples = await this.access.arrow!(`SELECT * FROM (${samplesSql}) ORDER BY p, k, t`, signal);
    if (samples === undefined) return undefined;
    checkRoom(branches, scans, samples.batches);
    const labelSets = await this.access.arrow!(labelsSql, signal);
    if (labelSets === undefined) return undefined;
    const byKey = new Map<string, Labels | null>();
    // One label set under two keys (`__tsid` tells a NULL tag from '', Prometheus does not): the caller reads labels with every sample.
    const seen = new Set<string>();
    for (const b of labelSets.batches) {
      const ps = b.getChildAt(0)!.toArray() as Int32Array;
      const keys = b.getChildAt(1)!.toArray() as BigUint64Array;
      for (let r = 0; r < b.numRows; r++) {
        const id = `${ps[r]!} ${keys[r]!}`;
        // Two label sets with one hash: marked, and the caller reads labels with every sample.
        const labels = labelsAt(branches[ps[r]!]!, (c) => b.getChildAt(2 + c)!.get(r));
        const text = `${ps[r]!} ${labelsKey(labels)}`;
        if (seen.has(text)) return undefined;
        seen.add(text);
        byKey.set(id, byKey.has(id) ? null : labels);
      }
    }
    return cutSeries(branches.length, samples.batches, 2, (p, batch, first) => {
      const labels = byKey.get(`${p} ${(batch.getChildAt(1)!.toArray() as BigUint64Array)[first]!}`);
      return labels ?? undefined;
    });
  }

  /**
   * The distinct label sets of one plan's series in the range. All of them: the first `limit` in
   * Prometheus's order of label sets is no order SQL can sort the tag columns by (absent labels).
   */
  private async seriesOf(p: MergedPlan, signal?: AbortSignal): Promise<Labels[]> {
    const { metric } = p;
    const cols = metric.tags.map((c) => `coalesce(${labelExpr(c)}, '')`);
    const select = cols.length === 0 ? '1' : cols.join(', ');
    const sql = `SELECT DISTINCT ${select} FROM ${quoteIdent(metric.name)} WHERE ${p.where}`;
    const rows = await this.access.rows(sql, signal);
    return rows.map((row) => labelsFrom([[METRIC_NAME, metric.name] as [string, string], ...metric.tags.map((c, i): [string, string] => [c.name, String(row[i] ?? '')])]));
  }

  async series(req: MetadataRequest): Promise<Labels[]> {
    const plans = mergePlans(await this.plan(req.matcherSets.length === 0 ? [[]] : req.matcherSets, req.startMs, req.endMs, req.signal));
    const found = new Map<string, Labels>();
    const lists = await mapLimit(plans, METADATA_CONCURRENCY, (p) => this.seriesOf(p, req.signal));
    for (const list of lists) for (const l of list) found.set(labelsKey(l), l);
    const out = [...found.values()].sort(compareLabels);
    return req.limit > 0 ? out.slice(0, req.limit) : out;
  }

  async labelNames(req: MetadataRequest): Promise<string[]> {
    const plans = mergePlans(await this.plan(req.matcherSets.length === 0 ? [[]] : req.matcherSets, req.startMs, req.endMs, req.signal));
    const names = new Set<string>();
    // Per table: does any series exist, and which of its tags have a value on some series.
    await mapLimit(plans, METADATA_CONCURRENCY, async (p) => {
      const counts = p.metric.tags.map((c) => `count(nullif(${labelExpr(c)}, ''))`);
      const [row] = await this.access.rows(`SELECT ${['count(*)', ...counts].join(', ')} FROM ${quoteIdent(p.metric.name)} WHERE ${p.where}`, req.signal);
      if (row === undefined || Number(row[0]) === 0) return;
      names.add(METRIC_NAME);
      p.metric.tags.forEach((c, i) => {
        if (Number(row[i + 1]) > 0) names.add(c.name);
      });
    });
    const out = [...names].sort();
    return req.limit > 0 ? out.slice(0, req.limit) : out;
  }

  async labelValues(name: string, req: MetadataRequest): Promise<string[]> {
    const plans = mergePlans(await this.plan(req.matcherSets.length === 0 ? [[]] : req.matcherSets, req.startMs, req.endMs, req.signal));
    const values = new Set<string>();
    await mapLimit(plans, METADATA_CONCURRENCY, async (p) => {
      const table = quoteIdent(p.metric.name);
      const where = p.where;
      // GreptimeDB's `__field__`: the numeric fields of the tables with matching series.
      if (name === FIELD_MATCHER) {
        if ((await this.access.rows(`SELECT 1 FROM ${table} WHERE ${where} LIMIT 1`, req.signal)).length > 0) for (const f of p.metric.fields) values.add(f);
        return;
      }
      if (name === METRIC_NAME) {
        if ((await this.access.rows(`SELECT 1 FROM ${table} WHERE ${where} LIMIT 1`, req.signal)).length > 0) values.add(p.metric.name);
        return;
      }
      const tag = p.metric.tags.find((c) => c.name === name);
      if (tag === undefined) return;
      const col = labelExpr(tag);
      // The first `limit` values in order (DuckDB compares VARCHARs bytewise, as Go sorts strings).
      const rows = await this.access.rows(`SELECT DISTINCT ${col} AS v FROM ${table} WHERE ${where} AND ${col} <> ''${req.limit > 0 ? ` ORDER BY v LIMIT ${req.limit}` : ''}`, req.signal);
      for (const r of rows) values.add(String(r[0]));
    });
    const out = [...values].sort();
    return req.limit > 0 ? out.slice(0, req.limit) : out;
  }
}

/** GreptimeDB's matchers that pick the database a selector reads (not labels). */
export const DATABASE_MATCHERS: readonly string[] = ['__schema__', '__database__'];

/**
 * PromQL over the databases a user may read: a selector with `{__database__="db"}` (or
 * `__schema__`) reads that database, any other the default one; the values of those two labels are
 * the databases. `open` answers undefined for a database that does not exist (no series).
 */
export class DatabaseRoutedSource implements PromSource {
  private readonly opened = new Map<string, Promise<PromSource | undefined>>();

  constructor(
    private readonly defaultDatabase: string,
    private readonly open: (database: string) => Promise<PromSource | undefined>,
    private readonly databases?: () => Promise<string[]>,
  ) {}

  /** The database a matcher set names, and the set without its database matchers. */
  route(matchers: readonly LabelMatcher[]): { database: string; matchers: LabelMatcher[] } {
    let database = this.defaultDatabase;
    const rest: LabelMatcher[] = [];
    for (const m of matchers) {
      if (!DATABASE_MATCHERS.includes(m.name)) {
        rest.push(m);
        continue;
      }
      if (m.type !== '=') throw new PromqlError('bad_data', `Matcher operator ${m.type} is not supported for ${m.name}`);
      database = m.value;
    }
    return { database, matchers: rest };
  }

  source(database: string): Promise<PromSource | undefined> {
    let s = this.opened.get(database);
    if (s === undefined) {
      s = this.open(database);
      this.opened.set(database, s);
    }
    return s;
  }

  async select(req: SelectRequest): Promise<SeriesData[]> {
    const { database, matchers } = this.route(req.matchers);
    const s = await this.source(database);
    return s === undefined ? [] : s.select({ ...req, matchers });
  }

  /** Each database's requests read together (one statement per database), answers in request order. */
  async selectAll(reqs: readonly SelectRequest[]): Promise<SeriesData[][]> {
    const out: SeriesData[][] = reqs.map(() => []);
    const groups = new Map<string, Array<{ i: number; req: SelectRequest }>>();
    reqs.forEach((req, i) => {
      const { database, matchers } = this.route(req.matchers);
      let g = groups.get(database);
      if (g === undefined) groups.set(database, (g = []));
      g.push({ i, req: { ...req, matchers } });
    });
    for (const [database, g] of groups) {
      const s = await this.source(database);
      if (s === undefined) continue;
      const answers = s.selectAll !== undefined ? await s.selectAll(g.map((x) => x.req)) : await sequential(g.map((x) => () => s.select(x.req)));
      g.forEach((x, k) => (out[x.i] = answers[k]!));
    }
    return out;
  }

  /** Runs a metadata request per database its matcher sets name, in the order of the sets. */
  private async perDatabase<T>(req: MetadataRequest, f: (s: PromSource, r: MetadataRequest) => Promise<T[]>): Promise<T[][]> {
    const groups = new Map<string, LabelMatcher[][]>();
    if (req.matcherSets.length === 0) groups.set(this.defaultDatabase, []);
    for (const set of req.matcherSets) {
      const { database, matchers } = this.route(set);
      let g = groups.get(database);
      if (g === undefined) groups.set(database, (g = []));
      g.push(matchers);
    }
    const out: T[][] = [];
    for (const [database, matcherSets] of groups) {
      const s = await this.source(database);
      if (s !== undefined) out.push(await f(s, { ...req, matcherSets }));
    }
    return out;
  }

  async series(req: MetadataRequest): Promise<Labels[]> {
    const all = (await this.perDatabase(req, (s, r) => s.series(r))).flat();
    return req.limit > 0 ? all.slice(0, req.limit) : all;
  }

  async labelNames(req: MetadataRequest): Promise<string[]> {
    return sortedUnion(await this.perDatabase(req, (s, r) => s.labelNames(r)), req.limit);
  }

  async labelValues(name: string, req: MetadataRequest): Promise<string[]> {
    if (DATABASE_MATCHERS.includes(name) && this.databases !== undefined) return sortedUnion([await this.databases()], req.limit);
    return sortedUnion(await this.perDatabase(req, (s, r) => s.labelValues(name, r)), req.limit);
  }
}

async function sequential<T>(fns: ReadonlyArray<() => Promise<T>>): Promise<T[]> {
  const out: T[] = [];
  for (const f of fns) out.push(await f());
  return out;
}

function sortedUnion(lists: readonly (readonly string[])[], limit: number): string[] {
  const out = [...new Set(lists.flat())].sort();
  return limit > 0 ? out.slice(0, limit) : out;
}
