/**
 * The PromQL function list with argument and return types (Prometheus's
 * `promql/parser/functions.go`, 2.42 plus the later functions that need no native histograms):
 * the parser checks calls against it; the evaluator's implementations are keyed by the same names.
 */
import type { ValueType } from '../ast.js';

export interface FunctionSignature {
  readonly name: string;
  readonly argTypes: readonly ValueType[];
  /**
   * 0: exactly `argTypes`; n > 0: the last n arguments may be left out; -1: the last argument type
   * repeats any number of times (label_join).
   */
  readonly variadic: number;
  readonly returnType: ValueType;
}

const v = 'vector' as const;
const m = 'matrix' as const;
const s = 'scalar' as const;
const str = 'string' as const;

function sig(name: string, argTypes: readonly ValueType[], returnType: ValueType, variadic = 0): FunctionSignature {
  return { name, argTypes, returnType, variadic };
}

const list: FunctionSignature[] = [
  sig('abs', [v], v),
  sig('absent', [v], v),
  sig('absent_over_time', [m], v),
  sig('acos', [v], v),
  sig('acosh', [v], v),
  sig('asin', [v], v),
  sig('asinh', [v], v),
  sig('atan', [v], v),
  sig('atanh', [v], v),
  sig('avg_over_time', [m], v),
  sig('ceil', [v], v),
  sig('changes', [m], v),
  sig('clamp', [v, s, s], v),
  sig('clamp_max', [v, s], v),
  sig('clamp_min', [v, s], v),
  sig('cos', [v], v),
  sig('cosh', [v], v),
  sig('count_over_time', [m], v),
  sig('days_in_month', [v], v, 1),
  sig('day_of_month', [v], v, 1),
  sig('day_of_week', [v], v, 1),
  sig('day_of_year', [v], v, 1),
  sig('deg', [v], v),
  sig('delta', [m], v),
  sig('deriv', [m], v),
  sig('double_exponential_smoothing', [m, s, s], v),
  sig('exp', [v], v),
  sig('floor', [v], v),
  sig('histogram_avg', [v], v),
  sig('histogram_count', [v], v),
  sig('histogram_fraction', [s, s, v], v),
  sig('histogram_quantile', [s, v], v),
  sig('histogram_stddev', [v], v),
  sig('histogram_stdvar', [v], v),
  sig('histogram_sum', [v], v),
  sig('holt_winters', [m, s, s], v),
  sig('hour', [v], v, 1),
  sig('idelta', [m], v),
  sig('increase', [m], v),
  sig('irate', [m], v),
  sig('label_join', [v, str, str, str], v, -1),
  sig('label_replace', [v, str, str, str, str], v),
  sig('last_over_time', [m], v),
  sig('ln', [v], v),
  sig('log10', [v], v),
  sig('log2', [v], v),
  sig('mad_over_time', [m], v),
  sig('max_over_time', [m], v),
  sig('min_over_time', [m], v),
  sig('minute', [v], v, 1),
  sig('month', [v], v, 1),
  sig('pi', [], s),
  sig('predict_linear', [m, s], v),
  sig('present_over_time', [m], v),
  sig('quantile_over_time', [s, m], v),
  sig('rad', [v], v),
  sig('rate', [m], v),
  sig('resets', [m], v),
  sig('round', [v, s], v, 1),
  sig('scalar', [v], s),
  sig('sgn', [v], v),
  sig('sin', [v], v),
  sig('sinh', [v], v),
  sig('sort', [v], v),
  sig('sort_by_label', [v, str], v, -1),
  sig('sort_by_label_desc', [v, str], v, -1),
  sig('sort_desc', [v], v),
  sig('sqrt', [v], v),
  sig('stddev_over_time', [m], v),
  sig('stdvar_over_time', [m], v),
  sig('sum_over_time', [m], v),
  sig('tan', [v], v),
  sig('tanh', [v], v),
  sig('time', [], s),
  sig('timestamp', [v], v),
  sig('vector', [s], v),
  sig('year', [v], v, 1),
];

export const FUNCTION_SIGNATURES: ReadonlyMap<string, FunctionSignature> = new Map(list.map((f) => [f.name, f]));
