/**
 * Test support for the PromQL evaluator: an in-memory PromSource (a test double: the SQL-backed
 * source is tested on its own), a tiny AST builder, and a few test-only function
 * implementations, so engine tests need neither the parser nor the function library.
 */
import type { AggregateOp, AtModifier, BinaryOp, Expr, LabelMatcher, MatchType, MatrixSelector, SubqueryExpr, VectorMatching, VectorSelector } from '../../src/promql/ast.js';
import { absentLabels, evaluateQueryWith, type EvalOptions } from '../../src/promql/engine.js';
import type { PromFunction, RangeFunction } from '../../src/promql/functions/types.js';
import { dropMetricName, getLabel, labelsFrom, labelsObject, type Labels } from '../../src/promql/labels.js';
import { matcherMatches } from '../../src/promql/regex.js';
import type { MetadataRequest, PromSource, SelectRequest, SeriesData } from '../../src/promql/source.js';
import { staleNaN, type QueryResult } from '../../src/promql/values.js';

export interface MemSeries {
  readonly labels: Labels;
  readonly t: Float64Array;
  /** Typed, so stale markers keep their NaN payload (JS arrays may canonicalize NaNs). */
  readonly v: Float64Array;
}

/** Prometheus' matcher semantics, with tsdb's own RE2 translation (the SQL path uses the same). */
function matches(labels: Labels, m: LabelMatcher): boolean {
  return matcherMatches(m, getLabel(labels, m.name));
}

export class MemorySource implements PromSource {
  readonly data: MemSeries[] = [];
  readonly selects: SelectRequest[] = [];

  /** Adds a series: labels and [seconds, value] samples ('stale': a stale marker). */
  add(labels: Record<string, string>, samples: readonly (readonly [number, number | 'stale'])[]): this {
    const v = new Float64Array(samples.length);
    // Written straight into the typed array: a NaN held in a JS array may lose its payload.
    samples.forEach((s, i) => (v[i] = s[1] === 'stale' ? staleNaN() : s[1]));
    this.data.push({ labels: labelsFrom(labels), t: Float64Array.from(samples, (s) => s[0] * 1000), v });
    return this;
  }

  /** Adds a series already held as typed arrays (times in ms). */
  addSeries(series: MemSeries): this {
    this.data.push(series);
    return this;
  }

  async select(req: SelectRequest): Promise<SeriesData[]> {
    this.selects.push(req);
    const out: SeriesData[] = [];
    // Reverse insertion order, so the engine's own sort is exercised.
    for (const s of [...this.data].reverse()) {
      if (!req.matchers.every((m) => matches(s.labels, m))) continue;
      let from = 0;
      while (from < s.t.length && s.t[from]! < req.startMs) from++;
      let to = from;
      while (to < s.t.length && s.t[to]! <= req.endMs) to++;
      if (to === from) continue;
      out.push({ labels: s.labels, t: s.t.slice(from, to), v: s.v.slice(from, to) });
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

// --- AST builder -------------------------------------------------------------------------------

export interface SelOpts {
  offset?: number;
  at?: AtModifier;
}

/** `name{k="v"}`; matchers given as `k: 'v'` (equality) or full matchers. */
export function sel(name: string | undefined, matchers: Record<string, string> | LabelMatcher[] = {}, o: SelOpts = {}): VectorSelector {
  const ms: LabelMatcher[] = Array.isArray(matchers) ? [...matchers] : Object.entries(matchers).map(([n, value]) => ({ name: n, type: '=' as MatchType, value }));
  if (name !== undefined) ms.unshift({ name: '__name__', type: '=', value: name });
  return { kind: 'vector', ...(name !== undefined ? { name } : {}), matchers: ms, offsetMs: o.offset ?? 0, ...(o.at !== undefined ? { at: o.at } : {}) };
}

export const m = (name: string, type: MatchType, value: string): LabelMatcher => ({ name, type, value });
export const mat = (s: VectorSelector, rangeS: number): MatrixSelector => ({ kind: 'matrix', selector: s, rangeMs: rangeS * 1000 });
export const sub = (e: Expr, rangeS: number, stepS = 0, o: SelOpts = {}): SubqueryExpr => ({
  kind: 'subquery',
  expr: e,
  rangeMs: rangeS * 1000,
  stepMs: stepS * 1000,
  offsetMs: o.offset ?? 0,
  ...(o.at !== undefined ? { at: o.at } : {}),
});
export const num = (value: number): Expr => ({ kind: 'number', value });
export const str = (value: string): Expr => ({ kind: 'string', value });
export const call = (func: string, ...args: Expr[]): Expr => ({ kind: 'call', func, args });
export const neg = (e: Expr): Expr => ({ kind: 'unary', op: '-', expr: e });
export const paren = (e: Expr): Expr => ({ kind: 'paren', expr: e });
export const atTime = (s: number): AtModifier => ({ kind: 'time', ms: s * 1000 });

export function agg(op: AggregateOp, e: Expr, o: { by?: string[]; without?: string[]; param?: Expr } = {}): Expr {
  return { kind: 'aggregate', op, expr: e, grouping: o.by ?? o.without ?? [], without: o.without !== undefined, ...(o.param !== undefined ? { param: o.param } : {}) };
}

export interface BinOpts {
  bool?: boolean;
  on?: string[];
  ignoring?: string[];
  groupLeft?: string[];
  groupRight?: string[];
}

export function bin(op: BinaryOp, lhs: Expr, rhs: Expr, o: BinOpts = {}): Expr {
  const setOp = op === 'and' || op === 'or' || op === 'unless';
  const card: VectorMatching['card'] = setOp ? 'many-to-many' : o.groupLeft !== undefined ? 'many-to-one' : o.groupRight !== undefined ? 'one-to-many' : 'one-to-one';
  const matching: VectorMatching = { card, on: o.on !== undefined, labels: o.on ?? o.ignoring ?? [], include: o.groupLeft ?? o.groupRight ?? [] };
  return { kind: 'binary', op, lhs, rhs, returnBool: o.bool === true, matching };
}

// --- Test-only functions -----------------------------------------------------------------------

function rangeFn(dropsName: boolean, f: RangeFunction['apply'], rangeArg = 0): RangeFunction {
  return { kind: 'range', rangeArg, dropsName, apply: f };
}

/** Every window a `windows_probe` call saw: [labels, rangeStart, rangeEnd, times…]. */
export const probed: string[] = [];

export const TEST_FUNCTIONS: ReadonlyMap<string, PromFunction> = new Map<string, PromFunction>([
  [
    'sum_over_time',
    rangeFn(true, (w) => {
      let s = 0;
      for (let i = w.from; i < w.to; i++) s += w.v[i]!;
      return s;
    }),
  ],
  ['count_over_time', rangeFn(true, (w) => w.to - w.from)],
  ['last_over_time', rangeFn(false, (w) => w.v[w.to - 1]!)],
  // Stands in for a function with a parameter: q + number of samples.
  ['quantile_over_time', rangeFn(true, (w, p) => p[0]! + (w.to - w.from), 1)],
  // Records the window (times in s) and answers the evaluation time in s.
  [
    'changes',
    rangeFn(true, (w, _p, t) => {
      const ts: number[] = [];
      for (let i = w.from; i < w.to; i++) ts.push(w.t[i]! / 1000);
      probed.push(`${JSON.stringify(labelsObject(w.labels))} [${w.rangeStartMs / 1000},${w.rangeEndMs / 1000}] ${ts.join(',')}`);
      return t / 1000;
    }),
  ],
  ['abs', { kind: 'instant', apply: (args) => (args[0] as { labels: Labels; t: number; v: number }[]).map((s) => ({ labels: dropMetricName(s.labels), t: s.t, v: Math.abs(s.v) })) }],
  ['timestamp', { kind: 'instant', apply: (args) => (args[0] as { labels: Labels; t: number; v: number }[]).map((s) => ({ labels: dropMetricName(s.labels), t: s.t, v: s.t / 1000 })) }],
  ['time', { kind: 'instant', apply: (_a, ctx) => [{ labels: [], t: ctx.evalTimeMs, v: ctx.evalTimeMs / 1000 }] }],
  [
    'scalar',
    {
      kind: 'instant',
      apply: (args, ctx) => {
        const v = args[0] as { v: number }[];
        return [{ labels: [], t: ctx.evalTimeMs, v: v.length === 1 ? v[0]!.v : Number.NaN }];
      },
    },
  ],
  ['vector', { kind: 'instant', apply: (args, ctx) => [{ labels: [], t: ctx.evalTimeMs, v: args[0] as number }] }],
  ['sort_desc', { kind: 'instant', apply: (args) => [...(args[0] as { labels: Labels; t: number; v: number }[])].sort((a, b) => b.v - a.v) }],
  [
    'absent',
    {
      kind: 'instant',
      apply: (args, ctx) => ((args[0] as unknown[]).length > 0 ? [] : [{ labels: absentLabels(ctx.args[0]!), t: ctx.evalTimeMs, v: 1 }]),
    },
  ],
]);

export const BASE: EvalOptions = { startMs: 0, endMs: 0, stepMs: 0, lookbackMs: 300_000, maxSamples: 50_000_000 };

/** Evaluates with the test functions; `at`/`start`/`end`/`step` in seconds. */
export function evalAt(src: PromSource, e: Expr, at: number, o: Partial<EvalOptions> = {}): Promise<QueryResult> {
  return evaluateQueryWith(e, src, { ...BASE, startMs: at * 1000, endMs: at * 1000, ...o }, { functions: TEST_FUNCTIONS });
}

export function evalRange(src: PromSource, e: Expr, start: number, end: number, step: number, o: Partial<EvalOptions> = {}): Promise<QueryResult> {
  return evaluateQueryWith(e, src, { ...BASE, startMs: start * 1000, endMs: end * 1000, stepMs: step * 1000, ...o }, { functions: TEST_FUNCTIONS });
}

/** A result as compact text: vector `{labels} v` lines, matrix `{labels} v@t…` (t in s), scalar/string. */
export function show(r: QueryResult): string[] {
  const fmtL = (l: Labels): string =>
    `{${l
      .map((x) => `${x.name}=${x.value}`)
      .join(',')}}`;
  switch (r.type) {
    case 'vector':
      return r.vector.map((s) => `${fmtL(s.labels)} ${s.v}`);
    case 'matrix':
      return r.matrix.map((s) => `${fmtL(s.labels)} ${s.v.map((v, i) => `${v}@${s.t[i]! / 1000}`).join(' ')}`);
    case 'scalar':
      return [`scalar ${r.v}@${r.t / 1000}`];
    case 'string':
      return [`string ${r.v}@${r.t / 1000}`];
  }
}
