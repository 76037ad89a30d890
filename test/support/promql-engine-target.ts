/**
 * The PromQL oracle's in-process target: tsdb's parser and evaluator over an in-memory source
 * holding the oracle data set, answering as the HTTP API would (range queries only of scalar and
 * instant-vector expressions, Prometheus' 11,000-points limit, PromqlError types as errorType). It
 * tells the evaluator's mismatches from those of the SQL-backed source and the API (the oracle
 * test runs it with `PROMQL_ORACLE_TARGET=engine`).
 */
import type { LabelMatcher } from '../../src/promql/ast.js';
import { checkResolution, evaluateQuery } from '../../src/promql/engine.js';
import { DEFAULT_MAX_SAMPLES, PromqlError } from '../../src/promql/errors.js';
import { getLabel, labelsFrom, labelsObject, type Labels } from '../../src/promql/labels.js';
import { parsePromql, typeOf } from '../../src/promql/parser.js';
import type { MetadataRequest, PromSource, SelectRequest, SeriesData } from '../../src/promql/source.js';
import { staleNaN, type QueryResult } from '../../src/promql/values.js';
import { labelKey, type PromAnswer, type PromParams } from './promql-compare.js';
import type { OracleDataset } from './promql-oracle-data.js';

/** An RE2 pattern as an anchored JS RegExp (enough for the oracle's patterns); a leading `(?i)` becomes the `i` flag. */
function anchored(pattern: string): RegExp {
  const i = pattern.startsWith('(?i)');
  return new RegExp(`^(?:${i ? pattern.slice(4) : pattern})$`, i ? 'ui' : 'u');
}

function matches(labels: Labels, m: LabelMatcher): boolean {
  const v = getLabel(labels, m.name);
  switch (m.type) {
    case '=':
      return v === m.value;
    case '!=':
      return v !== m.value;
    case '=~':
      return anchored(m.value).test(v);
    case '!~':
      return !anchored(m.value).test(v);
  }
}

interface Stored {
  readonly labels: Labels;
  readonly t: Float64Array;
  readonly v: Float64Array;
}

/** The data set as an in-memory PromSource (typed arrays keep the stale markers' payload). */
export class OracleMemorySource implements PromSource {
  private readonly data: Stored[];

  constructor(ds: OracleDataset) {
    this.data = ds.series.map((s) => {
      const v = new Float64Array(s.v.length);
      s.t.forEach((t, i) => (v[i] = s.stale?.has(t) === true ? staleNaN() : s.v[i]!));
      return { labels: labelsFrom(s.labels.map((l) => [l.name, l.value] as const)), t: Float64Array.from(s.t), v };
    });
  }

  async select(req: SelectRequest): Promise<SeriesData[]> {
    const out: SeriesData[] = [];
    for (const s of this.data) {
      if (!req.matchers.every((m) => matches(s.labels, m))) continue;
      let from = 0;
      while (from < s.t.length && s.t[from]! < req.startMs) from++;
      let to = from;
      while (to < s.t.length && s.t[to]! <= req.endMs) to++;
      if (to > from) out.push({ labels: s.labels, t: s.t.slice(from, to), v: s.v.slice(from, to) });
    }
    return out;
  }

  async series(req: MetadataRequest): Promise<Labels[]> {
    return this.data.filter((s) => req.matcherSets.length === 0 || req.matcherSets.some((ms) => ms.every((m) => matches(s.labels, m)))).map((s) => s.labels);
  }

  async labelNames(req: MetadataRequest): Promise<string[]> {
    return [...new Set((await this.series(req)).flatMap((l) => l.map((x) => x.name)))].sort();
  }

  async labelValues(name: string, req: MetadataRequest): Promise<string[]> {
    return [...new Set((await this.series(req)).map((l) => getLabel(l, name)).filter((v) => v !== ''))].sort();
  }
}

function toAnswer(r: QueryResult, rangeQuery: boolean): PromAnswer {
  const key = (l: Labels) => labelKey(labelsObject(l));
  switch (r.type) {
    case 'scalar':
      return rangeQuery
        ? { status: 'success', resultType: 'matrix', series: [{ key: labelKey({}), t: [r.t], v: [r.v] }] }
        : { status: 'success', resultType: 'scalar', series: [{ key: '', t: [r.t], v: [r.v] }] };
    case 'string':
      return { status: 'success', resultType: 'string', series: [{ key: '', t: [r.t], v: [r.v] }] };
    case 'vector':
      return { status: 'success', resultType: 'vector', series: r.vector.map((s) => ({ key: key(s.labels), t: [s.t], v: [s.v] })) };
    case 'matrix':
      return { status: 'success', resultType: 'matrix', series: r.matrix.map((s) => ({ key: key(s.labels), t: [...s.t], v: [...s.v] })) };
  }
}

/** Answers one oracle evaluation (`query` with `time`, or `query_range` with start/end/step in seconds). */
export async function engineAnswer(source: PromSource, path: 'query' | 'query_range', params: PromParams): Promise<PromAnswer> {
  // The forms the oracle sends: float seconds or RFC 3339 times, float seconds or `<n>m` steps.
  const sec = (s: string) => (s.includes('T') ? Date.parse(s) : s.endsWith('m') ? Number(s.slice(0, -1)) * 60_000 : Math.round(Number(s) * 1000));
  try {
    let expr;
    try {
      expr = parsePromql(params['query']!);
    } catch (err) {
      // Prometheus 2.42's /query names the parameter in a parse error; /query_range does not.
      if (err instanceof PromqlError && path === 'query') throw new PromqlError(err.errorType, `invalid parameter "query": ${err.message}`);
      throw err;
    }
    let startMs: number;
    let endMs: number;
    let stepMs: number;
    if (path === 'query') {
      startMs = endMs = sec(params['time']!);
      stepMs = 0;
    } else {
      startMs = sec(params['start']!);
      endMs = sec(params['end']!);
      stepMs = sec(params['step']!);
      checkResolution(startMs, endMs, stepMs);
      const type = typeOf(expr);
      if (type !== 'scalar' && type !== 'vector') {
        throw new PromqlError('bad_data', `invalid expression type "${type === 'matrix' ? 'range vector' : type}" for range query, must be Scalar or instant Vector`);
      }
    }
    const result = await evaluateQuery(expr, source, { startMs, endMs, stepMs, lookbackMs: 300_000, maxSamples: DEFAULT_MAX_SAMPLES });
    return toAnswer(result, path === 'query_range');
  } catch (err) {
    if (err instanceof PromqlError) return { status: 'error', errorType: err.errorType, error: err.message, httpStatus: 0 };
    return { status: 'error', errorType: 'internal (not a PromqlError)', error: err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err), httpStatus: 0 };
  }
}
