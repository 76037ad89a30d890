/**
 * The PromQL oracle's in-process target: tsdb's parser and evaluator over an in-memory source
 * holding the oracle data set, answering as the HTTP API would (range queries only of scalar and
 * instant-vector expressions, Prometheus' 11,000-points limit, PromqlError types as errorType). It
 * tells the evaluator's mismatches from those of the SQL-backed source and the API (the oracle
 * test runs it with `PROMQL_ORACLE_TARGET=engine`).
 */
import { checkResolution, evaluateQuery } from '../../src/promql/engine.js';
import { DEFAULT_MAX_SAMPLES, PromqlError } from '../../src/promql/errors.js';
import { labelsFrom, labelsObject, type Labels } from '../../src/promql/labels.js';
import { parsePromql, typeOf } from '../../src/promql/parser.js';
import type { PromSource } from '../../src/promql/source.js';
import { staleNaN, type QueryResult } from '../../src/promql/values.js';
import { labelKey, type PromAnswer, type PromParams } from './promql-compare.js';
import type { OracleDataset } from './promql-oracle-data.js';
import { MemorySource } from './promql-eval.js';

/** The data set as an in-memory PromSource (typed arrays keep the stale markers' payload). */
export function oracleMemorySource(ds: OracleDataset): MemorySource {
  const source = new MemorySource();
  for (const s of ds.series) {
    const v = new Float64Array(s.v.length);
    s.t.forEach((t, i) => (v[i] = s.stale?.has(t) === true ? staleNaN() : s.v[i]!));
    source.addSeries({ labels: labelsFrom(s.labels.map((l) => [l.name, l.value] as const)), t: Float64Array.from(s.t), v });
  }
  return source;
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
