/**
 * Aggregation operators as Prometheus 2.42's `aggregation()` computes them, per step, over the
 * input's series grouped by `by`/`without` (groups cached per input series): NaN-aware min/max,
 * avg's care with infinities, Welford stddev/stdvar, Go's heap order for topk/bottomk, quantile's
 * interpolation and count_values' label validation and value spelling.
 */
import { METRIC_NAME, type AggregateOp } from './ast.js';
import { PromqlError } from './errors.js';
import type { EvalState } from './eval-state.js';
import type { ScalarNode, StringNode, VecNode } from './eval-node.js';
import { formatFloatF, formatFloatV, goQuote } from './go-format.js';
import { withLabel, type Labels } from './labels.js';
import { SeriesTable, StepVector } from './series-table.js';

interface Entry {
  id: number;
  v: number;
}

type Less = (h: Entry[], i: number, j: number) => boolean;

/** vectorByValueHeap.Less: NaN first, then ascending. */
const lessAsc: Less = (h, i, j) => Number.isNaN(h[i]!.v) || h[i]!.v < h[j]!.v;
/** vectorByReverseValueHeap.Less: NaN first, then descending. */
const lessDesc: Less = (h, i, j) => Number.isNaN(h[i]!.v) || h[i]!.v > h[j]!.v;

function swap(h: Entry[], i: number, j: number): void {
  const x = h[i]!;
  h[i] = h[j]!;
  h[j] = x;
}

// Go's container/heap, so ties and NaNs come out as Prometheus's do.
function heapUp(h: Entry[], j: number, less: Less): void {
  for (;;) {
    const i = Math.trunc((j - 1) / 2);
    if (i === j || !less(h, j, i)) break;
    swap(h, i, j);
    j = i;
  }
}

function heapDown(h: Entry[], i0: number, n: number, less: Less): void {
  let i = i0;
  for (;;) {
    const j1 = 2 * i + 1;
    if (j1 >= n || j1 < 0) break;
    let j = j1;
    const j2 = j1 + 1;
    if (j2 < n && less(h, j2, j1)) j = j2;
    if (!less(h, j, i)) break;
    swap(h, i, j);
    i = j;
  }
}

function heapPush(h: Entry[], e: Entry, less: Less): void {
  h.push(e);
  heapUp(h, h.length - 1, less);
}

function heapPop(h: Entry[], less: Less): void {
  const n = h.length - 1;
  swap(h, 0, n);
  heapDown(h, 0, n, less);
  h.pop();
}

/** sort.Sort(sort.Reverse(h)): Go's insertion sort for the small slices topk mostly sees. */
function sortReverse(h: Entry[], less: Less): void {
  if (h.length <= 12) {
    for (let i = 1; i < h.length; i++) for (let j = i; j > 0 && less(h, j - 1, j); j--) swap(h, j, j - 1);
    return;
  }
  const copy = [...h];
  copy.sort((a, b) => {
    const pair = [a, b];
    if (less(pair, 1, 0)) return -1;
    if (less(pair, 0, 1)) return 1;
    return 0;
  });
  for (let i = 0; i < copy.length; i++) h[i] = copy[i]!;
}

/** Prometheus's quantile() over a group's values (sorted NaN first). */
export function quantileOf(q: number, values: number[]): number {
  if (values.length === 0 || Number.isNaN(q)) return Number.NaN;
  if (q < 0) return Number.NEGATIVE_INFINITY;
  if (q > 1) return Number.POSITIVE_INFINITY;
  values.sort((a, b) => (Number.isNaN(a) ? (Number.isNaN(b) ? 0 : -1) : Number.isNaN(b) ? 1 : a - b));
  const n = values.length;
  const rank = q * (n - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(n - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  return values[lower]! * (1 - weight) + values[upper]! * weight;
}

const MAX_INT64 = 9223372036854775807;
const MIN_INT64 = -9223372036854775808;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** The labels of a series' group. */
function groupLabels(labels: Labels, grouping: ReadonlySet<string>, without: boolean): Labels {
  if (without) return labels.filter((l) => !grouping.has(l.name) && l.name !== METRIC_NAME);
  if (grouping.size === 0) return [];
  return labels.filter((l) => grouping.has(l.name));
}

export class AggregateNode implements VecNode {
  readonly type = 'vector';
  readonly table = new SeriesTable();
  private readonly out = new StepVector(this.table);
  private readonly grouping: ReadonlySet<string>;
  private readonly groupOf: number[] = [];
  /** topk/bottomk answer the input series: input id → output id. */
  private readonly passOf: number[] = [];
  // Per-group state, indexed by output id, valid when seen[g] === stamp.
  private readonly seen: number[] = [];
  private stamp = 0;
  private readonly value: number[] = [];
  private readonly mean: number[] = [];
  private readonly count: number[] = [];
  private readonly lists: (Entry[] | number[])[] = [];
  private readonly active: number[] = [];

  constructor(
    private readonly op: AggregateOp,
    private readonly input: VecNode,
    private readonly param: ScalarNode | StringNode | undefined,
    grouping: readonly string[],
    private readonly without: boolean,
    private readonly state: EvalState,
  ) {
    this.grouping = new Set(grouping);
  }

  eval(t: number): StepVector {
    // Prometheus evaluates the parameter before the aggregated expression.
    const p = this.param === undefined ? 0 : this.param.type === 'scalar' ? this.param.eval(t) : this.param.value;
    const vec = this.input.eval(t);
    const out = this.out;
    out.clear();
    if (this.op === 'count_values') this.countValues(vec, p as string);
    else this.aggregate(vec, p as number);
    this.state.add(out.length);
    return out;
  }

  private group(vec: StepVector, i: number): number {
    const id = vec.ids[i]!;
    let g = this.groupOf[id];
    if (g === undefined) {
      g = this.table.intern(groupLabels(vec.table.labels[id]!, this.grouping, this.without));
      this.groupOf[id] = g;
    }
    return g;
  }

  private aggregate(vec: StepVector, p: number): void {
    const op = this.op;
    let k = 0;
    if (op === 'topk' || op === 'bottomk') {
      if (!(p <= MAX_INT64 && p >= MIN_INT64)) throw new PromqlError('execution', `Scalar value ${formatFloatV(p)} overflows int64`);
      k = Math.trunc(p);
      if (k < 1) return;
    }
    const less = op === 'bottomk' ? lessDesc : lessAsc;
    const stamp = ++this.stamp;
    const active = this.active;
    active.length = 0;
    const { value, mean, count, seen, lists } = this;
    for (let i = 0; i < vec.ids.length; i++) {
      const v = vec.vals[i]!;
      const g = this.group(vec, i);
      if (seen[g] !== stamp) {
        seen[g] = stamp;
        active.push(g);
        value[g] = v;
        mean[g] = v;
        count[g] = 1;
        if (op === 'stddev' || op === 'stdvar') value[g] = 0;
        else if (op === 'group') value[g] = 1;
        else if (op === 'topk' || op === 'bottomk') lists[g] = [{ id: vec.ids[i]!, v }];
        else if (op === 'quantile') lists[g] = [v];
        continue;
      }
      switch (op) {
        case 'sum':
          value[g] = value[g]! + v;
          break;
        case 'avg': {
          const c = count[g]! + 1;
          count[g] = c;
          const m = mean[g]!;
          if (m === Number.POSITIVE_INFINITY || m === Number.NEGATIVE_INFINITY) {
            if ((v === Number.POSITIVE_INFINITY || v === Number.NEGATIVE_INFINITY) && m > 0 === v > 0) break;
            if (Number.isFinite(v)) break;
          }
          mean[g] = m + (v / c - m / c);
          break;
        }
        case 'group':
          break;
        case 'max':
          if (value[g]! < v || Number.isNaN(value[g]!)) value[g] = v;
          break;
        case 'min':
          if (value[g]! > v || Number.isNaN(value[g]!)) value[g] = v;
          break;
        case 'count':
          count[g] = count[g]! + 1;
          break;
        case 'stddev':
        case 'stdvar': {
          const c = count[g]! + 1;
          count[g] = c;
          const delta = v - mean[g]!;
          mean[g] = mean[g]! + delta / c;
          value[g] = value[g]! + delta * (v - mean[g]!);
          break;
        }
        case 'topk':
        case 'bottomk': {
          const h = lists[g] as Entry[];
          const better = op === 'topk' ? h[0]!.v < v : h[0]!.v > v;
          if (h.length < k || better || Number.isNaN(h[0]!.v)) {
            if (h.length === k) {
              if (k === 1) {
                h[0] = { id: vec.ids[i]!, v };
                break;
              }
              heapPop(h, less);
            }
            heapPush(h, { id: vec.ids[i]!, v }, less);
          }
          break;
        }
        case 'quantile':
          (lists[g] as number[]).push(v);
          break;
        default:
          throw new PromqlError('internal', `unexpected aggregation ${op}`);
      }
    }
    const out = this.out;
    for (const g of active) {
      switch (op) {
        case 'avg':
          out.push(g, mean[g]!);
          break;
        case 'count':
          out.push(g, count[g]!);
          break;
        case 'stdvar':
          out.push(g, value[g]! / count[g]!);
          break;
        case 'stddev':
          out.push(g, Math.sqrt(value[g]! / count[g]!));
          break;
        case 'topk':
        case 'bottomk': {
          const h = lists[g] as Entry[];
          if (h.length > 1) sortReverse(h, less);
          for (const e of h) out.push(this.pass(vec.table, e.id), e.v);
          break;
        }
        case 'quantile':
          out.push(g, quantileOf(p, lists[g] as number[]));
          break;
        default:
          out.push(g, value[g]!);
      }
    }
  }

  private pass(table: SeriesTable, id: number): number {
    let o = this.passOf[id];
    if (o === undefined) {
      o = this.table.intern(table.labels[id]!);
      this.passOf[id] = o;
    }
    return o;
  }

  /** count_values: the value (as Go's 'f' -1 format) becomes a label of the group. */
  private countValues(vec: StepVector, valueLabel: string): void {
    if (!LABEL_NAME.test(valueLabel)) throw new PromqlError('execution', `invalid label name ${goQuote(valueLabel)}`);
    const grouping = this.without ? this.grouping : new Set([...this.grouping, valueLabel]);
    const stamp = ++this.stamp;
    const active = this.active;
    active.length = 0;
    for (let i = 0; i < vec.ids.length; i++) {
      const labels = withLabel(vec.table.labels[vec.ids[i]!]!, valueLabel, formatFloatF(vec.vals[i]!));
      const g = this.table.intern(groupLabels(labels, grouping, this.without));
      if (this.seen[g] !== stamp) {
        this.seen[g] = stamp;
        this.count[g] = 1;
        active.push(g);
      } else {
        this.count[g] = this.count[g]! + 1;
      }
    }
    for (const g of active) this.out.push(g, this.count[g]!);
  }
}
