/**
 * The table a TQL result becomes, shaped as GreptimeDB shapes it (its sqlness cases under
 * tests/cases/standalone/common/tql): GreptimeDB plans PromQL as DataFusion plans, so its column
 * names and order are those of the plan's last projection. tsdb reproduces the common shapes:
 *
 * - a selector (`test`, `test{k="a"}`): the table's own columns in table order — time index, the
 *   value field, tags (other fields left out: a PromQL sample has one value);
 * - a selector with `__field__`, or any expression with `AS alias`: value, tags, time index;
 * - an aggregation: its grouping labels, time index, value (`sum(test.i)`, `sum(prom_rate(…))`);
 * - a range function: time index, value (`prom_rate(ts_range,val,ts,Int64(60000))`,
 *   `prom_max_over_time(ts_range,val)`, `prom_quantile_over_time(ts_range,val,Float64(0.5))`), tags;
 * - a binary operation: the shape of its vector side, the value named `val * Float64(2)`,
 *   `lhs.a / rhs.b`, `cpu.sum(…) + mem.sum(…)`, `atan2(y.val,x.val)`;
 * - no table (literals, `time()`), and an empty answer when no table matched: `time | value`.
 *
 * The time column is TimestampMillisecond whatever the table's unit (GreptimeDB casts the time
 * index to milliseconds in its PromQL plans), values Float64, labels String (NULL when a series
 * lacks the label).
 */
import type { AggregateExpr, Call, Expr, VectorSelector } from '../../promql/ast.js';
import { METRIC_NAME } from '../../promql/ast.js';
import { defaultValueField, FIELD_MATCHER, labelTags, numericFields } from '../promql-source.js';
import type { TableSummary } from '../table-summary.js';


/** Functions over range vectors (their value named `prom_<fn>(<ts>_range,<field>…)`). */
const RANGE_FUNCTIONS = new Set([
  'rate', 'irate', 'increase', 'delta', 'idelta', 'deriv', 'changes', 'resets', 'predict_linear', 'holt_winters', 'double_exponential_smoothing',
  'avg_over_time', 'min_over_time', 'max_over_time', 'sum_over_time', 'count_over_time', 'quantile_over_time', 'stddev_over_time', 'stdvar_over_time',
  'last_over_time', 'present_over_time', 'absent_over_time', 'mad_over_time',
]);
/** Range functions whose GreptimeDB name also carries the time index and the range (extrapolating ones). */
const EXTRAPOLATED = new Set(['rate', 'increase', 'delta']);

/** What a selector reads: its table (when it exists) and value field. */
export interface SelectorTable {
  readonly name: string;
  readonly database?: string;
  readonly summary?: TableSummary;
}

export function unwrap(e: Expr): Expr {
  return e.kind === 'paren' ? unwrap(e.expr) : e;
}

/** The equality value of matcher `name` on a selector, if any. */
export function matcherValue(sel: VectorSelector, name: string): string | undefined {
  return sel.matchers.find((m) => m.name === name && m.type === '=')?.value;
}

/** The selectors of an expression, left to right. */
export function selectorsOf(e: Expr, out: VectorSelector[] = []): VectorSelector[] {
  switch (e.kind) {
    case 'vector':
      out.push(e);
      break;
    case 'matrix':
      out.push(e.selector);
      break;
    case 'subquery':
    case 'paren':
    case 'unary':
      selectorsOf(e.expr, out);
      break;
    case 'call':
      for (const a of e.args) selectorsOf(a, out);
      break;
    case 'aggregate':
      if (e.param !== undefined) selectorsOf(e.param, out);
      selectorsOf(e.expr, out);
      break;
    case 'binary':
      selectorsOf(e.lhs, out);
      selectorsOf(e.rhs, out);
      break;
    default:
      break;
  }
  return out;
}

/** The value field a selector reads from its table (as `SqlPromSource` picks it). */
function fieldOf(sel: VectorSelector, t: TableSummary | undefined): string {
  const chosen = matcherValue(sel, FIELD_MATCHER);
  if (chosen !== undefined) return chosen;
  return (t === undefined ? undefined : defaultValueField(numericFields(t))) ?? 'value';
}

function timeIndexOf(t: TableSummary | undefined): string {
  return t?.columns.find((c) => c.semantic === 'timestamp')?.name ?? 'time';
}

function tagsOf(t: TableSummary | undefined): string[] {
  return t === undefined ? [] : labelTags(t).map((c) => c.name);
}

/** A number as DataFusion prints a Float64 literal (`Float64(1)`, `Float64(0.0015)`). */
function float64(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e21) return `Float64(${BigInt(v).toString()})`;
  return `Float64(${String(v)})`;
}

/** How the result's columns are laid out. */
type Layout = 'table' | 'field' | 'tags-time-value' | 'time-value-tags' | 'plain';

export interface ResultShape {
  /** `time` when no table is read. */
  readonly timeName: string;
  readonly valueName: string;
  /** Labels known before the answer (table tags, grouping labels), in GreptimeDB's order. */
  readonly tags: readonly string[];
  readonly layout: Layout;
  /** For the table layout: the table's column order of time, value and tags. */
  readonly order?: readonly string[];
}

/** Works out names and layout of the result of `expr` (`tables` by selector). */
export class ShapeOf {
  constructor(private readonly tables: ReadonlyMap<VectorSelector, SelectorTable>) {}

  private table(sel: VectorSelector): TableSummary | undefined {
    return this.tables.get(sel)?.summary;
  }

  /** The first selector with a table: its time index names the result's time column. */
  private primary(e: Expr): VectorSelector | undefined {
    return selectorsOf(e).find((s) => this.table(s) !== undefined);
  }

  shape(expr: Expr, alias: string | undefined): ResultShape {
    const e = unwrap(expr);
    const primary = this.primary(e);
    if (primary === undefined) return { timeName: 'time', valueName: alias ?? 'value', tags: this.labels(e) ?? [], layout: 'plain' };
    const t = this.table(primary);
    const timeName = timeIndexOf(t);
    const tags = this.labels(e) ?? [];
    if (alias !== undefined) return { timeName, valueName: alias, tags, layout: 'field' };
    const layout = this.layout(e);
    const valueName = this.name(e, false);
    if (layout === 'table') {
      const sel = e.kind === 'vector' ? e : primary;
      const field = fieldOf(sel, this.table(sel));
      const order = (this.table(sel)?.columns ?? []).map((c) => c.name).filter((n) => n === timeName || n === field || tags.includes(n));
      return { timeName, valueName, tags, layout, order: order.map((n) => (n === field ? valueName : n)) };
    }
    return { timeName, valueName, tags, layout };
  }

  private layout(e: Expr): Layout {
    switch (e.kind) {
      case 'vector':
        return matcherValue(e, FIELD_MATCHER) !== undefined ? 'field' : 'table';
      case 'aggregate':
        return 'tags-time-value';
      case 'call':
        if (RANGE_FUNCTIONS.has(e.func)) return 'time-value-tags';
        {
          const arg = e.args.find((a) => selectorsOf(a).length > 0);
          return arg === undefined ? 'plain' : this.layout(unwrap(arg));
        }
      case 'binary': {
        const side = selectorsOf(e.lhs).length > 0 ? e.lhs : e.rhs;
        return this.layout(unwrap(side));
      }
      case 'unary':
      case 'paren':
        return this.layout(unwrap(e.expr));
      case 'subquery':
      case 'matrix':
        return 'time-value-tags';
      default:
        return 'plain';
    }
  }

  /** GreptimeDB's name of the value of `e`; `qualified`: a bare selector's field as `table.field`. */
  name(expr: Expr, qualified: boolean): string {
    const e = unwrap(expr);
    switch (e.kind) {
      case 'number':
        return float64(e.value);
      case 'string':
        return `Utf8("${e.value}")`;
      case 'vector': {
        const field = fieldOf(e, this.table(e));
        return qualified ? `${this.tables.get(e)?.name ?? e.name ?? ''}.${field}` : field;
      }
      case 'matrix':
        return this.name(e.selector, qualified);
      case 'subquery':
        return this.name(e.expr, qualified);
      case 'unary':
        return e.op === '-' ? `(- ${this.name(e.expr, qualified)})` : this.name(e.expr, qualified);
      case 'call':
        return this.callName(e);
      case 'aggregate':
        return this.aggregateName(e);
      case 'binary': {
        const l = unwrap(e.lhs);
        const r = unwrap(e.rhs);
        const lv = selectorsOf(l).length > 0;
        const rv = selectorsOf(r).length > 0;
        if (lv && rv) {
          const ls = selectorsOf(l)[0]!;
          const rs = selectorsOf(r)[0]!;
          const lt = this.tables.get(ls)?.name ?? ls.name ?? '';
          const rt = this.tables.get(rs)?.name ?? rs.name ?? '';
          const [lq, rq] = lt === rt ? ['lhs', 'rhs'] : [lt, rt];
          if (e.op === 'atan2') return `atan2(${lq}.${this.name(l, false)},${rq}.${this.name(r, false)})`;
          return `${lq}.${this.name(l, false)} ${e.op} ${rq}.${this.name(r, false)}`;
        }
        if (e.op === 'atan2') return `atan2(${this.name(l, qualified)},${this.name(r, qualified)})`;
        return `${this.name(l, false)} ${e.op} ${this.name(r, false)}`;
      }
      default:
        return 'value';
    }
  }

  private callName(e: Call): string {
    if (RANGE_FUNCTIONS.has(e.func)) {
      const m = e.args.map(unwrap).find((a) => a.kind === 'matrix' || a.kind === 'subquery');
      const sel = m?.kind === 'matrix' ? m.selector : undefined;
      const t = sel !== undefined ? this.table(sel) : undefined;
      const ts = timeIndexOf(t);
      const field = sel !== undefined ? fieldOf(sel, t) : m !== undefined ? this.name(m, false) : 'value';
      const params = e.args.map(unwrap).filter((a) => a.kind === 'number').map((a) => float64((a as { value: number }).value));
      const extra = EXTRAPOLATED.has(e.func) && m?.kind === 'matrix' ? [ts, `Int64(${m.rangeMs})`] : [];
      return `prom_${e.func}(${[`${ts}_range`, field, ...extra, ...params].join(',')})`;
    }
    const arg = e.args.find((a) => selectorsOf(a).length > 0);
    return arg === undefined ? `${e.func}()` : `${e.func}(${this.name(arg, false)})`;
  }

  private aggregateName(e: AggregateExpr): string {
    const inner = unwrap(e.expr);
    if (e.op === 'topk' || e.op === 'bottomk') return this.name(inner, false);
    const op = e.op === 'count_values' ? 'count' : e.op;
    return `${op}(${this.name(inner, inner.kind === 'vector')})`;
  }

  /** The labels of the series of `e`, as far as they are known without the answer. */
  labels(expr: Expr): string[] | undefined {
    const e = unwrap(expr);
    switch (e.kind) {
      case 'vector':
        return tagsOf(this.table(e));
      case 'matrix':
        return tagsOf(this.table(e.selector));
      case 'subquery':
      case 'unary':
      case 'paren':
        return this.labels(e.expr);
      case 'call': {
        if (e.func === 'vector' || e.func === 'absent' || e.func === 'absent_over_time' || e.func === 'time' || e.func === 'pi' || e.func === 'scalar') return [];
        const arg = e.args.find((a) => selectorsOf(a).length > 0);
        const base = arg === undefined ? [] : (this.labels(arg) ?? []);
        if (e.func === 'label_replace' || e.func === 'label_join') {
          const dst = unwrap(e.args[1]!);
          if (dst.kind === 'string' && dst.value !== '' && !base.includes(dst.value)) return [...base, dst.value];
        }
        return base;
      }
      case 'aggregate': {
        const input = this.labels(e.expr) ?? [];
        if (e.op === 'topk' || e.op === 'bottomk') return input;
        let out = e.without ? input.filter((l) => !e.grouping.includes(l)) : e.grouping.filter((l) => input.includes(l));
        if (e.op === 'count_values') {
          const p = e.param !== undefined ? unwrap(e.param) : undefined;
          if (p?.kind === 'string' && !out.includes(p.value)) out = [...out, p.value];
        }
        return out;
      }
      case 'binary': {
        const lv = selectorsOf(e.lhs).length > 0;
        const rv = selectorsOf(e.rhs).length > 0;
        if (!lv || !rv) return this.labels(lv ? e.lhs : e.rhs);
        const l = this.labels(e.lhs) ?? [];
        const r = this.labels(e.rhs) ?? [];
        if (e.op === 'or') return [...l, ...r.filter((x) => !l.includes(x))];
        if (e.op === 'and' || e.op === 'unless') return l;
        const m = e.matching;
        const one = m?.card === 'one-to-many' ? r : l;
        const include = m?.include ?? [];
        if (m?.on === true && m.card === 'one-to-one') return m.labels.filter((x) => l.includes(x) || r.includes(x));
        const base = m?.on === false ? one.filter((x) => !m.labels.includes(x)) : one;
        return [...base, ...include.filter((x) => !base.includes(x))];
      }
      default:
        return [];
    }
  }
}
