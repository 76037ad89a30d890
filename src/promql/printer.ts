/**
 * tsdb's PromQL AST back to text, in Prometheus's canonical form (its `String()` methods in
 * `promql/parser/printer.go`, as `/api/v1/format_query` answers): `sum by (job) (rate(x[5m]))`,
 * matchers sorted, durations as Prometheus prints them (`1h30m`, `90d`), numbers as Go's `%v`,
 * `@ 100.000`, `@ start()`.
 *
 * One deviation: Prometheus drops `ignoring () group_left (…)` (no labels, no `on`), which changes
 * the query's meaning; it is printed here, so that parsing the text gives the same tree back.
 */
import type { AggregateExpr, AtModifier, Expr, LabelMatcher, SubqueryExpr, VectorMatching, VectorSelector } from './ast.js';
import { METRIC_NAME } from './ast.js';
import { goQuote } from './go-format.js';

/** The canonical text of an expression. */
export function formatExpr(expr: Expr): string {
  switch (expr.kind) {
    case 'number':
      return formatGoFloat(expr.value);
    case 'string':
      return goQuote(expr.value);
    case 'vector':
      return formatSelector(expr) + formatAt(expr.at) + formatOffset(expr.offsetMs);
    case 'matrix': {
      const vs = expr.selector;
      return `${formatSelector(vs)}[${formatDuration(expr.rangeMs)}]${formatAt(vs.at)}${formatOffset(vs.offsetMs)}`;
    }
    case 'subquery':
      return formatExpr(expr.expr) + subquerySuffix(expr);
    case 'call':
      return `${expr.func}(${expr.args.map(formatExpr).join(', ')})`;
    case 'aggregate': {
      let s = `${aggregateHead(expr)}(`;
      if (expr.param !== undefined) s += `${formatExpr(expr.param)}, `;
      return `${s}${formatExpr(expr.expr)})`;
    }
    case 'binary':
      return `${formatExpr(expr.lhs)} ${expr.op}${expr.returnBool ? ' bool' : ''}${formatMatching(expr.matching)} ${formatExpr(expr.rhs)}`;
    case 'unary':
      return `${expr.op}${formatExpr(expr.expr)}`;
    case 'paren':
      return `(${formatExpr(expr.expr)})`;
  }
}

/** The width past which `prettyExpr` splits an expression over lines (Prometheus's `maxCharactersPerLine`). */
const MAX_LINE = 100;

/**
 * Prometheus's `Pretty(0)`, what 2.42's `/api/v1/format_query` answers: `formatExpr` when it
 * fits in 100 bytes, else aggregations, binary operations, calls and parentheses split over
 * indented lines.
 */
export function prettyExpr(expr: Expr, level = 0): string {
  const ind = '  '.repeat(level);
  const flat = formatExpr(expr);
  const fits = Buffer.byteLength(flat, 'utf8') <= MAX_LINE;
  switch (expr.kind) {
    case 'aggregate': {
      if (fits) return ind + flat;
      let s = `${ind}${aggregateHead(expr)}(\n`;
      if (expr.param !== undefined) s += `${prettyExpr(expr.param, level + 1)},\n`;
      return `${s}${prettyExpr(expr.expr, level + 1)}\n${ind})`;
    }
    case 'binary':
      if (fits) return ind + flat;
      return `${prettyExpr(expr.lhs, level + 1)}\n${ind}${expr.op}${expr.returnBool ? ' bool' : ''}${formatMatching(expr.matching)}\n${prettyExpr(expr.rhs, level + 1)}`;
    case 'call':
      if (fits) return ind + flat;
      return `${ind}${expr.func}(\n${expr.args.map((a) => prettyExpr(a, level + 1)).join(',\n')}\n${ind})`;
    case 'paren':
      if (fits) return ind + flat;
      return `${ind}(\n${prettyExpr(expr.expr, level + 1)}\n${ind})`;
    case 'subquery':
      // As Prometheus: no indent of its own when it fits.
      if (fits) return flat;
      return prettyExpr(expr.expr, level) + subquerySuffix(expr);
    case 'unary':
      return `${ind}${expr.op}${prettyExpr(expr.expr, level).trim()}`;
    default:
      return ind + flat;
  }
}

function aggregateHead(expr: AggregateExpr): string {
  if (expr.without) return `${expr.op} without (${expr.grouping.join(', ')}) `;
  if (expr.grouping.length > 0) return `${expr.op} by (${expr.grouping.join(', ')}) `;
  return expr.op;
}

function subquerySuffix(expr: SubqueryExpr): string {
  const step = expr.stepMs === 0 ? '' : formatDuration(expr.stepMs);
  return `[${formatDuration(expr.rangeMs)}:${step}]${formatAt(expr.at)}${formatOffset(expr.offsetMs)}`;
}

function formatMatching(vm: VectorMatching | undefined): string {
  if (vm === undefined) return '';
  const grouped = vm.card === 'many-to-one' || vm.card === 'one-to-many';
  if (vm.labels.length === 0 && !vm.on && !grouped) return '';
  let s = ` ${vm.on ? 'on' : 'ignoring'} (${vm.labels.join(', ')})`;
  if (grouped) s += ` group_${vm.card === 'many-to-one' ? 'left' : 'right'} (${vm.include.join(', ')})`;
  return s;
}

/** `name{a="b",…}`: the name's own matcher left out, the others sorted as Prometheus sorts them. */
function formatSelector(vs: VectorSelector): string {
  const name = vs.name ?? '';
  const labels = vs.matchers.filter((m) => !(m.name === METRIC_NAME && m.type === '=' && m.value === name)).map(formatMatcher);
  if (labels.length === 0) return name;
  labels.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `${name}{${labels.join(',')}}`;
}

export function formatMatcher(m: LabelMatcher): string {
  return `${m.name}${m.type}${goQuote(m.value)}`;
}

function formatAt(at: AtModifier | undefined): string {
  if (at === undefined) return '';
  if (at.kind === 'start') return ' @ start()';
  if (at.kind === 'end') return ' @ end()';
  return ` @ ${(at.ms / 1000).toFixed(3)}`;
}

function formatOffset(ms: number): string {
  if (ms > 0) return ` offset ${formatDuration(ms)}`;
  if (ms < 0) return ` offset -${formatDuration(-ms)}`;
  return '';
}

const UNITS: readonly [string, number, boolean][] = [
  ['y', 365 * 86_400_000, true],
  ['w', 7 * 86_400_000, true],
  ['d', 86_400_000, false],
  ['h', 3_600_000, false],
  ['m', 60_000, false],
  ['s', 1000, false],
  ['ms', 1, false],
];

/** Prometheus's `model.Duration.String()`: years and weeks only when they divide exactly. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let rest = ms;
  let out = '';
  for (const [unit, mult, exact] of UNITS) {
    if (exact && rest % mult !== 0) continue;
    const v = Math.floor(rest / mult);
    if (v > 0) {
      out += `${v}${unit}`;
      rest -= v * mult;
    }
  }
  return out;
}

/** The shortest round-trip digits of a finite non-zero |x| and its decimal exponent. */
function shortestDigits(x: number): { digits: string; exp: number } {
  const [mant, e] = Math.abs(x).toExponential().split('e');
  return { digits: mant!.replace('.', ''), exp: Number(e) };
}

/** Go's `%v` of a float64 (`strconv.FormatFloat(x, 'g', -1, 64)`): `1e+06`, `0.0001`, `1.5e-07`. */
export function formatGoFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const sign = x < 0 ? '-' : '';
  const { digits, exp } = shortestDigits(x);
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp).toString().padStart(2, '0');
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e}`;
  }
  return sign + fixedFromDigits(digits, exp);
}

/** Go's `strconv.FormatFloat(x, 'f', -1, 64)`: shortest digits, never an exponent. */
export function formatGoFloatF(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const { digits, exp } = shortestDigits(x);
  return (x < 0 ? '-' : '') + fixedFromDigits(digits, exp);
}

function fixedFromDigits(digits: string, exp: number): string {
  const point = exp + 1;
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}
