/**
 * Evaluates a parsed PromQL expression over a PromSource, as Prometheus 2.42's engine does: the
 * samples every selector needs are fetched once for the whole query range (identical selectors
 * merged), then the expression is evaluated step by step, synchronously, over those columnar
 * arrays: each AST node becomes a node object that numbers its output series once and caches
 * what it derives from them, so a step allocates no label sets.
 */
import type { AtModifier, Call, Expr, SubqueryExpr, ValueType, VectorSelector } from './ast.js';
import { AggregateNode } from './aggregate.js';
import { ScalarBinaryNode, VectorBinaryNode, VectorScalarNode } from './binary.js';
import { MAX_POINTS_PER_SERIES, PromqlError } from './errors.js';
import { documentedType, typeOf } from './parser.js';
import { abortError, EvalState, type Grid } from './eval-state.js';
import { RangeLabelsetCheck, SameLabelsetCheck, type EvalNode, type MatrixNode, type ScalarNode, type StringNode, type VecNode } from './eval-node.js';
import { FUNCTIONS } from './functions/index.js';
import { FUNCTION_SIGNATURES } from './functions/signatures.js';
import type { FnArg, PromFunction, RangeFunction, SeriesWindow } from './functions/types.js';
import { compareLabels, dropMetricName, labelsFrom, type Labels } from './labels.js';
import { FetchPlan, firstAtOrAfter, lastAtOrBefore, MatrixSelectorSource, VectorSelectorEval, type RangeSource } from './selectors.js';
import { SeriesTable, StepVector } from './series-table.js';
import type { PromSource } from './source.js';
import { isStaleNaN, type Matrix, type QueryResult, type Sample, type Vector } from './values.js';

export interface EvalOptions {
  /** Instant query: startMs = endMs, stepMs = 0. */
  readonly startMs: number;
  readonly endMs: number;
  readonly stepMs: number;
  /** How far back an instant selector looks for a sample (default 5 minutes). */
  readonly lookbackMs: number;
  /** The most samples the query may hold at once (Prometheus's query.max-samples). */
  readonly maxSamples: number;
  /** Aborted on client disconnect or deadline: evaluation stops with PromqlError 'canceled'/'timeout'. */
  readonly signal?: AbortSignal;
}

/** Knobs tests and embedders set beside the public options. */
export interface EngineInternals {
  /** Function implementations (default: the library's FUNCTIONS). */
  readonly functions?: ReadonlyMap<string, PromFunction>;
  /** The step of `[range:]` subqueries (Prometheus: the global evaluation interval, 1m by default). */
  readonly noStepSubqueryIntervalMs?: number;
}

const DEFAULT_EVALUATION_INTERVAL_MS = 60_000;

/** The API's check of a range query's step against the points it would answer per series. */
export function checkResolution(startMs: number, endMs: number, stepMs: number): void {
  if (Math.trunc((endMs - startMs) / stepMs) > MAX_POINTS_PER_SERIES) {
    throw new PromqlError('bad_data', 'exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)');
  }
}

function unwrapParens(e: Expr): Expr {
  while (e.kind === 'paren') e = e.expr;
  return e;
}

/**
 * An instant query (stepMs 0) answers a vector, scalar, string or (for a range selector or
 * subquery) matrix; a range query answers a matrix (a string or range-vector expression is
 * refused, as Prometheus does).
 */
export async function evaluateQuery(expr: Expr, source: PromSource, opts: EvalOptions): Promise<QueryResult> {
  return evaluateQueryWith(expr, source, opts, {});
}

export async function evaluateQueryWith(expr: Expr, source: PromSource, opts: EvalOptions, internals: EngineInternals): Promise<QueryResult> {
  const type = typeOf(expr);
  const range = opts.stepMs > 0;
  if (range && type !== 'vector' && type !== 'scalar') {
    throw new PromqlError('bad_data', `invalid expression type ${JSON.stringify(documentedType(type))} for range query, must be Scalar or instant Vector`);
  }
  const start = opts.startMs;
  const end = range ? opts.endMs : opts.startMs;
  const state = new EvalState(
    opts.maxSamples,
    opts.lookbackMs,
    internals.functions ?? FUNCTIONS,
    internals.noStepSubqueryIntervalMs ?? DEFAULT_EVALUATION_INTERVAL_MS,
    opts.signal,
    start,
    end,
  );
  const plan = new FetchPlan();
  const grid: Grid = { start, end, interval: range ? opts.stepMs : 1 };
  const root = new Compiler(state, plan).compile(expr, grid);

  state.checkAborted();
  if (plan.size > 0) {
    try {
      await plan.fetchAll(source, state);
    } catch (err) {
      if (opts.signal?.aborted === true) throw abortError(opts.signal);
      throw err;
    }
  }
  state.checkAborted();
  // Subqueries (compiled inner first) are evaluated up front, yielding as they go.
  for (const sq of state.subqueries) await sq.prepareAsync();

  switch (root.type) {
    case 'string':
      return { type: 'string', t: start, v: root.value };
    case 'matrix':
      return { type: 'matrix', matrix: instantMatrix(root, start, state) };
    case 'scalar':
      if (!range) return { type: 'scalar', t: start, v: root.eval(start) };
      return { type: 'matrix', matrix: await rangeScalar(root, grid, state) };
    case 'vector':
      if (!range) {
        const out = root.eval(start);
        const vector: Vector = [];
        for (let i = 0; i < out.ids.length; i++) vector.push({ labels: out.table.labels[out.ids[i]!]!, t: start, v: out.vals[i]! });
        return { type: 'vector', vector };
      }
      return { type: 'matrix', matrix: await rangeVector(root, grid, state) };
  }
}

function instantMatrix(node: MatrixNode, t: number, state: EvalState): Matrix {
  const src = node.source;
  src.prepare();
  const end = src.windowEnd(t);
  const startW = end - src.rangeMs;
  const matrix: Matrix = [];
  for (let i = 0; i < src.seriesCount(); i++) {
    const ts = src.times(i);
    const from = firstAtOrAfter(ts, startW);
    const to = lastAtOrBefore(ts, end) + 1;
    if (to <= from) continue;
    // A subquery's points are counted already (held since it was evaluated).
    if (!(src instanceof SubquerySource)) state.add(to - from);
    const vs = src.values(i);
    const series = { labels: src.table.labels[i]!, t: [] as number[], v: [] as number[] };
    for (let j = from; j < to; j++) {
      series.t.push(ts[j]!);
      series.v.push(vs[j]!);
    }
    matrix.push(series);
  }
  return matrix.sort((a, b) => compareLabels(a.labels, b.labels));
}

async function rangeScalar(node: ScalarNode, grid: Grid, state: EvalState): Promise<Matrix> {
  const series = { labels: [] as Labels, t: [] as number[], v: [] as number[] };
  for (let t = grid.start; t <= grid.end; t += grid.interval) {
    await state.pause();
    state.checkAborted();
    state.current = state.held + series.t.length;
    const v = node.eval(t);
    state.add(1);
    series.t.push(t);
    series.v.push(v);
  }
  return [series];
}

async function rangeVector(node: VecNode, grid: Grid, state: EvalState): Promise<Matrix> {
  const ts: number[][] = [];
  const vs: number[][] = [];
  let held = 0;
  for (let t = grid.start; t <= grid.end; t += grid.interval) {
    await state.pause();
    state.checkAborted();
    state.current = state.held + held;
    const out = node.eval(t);
    for (let i = 0; i < out.ids.length; i++) {
      const id = out.ids[i]!;
      let st = ts[id];
      if (st === undefined) {
        st = [];
        ts[id] = st;
        vs[id] = [];
      }
      st.push(t);
      vs[id]!.push(out.vals[i]!);
    }
    held += out.length;
  }
  const matrix: Matrix = [];
  for (let id = 0; id < ts.length; id++) {
    if (ts[id] !== undefined) matrix.push({ labels: node.table.labels[id]!, t: ts[id]!, v: vs[id]! });
  }
  return matrix.sort((a, b) => compareLabels(a.labels, b.labels));
}

class ConstScalar implements ScalarNode {
  readonly type = 'scalar';
  constructor(private readonly value: number) {}
  eval(): number {
    return this.value;
  }
}

class NegScalar implements ScalarNode {
  readonly type = 'scalar';
  constructor(private readonly inner: ScalarNode) {}
  eval(t: number): number {
    return -this.inner.eval(t);
  }
}

class SelectorNode implements VecNode {
  readonly type = 'vector';
  constructor(readonly sel: VectorSelectorEval) {}
  get table(): SeriesTable {
    return this.sel.data.table;
  }
  eval(t: number): StepVector {
    return this.sel.eval(t);
  }
}

/** Unary minus: negates and drops `__name__` (the label-set check spans the whole range, as 2.42's). */
class NegVector implements VecNode {
  readonly type = 'vector';
  readonly table = new SeriesTable();
  private readonly out = new StepVector(this.table);
  private readonly outIdOf: number[] = [];
  private readonly check = new RangeLabelsetCheck();
  constructor(
    private readonly inner: VecNode,
    private readonly state: EvalState,
  ) {}
  eval(t: number): StepVector {
    const v = this.inner.eval(t);
    const out = this.out;
    out.clear();
    for (let i = 0; i < v.ids.length; i++) {
      const id = v.ids[i]!;
      let o = this.outIdOf[id];
      if (o === undefined) {
        o = this.table.intern(dropMetricName(v.table.labels[id]!));
        this.outIdOf[id] = o;
      }
      this.check.claim(o, id);
      out.push(o, -v.vals[i]!);
    }
    this.state.add(out.length);
    return out;
  }
}

/** A window handed to range functions; one object reused across series and steps. */
class Window implements SeriesWindow {
  labels: Labels = [];
  t: ArrayLike<number> = [];
  v: ArrayLike<number> = [];
  from = 0;
  to = 0;
  rangeStartMs = 0;
  rangeEndMs = 0;
}

/** A range function over a matrix selector or subquery: per series, per step, one window. */
class RangeCallNode implements VecNode {
  readonly type = 'vector';
  readonly table = new SeriesTable();
  private readonly out = new StepVector(this.table);
  private readonly outIdOf: number[] = [];
  private readonly check = new RangeLabelsetCheck();
  private readonly window = new Window();
  private readonly params: number[] = [];
  private prepared = false;
  constructor(
    private readonly fn: RangeFunction,
    private readonly src: RangeSource,
    private readonly paramNodes: readonly ScalarNode[],
    private readonly state: EvalState,
  ) {}
  eval(t: number): StepVector {
    for (let i = 0; i < this.paramNodes.length; i++) this.params[i] = this.paramNodes[i]!.eval(t);
    const src = this.src;
    if (!this.prepared) {
      src.prepare();
      this.prepared = true;
    }
    const out = this.out;
    out.clear();
    const end = src.windowEnd(t);
    const start = end - src.rangeMs;
    const w = this.window;
    w.rangeStartMs = start;
    w.rangeEndMs = end;
    const n = src.seriesCount();
    for (let i = 0; i < n; i++) {
      if ((i & 255) === 255) this.state.checkAborted();
      const ts = src.times(i);
      if (ts.length === 0) continue;
      const from = firstAtOrAfter(ts, start);
      const to = lastAtOrBefore(ts, end) + 1;
      if (to <= from) continue;
      this.state.add(to - from);
      w.labels = src.table.labels[i]!;
      w.t = ts;
      w.v = src.values(i);
      w.from = from;
      w.to = to;
      const value = this.fn.apply(w, this.params, t);
      // As 2.42 does, the output is counted while the window is still held.
      if (value !== undefined) this.state.add(1);
      this.state.current -= to - from;
      if (value === undefined) continue;
      let o = this.outIdOf[i];
      if (o === undefined) {
        o = this.table.intern(this.fn.dropsName ? dropMetricName(w.labels) : w.labels);
        this.outIdOf[i] = o;
      }
      this.check.claim(o, i);
      out.push(o, value);
    }
    return out;
  }
}

/** Prometheus's createLabelsForAbsentFunction: the labels fixed by `=` matchers, each named once. */
export function absentLabels(arg: Expr): Labels {
  const e = unwrapParens(arg);
  const sel = e.kind === 'vector' ? e : e.kind === 'matrix' ? e.selector : undefined;
  if (sel === undefined) return [];
  const out = new Map<string, string>();
  const has = new Set<string>();
  for (const m of sel.matchers) {
    if (m.name === '__name__') continue;
    if (m.type === '=' && !has.has(m.name)) {
      out.set(m.name, m.value);
      has.add(m.name);
    } else {
      out.delete(m.name);
    }
  }
  return labelsFrom(out);
}

/** absent_over_time: 1 (with the selector's fixed labels) at the steps where no series has a sample in its window. */
class AbsentOverTimeNode implements VecNode {
  readonly type = 'vector';
  readonly table = new SeriesTable();
  private readonly out = new StepVector(this.table);
  private readonly id: number;
  private prepared = false;
  constructor(
    private readonly src: RangeSource,
    labels: Labels,
    private readonly state: EvalState,
  ) {
    this.id = this.table.intern(labels);
  }
  eval(t: number): StepVector {
    if (!this.prepared) {
      this.src.prepare();
      this.prepared = true;
    }
    const out = this.out;
    out.clear();
    const end = this.src.windowEnd(t);
    const start = end - this.src.rangeMs;
    let present = false;
    for (let i = 0; i < this.src.seriesCount() && !present; i++) {
      const ts = this.src.times(i);
      present = lastAtOrBefore(ts, end) + 1 > firstAtOrAfter(ts, start);
    }
    if (!present) out.push(this.id, 1);
    this.state.add(out.length);
    return out;
  }
}

type ArgNode = VecNode | ScalarNode | StringNode;

function toSamples(v: StepVector, t: number, ownTimes: boolean): Vector {
  const out: Sample[] = new Array<Sample>(v.ids.length);
  for (let i = 0; i < v.ids.length; i++) out[i] = { labels: v.table.labels[v.ids[i]!]!, t: ownTimes ? v.times[i]! : t, v: v.vals[i]! };
  return out;
}

/** A function over instant vectors, scalars and strings, called once per step. */
class InstantCallNode {
  readonly table = new SeriesTable();
  private readonly out = new StepVector(this.table);
  private readonly ids = new WeakMap<Labels, number>();
  private readonly dup = new SameLabelsetCheck();
  private readonly args: FnArg[] = [];
  constructor(
    private readonly call: Call,
    private readonly fn: PromFunction & { kind: 'instant' },
    private readonly argNodes: readonly ArgNode[],
    private readonly state: EvalState,
    /** timestamp(selector): the selector, evaluated with its samples' own times. */
    private readonly timestampSel?: VectorSelectorEval,
  ) {}

  run(t: number): Vector {
    const args = this.args;
    if (this.timestampSel !== undefined) {
      args[0] = toSamples(this.timestampSel.eval(t), t, true);
    } else {
      for (let i = 0; i < this.argNodes.length; i++) {
        const a = this.argNodes[i]!;
        args[i] = a.type === 'string' ? a.value : a.type === 'scalar' ? a.eval(t) : toSamples(a.eval(t), t, false);
      }
    }
    return this.fn.apply(args, { evalTimeMs: t, args: this.call.args });
  }

  evalVector(t: number): StepVector {
    const res = this.run(t);
    const out = this.out;
    out.clear();
    for (const s of res) {
      let id = this.ids.get(s.labels);
      if (id === undefined) {
        id = this.table.intern(s.labels);
        this.ids.set(s.labels, id);
      }
      out.push(id, s.v);
    }
    this.dup.check(out);
    this.state.add(out.length);
    return out;
  }
}

/**
 * A subquery: its expression evaluated once over its own grid (times aligned to multiples of its
 * step, as 2.42 aligns them), then served as range windows.
 */
class SubquerySource implements RangeSource {
  readonly table: SeriesTable;
  private t: Float64Array[] = [];
  private v: Float64Array[] = [];
  private done = false;
  constructor(
    private readonly inner: VecNode | ScalarNode,
    private readonly grid: Grid,
    readonly rangeMs: number,
    private readonly offsetMs: number,
    private readonly atMs: number | undefined,
    private readonly state: EvalState,
  ) {
    this.table = inner.type === 'vector' ? inner.table : new SeriesTable();
    if (inner.type === 'scalar') this.table.add([]);
    state.subqueries.push(this);
  }

  /** Evaluates the inner expression on the subquery's grid (once). */
  prepare(): void {
    if (this.done) return;
    const run = this.begin();
    for (let t = this.grid.start; t <= this.grid.end; t += this.grid.interval) run.step(t);
    run.finish();
  }

  /** prepare() giving the event loop turns (the engine runs this before the steps of the query). */
  async prepareAsync(): Promise<void> {
    if (this.done) return;
    const run = this.begin();
    for (let t = this.grid.start; t <= this.grid.end; t += this.grid.interval) {
      await this.state.pause();
      run.step(t);
    }
    run.finish();
  }

  private begin(): { step(t: number): void; finish(): void } {
    this.done = true;
    const state = this.state;
    const base = state.current;
    const ts: number[][] = [];
    const vs: number[][] = [];
    let total = 0;
    const push = (id: number, t: number, v: number): void => {
      if (v !== v && isStaleNaN(v)) return;
      let st = ts[id];
      if (st === undefined) {
        st = [];
        ts[id] = st;
        vs[id] = [];
      }
      st.push(t);
      vs[id]!.push(v);
      total++;
    };
    return {
      step: (t) => {
        state.checkAborted();
        state.current = base + total;
        if (this.inner.type === 'scalar') {
          push(0, t, this.inner.eval(t));
        } else {
          const out = this.inner.eval(t);
          for (let i = 0; i < out.ids.length; i++) push(out.ids[i]!, t, out.vals[i]!);
        }
      },
      finish: () => {
        state.current = base;
        state.add(total);
        state.held += total;
        for (let id = 0; id < this.table.labels.length; id++) {
          this.t.push(Float64Array.from(ts[id] ?? []));
          this.v.push(Float64Array.from(vs[id] ?? []));
        }
      },
    };
  }

  seriesCount(): number {
    return this.t.length;
  }

  times(i: number): ArrayLike<number> {
    return this.t[i]!;
  }

  values(i: number): ArrayLike<number> {
    return this.v[i]!;
  }

  windowEnd(t: number): number {
    return (this.atMs ?? t) - this.offsetMs;
  }
}

/** Prometheus's AtModifierUnsafeFunctions: their answer depends on the evaluation time itself. */
const AT_UNSAFE = new Set(['days_in_month', 'day_of_month', 'day_of_week', 'day_of_year', 'hour', 'minute', 'month', 'year', 'predict_linear', 'time', 'timestamp']);

/**
 * Prometheus's preprocessExprHelper: a subtree is step-invariant when every selector in it is
 * pinned by `@` and no time-dependent function is on the way (an aggregation looks only at its
 * expression, not its parameter, as 2.42 does).
 */
export function isStepInvariant(e: Expr): boolean {
  switch (e.kind) {
    case 'number':
    case 'string':
      return true;
    case 'vector':
    case 'subquery':
      return e.at !== undefined;
    case 'matrix':
      return e.selector.at !== undefined;
    case 'paren':
    case 'unary':
    case 'aggregate':
      return isStepInvariant(e.expr);
    case 'binary':
      return isStepInvariant(e.lhs) && isStepInvariant(e.rhs);
    case 'call':
      return !AT_UNSAFE.has(e.func) && e.args.every(isStepInvariant);
  }
}

/** A step-invariant vector: evaluated once, at the first step; its samples counted at every step. */
class InvariantVector implements VecNode {
  readonly type = 'vector';
  private cached: StepVector | undefined;
  constructor(
    private readonly inner: VecNode,
    private readonly state: EvalState,
  ) {}
  get table(): SeriesTable {
    return this.inner.table;
  }
  eval(t: number): StepVector {
    if (this.cached === undefined) {
      this.cached = this.inner.eval(t);
      return this.cached;
    }
    this.state.add(this.cached.length);
    return this.cached;
  }
}

class InvariantScalar implements ScalarNode {
  readonly type = 'scalar';
  private cached: number | undefined;
  constructor(private readonly inner: ScalarNode) {}
  eval(t: number): number {
    this.cached ??= this.inner.eval(t);
    return this.cached;
  }
}

class Compiler {
  constructor(
    private readonly state: EvalState,
    private readonly plan: FetchPlan,
  ) {}

  private at(at: AtModifier | undefined): number | undefined {
    if (at === undefined) return undefined;
    if (at.kind === 'time') return at.ms;
    return at.kind === 'start' ? this.state.queryStart : this.state.queryEnd;
  }

  private selector(sel: VectorSelector, grid: Grid, rangeMs: number): { at: number | undefined; data: ReturnType<FetchPlan['need']> } {
    const at = this.at(sel.at);
    const first = (at ?? grid.start) - sel.offsetMs;
    const last = (at ?? grid.end) - sel.offsetMs;
    const back = rangeMs > 0 ? rangeMs : this.state.lookbackMs;
    return { at, data: this.plan.need(sel.matchers, first - back, last) };
  }

  private vectorSelector(sel: VectorSelector, grid: Grid): VectorSelectorEval {
    const { at, data } = this.selector(sel, grid, 0);
    return new VectorSelectorEval(data, sel.offsetMs, at, this.state);
  }

  private rangeSource(e: Expr, grid: Grid): RangeSource {
    if (e.kind === 'matrix') {
      const { at, data } = this.selector(e.selector, grid, e.rangeMs);
      return new MatrixSelectorSource(data, e.rangeMs, e.selector.offsetMs, at);
    }
    if (e.kind === 'subquery') return this.subquery(e, grid);
    throw new PromqlError('internal', `expected a range vector, got ${e.kind}`);
  }

  private subquery(sq: SubqueryExpr, grid: Grid): SubquerySource {
    const step = sq.stepMs > 0 ? sq.stepMs : this.state.noStepSubqueryIntervalMs;
    const at = this.at(sq.at);
    const end = (at ?? grid.end) - sq.offsetMs;
    const raw = (at ?? grid.start) - sq.offsetMs - sq.rangeMs;
    let start = step * Math.trunc(raw / step);
    if (start < raw) start += step;
    // The subquery's expression is a new evaluation: its invariant parts are cached on its own grid.
    const parent = this.inInvariant;
    this.inInvariant = false;
    let inner: EvalNode;
    try {
      inner = this.compile(sq.expr, { start, end, interval: step });
    } finally {
      this.inInvariant = parent;
    }
    if (inner.type !== 'vector' && inner.type !== 'scalar') throw new PromqlError('bad_data', `subquery is only allowed on instant vector, got ${documentedType(typeOf(sq.expr))} instead`);
    return new SubquerySource(inner, { start, end, interval: step }, sq.rangeMs, sq.offsetMs, at, this.state);
  }

  private scalar(e: Expr, grid: Grid): ScalarNode {
    const n = this.compile(e, grid);
    if (n.type !== 'scalar') throw new PromqlError('internal', `expected a scalar, got ${n.type}`);
    return n;
  }

  private vector(e: Expr, grid: Grid): VecNode {
    const n = this.compile(e, grid);
    if (n.type !== 'vector') throw new PromqlError('internal', `expected an instant vector, got ${n.type}`);
    return n;
  }

  /** Whether the node being built is inside a step-invariant subtree (already cached above). */
  private inInvariant = false;

  /**
   * Compiles an expression; a step-invariant subtree (Prometheus's StepInvariantExpr: everything
   * under it pinned by `@`) is evaluated at the first step and its answer reused at every other.
   */
  compile(e: Expr, grid: Grid): EvalNode {
    const parent = this.inInvariant;
    const inv = isStepInvariant(e);
    this.inInvariant = inv;
    let node: EvalNode;
    try {
      node = this.build(e, grid);
    } finally {
      this.inInvariant = parent;
    }
    if (!inv || parent || e.kind === 'number' || e.kind === 'string') return node;
    if (node.type === 'vector') return new InvariantVector(node, this.state);
    if (node.type === 'scalar') return new InvariantScalar(node);
    return node;
  }

  private build(e: Expr, grid: Grid): EvalNode {
    switch (e.kind) {
      case 'number':
        return new ConstScalar(e.value);
      case 'string':
        return { type: 'string', value: e.value };
      case 'paren':
        return this.compile(e.expr, grid);
      case 'vector':
        return new SelectorNode(this.vectorSelector(e, grid));
      case 'matrix':
      case 'subquery':
        return { type: 'matrix', source: this.rangeSource(e, grid) };
      case 'unary': {
        const inner = this.compile(e.expr, grid);
        if (e.op === '+') return inner;
        if (inner.type === 'scalar') return new NegScalar(inner);
        if (inner.type === 'vector') return new NegVector(inner, this.state);
        throw new PromqlError('bad_data', `unary expression only allowed on expressions of type scalar or instant vector, got ${JSON.stringify(documentedType(typeOf(e.expr)))}`);
      }
      case 'binary': {
        const lt = typeOf(e.lhs);
        const rt = typeOf(e.rhs);
        if (lt === 'scalar' && rt === 'scalar') return new ScalarBinaryNode(e.op, this.scalar(e.lhs, grid), this.scalar(e.rhs, grid));
        if (lt === 'vector' && rt === 'vector') return new VectorBinaryNode(e.op, this.vector(e.lhs, grid), this.vector(e.rhs, grid), e.matching, e.returnBool, this.state);
        if (lt === 'vector' && rt === 'scalar') return new VectorScalarNode(e.op, this.vector(e.lhs, grid), this.scalar(e.rhs, grid), false, e.returnBool, this.state);
        if (lt === 'scalar' && rt === 'vector') return new VectorScalarNode(e.op, this.vector(e.rhs, grid), this.scalar(e.lhs, grid), true, e.returnBool, this.state);
        throw new PromqlError('bad_data', `binary expression must contain only scalar and instant vector types`);
      }
      case 'aggregate': {
        let param: ScalarNode | StringNode | undefined;
        if (e.param !== undefined) {
          const p = this.compile(e.param, grid);
          if (p.type !== 'scalar' && p.type !== 'string') throw new PromqlError('bad_data', `expected type scalar in aggregation parameter, got ${documentedType(typeOf(e.param))}`);
          param = p;
        }
        return new AggregateNode(e.op, this.vector(e.expr, grid), param, e.grouping, e.without, this.state);
      }
      case 'call':
        return this.call(e, grid);
    }
  }

  private call(e: Call, grid: Grid): EvalNode {
    const sig = FUNCTION_SIGNATURES.get(e.func);
    if (sig === undefined) throw new PromqlError('bad_data', `unknown function with name ${JSON.stringify(e.func)}`);
    const rangeIdx = e.args.findIndex((a) => {
      const u = unwrapParens(a);
      return u.kind === 'matrix' || u.kind === 'subquery';
    });
    if (rangeIdx >= 0 && e.func === 'absent_over_time') {
      return new AbsentOverTimeNode(this.rangeSource(unwrapParens(e.args[rangeIdx]!), grid), absentLabels(e.args[rangeIdx]!), this.state);
    }
    const fn = this.state.functions.get(e.func);
    if (fn === undefined) throw new PromqlError('internal', `function ${JSON.stringify(e.func)} is not implemented`);
    if (rangeIdx >= 0) {
      if (fn.kind !== 'range') throw new PromqlError('internal', `function ${JSON.stringify(e.func)} takes a range vector but is not a range function`);
      const params: ScalarNode[] = [];
      e.args.forEach((a, i) => {
        if (i !== rangeIdx) params.push(this.scalar(a, grid));
      });
      const src = this.rangeSource(unwrapParens(e.args[rangeIdx]!), grid);
      return new RangeCallNode(fn, src, params, this.state);
    }
    if (fn.kind !== 'instant') throw new PromqlError('internal', `function ${JSON.stringify(e.func)} is a range function but has no range vector argument`);
    let timestampSel: VectorSelectorEval | undefined;
    const args: ArgNode[] = [];
    const first = e.args[0] === undefined ? undefined : unwrapParens(e.args[0]);
    if (e.func === 'timestamp' && first?.kind === 'vector') {
      timestampSel = this.vectorSelector(first, grid);
    } else {
      for (const a of e.args) {
        const n = this.compile(a, grid);
        if (n.type === 'matrix') throw new PromqlError('internal', `unexpected range vector argument to ${e.func}`);
        args.push(n);
      }
    }
    const node = new InstantCallNode(e, fn, args, this.state, timestampSel);
    if (sig.returnType === 'scalar') {
      return {
        type: 'scalar',
        eval: (t: number): number => {
          const res = node.run(t);
          return res.length > 0 ? res[0]!.v : Number.NaN;
        },
      };
    }
    return { type: 'vector', table: node.table, eval: (t: number): StepVector => node.evalVector(t) };
  }
}
