/**
 * Selectors: the fetch plan (each distinct matcher set read once from the PromSource over the
 * union of the time ranges its uses need), instant vector selection (lookback, staleness,
 * offset, `@`) and the range windows matrix selectors and subqueries hand to range functions.
 */
import type { LabelMatcher } from './ast.js';
import { compareLabels } from './labels.js';
import type { EvalState } from './eval-state.js';
import { SeriesTable, StepVector } from './series-table.js';
import type { PromSource, SeriesData } from './source.js';
import { isStaleNaN } from './values.js';

/** The samples of one distinct selector, fetched once for the whole query. */
export class SelectorData {
  readonly table = new SeriesTable();
  t: Float64Array[] = [];
  v: Float64Array[] = [];
  private cleanT: Float64Array[] | undefined;
  private cleanV: Float64Array[] | undefined;

  constructor(
    readonly matchers: readonly LabelMatcher[],
    public startMs: number,
    public endMs: number,
  ) {}

  /** Samples without stale markers (what range windows see), computed once. */
  clean(): { t: Float64Array[]; v: Float64Array[] } {
    if (this.cleanT === undefined || this.cleanV === undefined) {
      this.cleanT = [];
      this.cleanV = [];
      for (let i = 0; i < this.t.length; i++) {
        const [t, v] = withoutStale(this.t[i]!, this.v[i]!);
        this.cleanT.push(t);
        this.cleanV.push(v);
      }
    }
    return { t: this.cleanT, v: this.cleanV };
  }
}

function withoutStale(t: Float64Array, v: Float64Array): [Float64Array, Float64Array] {
  let stale = 0;
  for (let i = 0; i < v.length; i++) if (v[i] !== v[i] && isStaleNaN(v[i]!)) stale++;
  if (stale === 0) return [t, v];
  const nt = new Float64Array(v.length - stale);
  const nv = new Float64Array(v.length - stale);
  let j = 0;
  for (let i = 0; i < v.length; i++) {
    if (v[i] !== v[i] && isStaleNaN(v[i]!)) continue;
    nt[j] = t[i]!;
    nv[j++] = v[i]!;
  }
  return [nt, nv];
}

function matchersKey(matchers: readonly LabelMatcher[]): string {
  return matchers
    .map((m) => `${m.name}\u0000${m.type}\u0000${m.value}`)
    .sort()
    .join('\u0001');
}

/** The selectors a query reads, merged by matcher set. */
export class FetchPlan {
  private readonly byKey = new Map<string, SelectorData>();

  /** Registers that samples of `matchers` in [startMs, endMs] are needed. */
  need(matchers: readonly LabelMatcher[], startMs: number, endMs: number): SelectorData {
    const key = matchersKey(matchers);
    const have = this.byKey.get(key);
    if (have !== undefined) {
      have.startMs = Math.min(have.startMs, startMs);
      have.endMs = Math.max(have.endMs, endMs);
      return have;
    }
    const d = new SelectorData(matchers, startMs, endMs);
    this.byKey.set(key, d);
    return d;
  }

  get size(): number {
    return this.byKey.size;
  }

  /**
   * Reads every selector once; series in Prometheus's order (sorted by labels). All together when
   * the source can (`selectAll`: one SQL statement), else one after the other: each read is an SQL
   * query holding a slot of the query limiter, and a query with more selectors than slots must not
   * wait for slots its own reads hold.
   */
  async fetchAll(source: PromSource, state: EvalState): Promise<void> {
    state.checkAborted();
    const data = [...this.byKey.values()];
    const reqs = data.map((d) => ({
      matchers: d.matchers,
      startMs: d.startMs,
      endMs: d.endMs,
      ...(state.signal !== undefined ? { signal: state.signal } : {}),
      maxSamples: state.maxSamples,
    }));
    let answers: SeriesData[][];
    if (source.selectAll !== undefined && reqs.length > 0) answers = await source.selectAll(reqs);
    else {
      answers = [];
      for (const req of reqs) {
        state.checkAborted();
        answers.push(await source.select(req));
      }
    }
    data.forEach((d, i) => {
      const sorted = [...answers[i]!].sort((a, b) => compareLabels(a.labels, b.labels));
      for (const s of sorted) {
        d.table.add(s.labels);
        d.t.push(s.t);
        d.v.push(s.v);
      }
    });
  }
}

/** The index of the last element ≤ x (-1 when none). */
export function lastAtOrBefore(a: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** The index of the first element ≥ x (a.length when none). */
export function firstAtOrAfter(a: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * An instant vector selector: per series the latest sample in [ref - lookback, ref] where ref is
 * the step time (or the `@` time) minus the offset; nothing when that sample is a stale marker.
 */
export class VectorSelectorEval {
  readonly out: StepVector;
  /** Per series, the index answered at the last step (the next step starts there). */
  private readonly pos: number[] = [];
  private lastRef = Number.NEGATIVE_INFINITY;

  constructor(
    readonly data: SelectorData,
    private readonly offsetMs: number,
    private readonly atMs: number | undefined,
    private readonly state: EvalState,
  ) {
    this.out = new StepVector(data.table);
  }

  eval(t: number): StepVector {
    const out = this.out;
    out.clear();
    const ref = (this.atMs ?? t) - this.offsetMs;
    const from = ref - this.state.lookbackMs;
    const ts = this.data.t;
    const vs = this.data.v;
    const pos = this.pos;
    const forward = ref >= this.lastRef;
    this.lastRef = ref;
    for (let i = 0; i < ts.length; i++) {
      if ((i & 255) === 255) this.state.checkAborted();
      const st = ts[i]!;
      // Steps move forward: a few samples past the last answer, else a binary search.
      let idx = forward ? (pos[i] ?? -1) : -1;
      let hops = 0;
      if (forward) while (idx + 1 < st.length && st[idx + 1]! <= ref && hops++ < 8) idx++;
      if (!forward || (hops > 8 && idx + 1 < st.length && st[idx + 1]! <= ref)) idx = lastAtOrBefore(st, ref);
      pos[i] = idx;
      if (idx < 0 || st[idx]! < from) continue;
      const v = vs[i]![idx]!;
      if (v !== v && isStaleNaN(v)) continue;
      out.push(i, v);
      out.times.push(st[idx]!);
    }
    this.state.add(out.length);
    return out;
  }
}

/** Where range windows come from: a matrix selector's samples or a subquery's evaluated points. */
export interface RangeSource {
  readonly table: SeriesTable;
  readonly rangeMs: number;
  /** Loads (subquery: evaluates) the series before the first window. */
  prepare(): void;
  seriesCount(): number;
  times(i: number): ArrayLike<number>;
  values(i: number): ArrayLike<number>;
  /** The window's end for the step at t (the window is [end - range, end], both included). */
  windowEnd(t: number): number;
}

export class MatrixSelectorSource implements RangeSource {
  private t: Float64Array[] = [];
  private v: Float64Array[] = [];

  constructor(
    readonly data: SelectorData,
    readonly rangeMs: number,
    private readonly offsetMs: number,
    private readonly atMs: number | undefined,
  ) {}

  get table(): SeriesTable {
    return this.data.table;
  }

  prepare(): void {
    const c = this.data.clean();
    this.t = c.t;
    this.v = c.v;
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
