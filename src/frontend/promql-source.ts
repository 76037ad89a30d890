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
 * hash of the series' labels, then time, and the series are cut out of the Float64 columns in
 * bulk. Each scan is LIMITed to the samples the query may still hold (`maxSamples`), so a query
 * that would hold more fails before it does. Stale markers (NaN 0x7ff0000000000002) arrive as
 * stored, bit for bit.
 */
import type { ArrowRows, Cell } from '../query/output.js';
import { quoteIdent, quoteLiteral } from '../common/sql-quote.js';
import { METRIC_NAME, type LabelMatcher } from '../promql/ast.js';
import { PromqlError, TOO_MANY_SAMPLES } from '../promql/errors.js';
import { compileMatcherRegex, matcherMatches } from '../promql/regex.js';
import { compareLabels, labelsFrom, labelsKey, type Labels } from '../promql/labels.js';
import type { MetadataRequest, PromSource, SelectRequest, SeriesData } from '../promql/source.js';
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
  return { name: t.name, tags, tagNames: new Set(tags.map((c) => c.name)), time: ts.name, timeType: ts.type, fields };
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

/** The range from which readSamples reads labels apart from samples (measured: a loss at 1 h, a gain at 6 h). */
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
    const [plans] = await this.plan([req.matchers], req.startMs, req.endMs, req.signal);
    const out: SeriesData[] = [];
    let held = 0;
    for (const p of plans!) {
      req.signal?.throwIfAborted();
      const series = await this.readSamples(p, req.maxSamples - held, req.endMs - req.startMs, req.signal);
      for (const s of series) held += s.t.length;
      out.push(...series);
    }
    return out.sort((a, b) => compareLabels(a.labels, b.labels));
  }

  /** The samples of one table's matching series; fails when there are more than `room`. */
  private async readSamples(p: Plan, room: number, spanMs: number, signal?: AbortSignal): Promise<SeriesData[]> {
    const { metric } = p;
    const tags = metric.tags;
    const labelCols = tags.map((c) => `coalesce(${labelExpr(c)}, '')`);
    // A hash of the labels orders each series' rows together (cheaper to sort than the texts).
    const key = tags.length === 0 ? 'CAST(0 AS UBIGINT)' : `hash(${labelCols.join(', ')})`;
    const sql =
      `SELECT ${key} AS k, ${[...labelCols.map((c, i) => `${c} AS l${i}`), `CAST(epoch_ms(${quoteIdent(metric.time)}) AS DOUBLE) AS t`, `CAST(${quoteIdent(p.value)} AS DOUBLE) AS v`].join(', ')} ` +
      `FROM ${quoteIdent(metric.name)} WHERE ${whereOf(p)} ORDER BY k, t LIMIT ${Math.max(0, room) + 1}`;
    const labelsAt = (get: (col: number) => unknown): Labels => {
      const pairs: Array<[string, string]> = [[METRIC_NAME, metric.name]];
      tags.forEach((c, i) => pairs.push([c.name, String(get(i + 1) ?? '')]));
      return labelsFrom(pairs);
    };
    // Two scans cost a second query's fixed time: worth it only for long ranges (many samples).
    if (this.access.arrow !== undefined && tags.length > 0 && spanMs >= TWO_SCAN_MIN_SPAN_MS) {
      const fast = await this.readSamplesThenLabels(p, key, labelCols, labelsAt, room, signal);
      if (fast !== undefined) return fast;
    }
    const arrow = this.access.arrow !== undefined ? await this.access.arrow(sql, signal) : undefined;
    const series: SeriesData[] = [];
    if (arrow !== undefined) {
      let total = 0;
      for (const b of arrow.batches) total += b.numRows;
      if (total > room) throw new PromqlError('execution', TOO_MANY_SAMPLES);
      // Runs of one series may span batches: collect the segments, then copy each series once.
      let current: { labels: Labels; segments: Array<[Float64Array, Float64Array]>; n: number } | undefined;
      let prevLo = -1;
      let prevHi = -1;
      const finish = () => {
        if (current === undefined) return;
        const t = new Float64Array(current.n);
        const v = new Float64Array(current.n);
        let at = 0;
        for (const [st, sv] of current.segments) {
          t.set(st, at);
          v.set(sv, at);
          at += st.length;
        }
        series.push({ labels: current.labels, t, v });
      };
      for (const b of arrow.batches) {
        const n = b.numRows;
        if (n === 0) continue;
        const keys = b.getChildAt(0)!.toArray() as BigUint64Array;
        const words = new Uint32Array(keys.buffer, keys.byteOffset, n * 2);
        const ts = b.getChildAt(tags.length + 1)!.toArray() as Float64Array;
        const vs = b.getChildAt(tags.length + 2)!.toArray() as Float64Array;
        let from = 0;
        for (let i = 0; i <= n; i++) {
          const boundary = i === n || words[2 * i] !== prevLo || words[2 * i + 1] !== prevHi;
          if (!boundary) continue;
          if (i > from && current !== undefined) {
            current.segments.push([ts.subarray(from, i), vs.subarray(from, i)]);
            current.n += i - from;
          }
          if (i === n) break;
          finish();
          const row = i;
          current = { labels: labelsAt((col) => b.getChildAt(col)!.get(row)), segments: [], n: 0 };
          prevLo = words[2 * i]!;
          prevHi = words[2 * i + 1]!;
          from = i;
        }
      }
      finish();
      return series;
    }
    const rows = await this.access.rows(sql, signal);
    if (rows.length > room) throw new PromqlError('execution', TOO_MANY_SAMPLES);
    let i = 0;
    while (i < rows.length) {
      const k = rows[i]![0];
      let j = i + 1;
      while (j < rows.length && rows[j]![0] === k) j++;
      const t = new Float64Array(j - i);
      const v = new Float64Array(j - i);
      for (let r = i; r < j; r++) {
        t[r - i] = Number(rows[r]![tags.length + 1]);
        v[r - i] = Number(rows[r]![tags.length + 2]);
      }
      const first = rows[i]!;
      series.push({ labels: labelsAt((col) => first[col]), t, v });
      i = j;
    }
    return series;
  }

  /**
   * readSamples in two scans: the samples as (key, t, v) only, then each key's labels once. Turning
   * the ten label texts of every sample into Arrow was most of a query's time. Undefined when a key
   * of the first scan has no labels in the second (its series went away in between): the caller
   * then reads labels and samples in one scan.
   */
  private async readSamplesThenLabels(
    p: Plan, key: string, labelCols: readonly string[], labelsAt: (get: (col: number) => unknown) => Labels, room: number, signal?: AbortSignal,
  ): Promise<SeriesData[] | undefined> {
    const { metric } = p;
    const from = `FROM ${quoteIdent(metric.name)} WHERE ${whereOf(p)}`;
    const samples = await this.access.arrow!(
      `SELECT ${key} AS k, CAST(epoch_ms(${quoteIdent(metric.time)}) AS DOUBLE) AS t, CAST(${quoteIdent(p.value)} AS DOUBLE) AS v ${from} ORDER BY k, t LIMIT ${Math.max(0, room) + 1}`,
      signal,
    );
    if (samples === undefined) return undefined;
    let total = 0;
    for (const b of samples.batches) total += b.numRows;
    if (total > room) throw new PromqlError('execution', TOO_MANY_SAMPLES);
    const labelSets = await this.access.arrow!(`SELECT DISTINCT ${key} AS k, ${labelCols.map((c, i) => `${c} AS l${i}`).join(', ')} ${from}`, signal);
    if (labelSets === undefined) return undefined;
    const byKey = new Map<bigint, Labels>();
    for (const b of labelSets.batches) {
      const keys = b.getChildAt(0)!.toArray() as BigUint64Array;
      for (let r = 0; r < b.numRows; r++) byKey.set(keys[r]!, labelsAt((col) => b.getChildAt(col)!.get(r)));
    }
    // Runs of one series may span batches: collect the segments, then copy each series once.
    const series: SeriesData[] = [];
    let current: { labels: Labels; segments: Array<[Float64Array, Float64Array]>; n: number } | undefined;
    const finish = () => {
      if (current === undefined) return;
      const t = new Float64Array(current.n);
      const v = new Float64Array(current.n);
      let at = 0;
      for (const [st, sv] of current.segments) {
        t.set(st, at);
        v.set(sv, at);
        at += st.length;
      }
      series.push({ labels: current.labels, t, v });
    };
    let prev: bigint | undefined;
    for (const b of samples.batches) {
      const n = b.numRows;
      if (n === 0) continue;
      const keys = b.getChildAt(0)!.toArray() as BigUint64Array;
      const words = new Uint32Array(keys.buffer, keys.byteOffset, n * 2);
      const ts = b.getChildAt(1)!.toArray() as Float64Array;
      const vs = b.getChildAt(2)!.toArray() as Float64Array;
      let start = 0;
      for (let i = 0; i <= n; i++) {
        // Compare the key's two 32-bit words: reading a BigUint64Array element allocates a bigint.
        const boundary = i === n || prev === undefined || (i > 0 ? words[2 * i] !== words[2 * i - 2] || words[2 * i + 1] !== words[2 * i - 1] : keys[0] !== prev);
        if (!boundary) continue;
        if (i > start && current !== undefined) {
          current.segments.push([ts.subarray(start, i), vs.subarray(start, i)]);
          current.n += i - start;
        }
        if (i === n) break;
        finish();
        prev = keys[i]!;
        const labels = byKey.get(prev);
        if (labels === undefined) return undefined;
        current = { labels, segments: [], n: 0 };
        start = i;
      }
      prev = keys[n - 1]!;
    }
    finish();
    return series;
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

function sortedUnion(lists: readonly (readonly string[])[], limit: number): string[] {
  const out = [...new Set(lists.flat())].sort();
  return limit > 0 ? out.slice(0, limit) : out;
}
