/**
 * The range-vector functions (rate, increase, delta, irate, idelta, deriv, predict_linear,
 * holt_winters, changes, resets, the *_over_time family…): one value per series window, with
 * Prometheus 2.42's arithmetic (promql/functions.go) step for step — including its Kahan
 * summation, extrapolation thresholds and NaN behaviour — so results match it to the bit.
 */
import { PromqlError } from '../errors.js';
import { goFormatF } from '../go-format.js';
import { quantile } from './quantile.js';
import type { RangeFunction, SeriesWindow } from './types.js';

/** Kahan–Neumaier compensation of the last `kahanInc` call (Go's kahanSumInc returns a pair). */
let kahanC = 0;

/** Go's kahanSumInc: returns the new sum and leaves the new compensation in `kahanC`. */
function kahanInc(inc: number, sum: number, c: number): number {
  const t = sum + inc;
  if (Math.abs(sum) >= Math.abs(inc)) c += sum - t + inc;
  else c += inc - t + sum;
  kahanC = c;
  return t;
}

function range(apply: (w: SeriesWindow, params: readonly number[], evalTimeMs: number) => number | undefined, rangeArg = 0, dropsName = true): RangeFunction {
  return {
    kind: 'range',
    rangeArg,
    dropsName,
    apply: (w, params, t) => (w.to > w.from ? apply(w, params, t) : undefined),
  };
}

/** Go's `time.Duration.Seconds()` of a range in ms (whole seconds plus the fraction, as Go adds them). */
function durationSeconds(ms: number): number {
  const sec = Math.trunc(ms / 1000);
  return sec + ((ms - sec * 1000) * 1e6) / 1e9;
}

/** rate/increase/delta: Prometheus's extrapolatedRate. */
function extrapolatedRate(w: SeriesWindow, isCounter: boolean, isRate: boolean): number | undefined {
  const n = w.to - w.from;
  if (n < 2) return undefined;
  const t = w.t;
  const v = w.v;
  const first = w.from;
  const last = w.to - 1;
  let result = v[last]! - v[first]!;
  if (isCounter) {
    let prev = v[first]!;
    for (let i = first + 1; i <= last; i++) {
      const cur = v[i]!;
      if (cur < prev) result += prev;
      prev = cur;
    }
  }
  let durationToStart = (t[first]! - w.rangeStartMs) / 1000;
  const durationToEnd = (w.rangeEndMs - t[last]!) / 1000;
  const sampledInterval = (t[last]! - t[first]!) / 1000;
  const averageDurationBetweenSamples = sampledInterval / (n - 1);
  if (isCounter && result > 0 && v[first]! >= 0) {
    // A counter cannot go below zero: extrapolate at most to where it would have been zero.
    const durationToZero = sampledInterval * (v[first]! / result);
    if (durationToZero < durationToStart) durationToStart = durationToZero;
  }
  const extrapolationThreshold = averageDurationBetweenSamples * 1.1;
  let extrapolateToInterval = sampledInterval;
  extrapolateToInterval += durationToStart < extrapolationThreshold ? durationToStart : averageDurationBetweenSamples / 2;
  extrapolateToInterval += durationToEnd < extrapolationThreshold ? durationToEnd : averageDurationBetweenSamples / 2;
  let factor = extrapolateToInterval / sampledInterval;
  if (isRate) factor /= durationSeconds(w.rangeEndMs - w.rangeStartMs);
  return result * factor;
}

/** irate/idelta: the last two samples. */
function instantValue(w: SeriesWindow, isRate: boolean): number | undefined {
  if (w.to - w.from < 2) return undefined;
  const last = w.v[w.to - 1]!;
  const prev = w.v[w.to - 2]!;
  let result = isRate && last < prev ? last : last - prev;
  const sampledInterval = w.t[w.to - 1]! - w.t[w.to - 2]!;
  if (sampledInterval === 0) return undefined;
  if (isRate) result /= sampledInterval / 1000;
  return result;
}

/** Least-squares slope and the intercept at `interceptTimeMs` (Prometheus's linearRegression). */
function linearRegression(w: SeriesWindow, interceptTimeMs: number): [number, number] {
  let n = 0;
  let sumX = 0;
  let cX = 0;
  let sumY = 0;
  let cY = 0;
  let sumXY = 0;
  let cXY = 0;
  let sumX2 = 0;
  let cX2 = 0;
  const initY = w.v[w.from]!;
  let constY = true;
  for (let i = w.from; i < w.to; i++) {
    const y = w.v[i]!;
    if (constY && i > w.from && y !== initY) constY = false;
    n += 1;
    const x = (w.t[i]! - interceptTimeMs) / 1e3;
    sumX = kahanInc(x, sumX, cX);
    cX = kahanC;
    sumY = kahanInc(y, sumY, cY);
    cY = kahanC;
    sumXY = kahanInc(x * y, sumXY, cXY);
    cXY = kahanC;
    sumX2 = kahanInc(x * x, sumX2, cX2);
    cX2 = kahanC;
  }
  if (constY) {
    if (initY === Infinity || initY === -Infinity) return [Number.NaN, Number.NaN];
    return [0, initY];
  }
  sumX += cX;
  sumY += cY;
  sumXY += cXY;
  sumX2 += cX2;
  const covXY = sumXY - (sumX * sumY) / n;
  const varX = sumX2 - (sumX * sumX) / n;
  const slope = covXY / varX;
  const intercept = sumY / n - (slope * sumX) / n;
  return [slope, intercept];
}

/** holt_winters / double_exponential_smoothing (the parameters are checked before the window). */
function holtWinters(w: SeriesWindow, params: readonly number[]): number | undefined {
  const sf = params[0]!;
  const tf = params[1]!;
  if (sf <= 0 || sf >= 1) throw new PromqlError('execution', `invalid smoothing factor. Expected: 0 < sf < 1, got: ${goFormatF(sf, 6)}`);
  if (tf <= 0 || tf >= 1) throw new PromqlError('execution', `invalid trend factor. Expected: 0 < tf < 1, got: ${goFormatF(tf, 6)}`);
  const l = w.to - w.from;
  if (l < 2) return undefined;
  const v = w.v;
  let s0 = 0;
  let s1 = v[w.from]!;
  let b = v[w.from + 1]! - v[w.from]!;
  for (let i = 1; i < l; i++) {
    const x = sf * v[w.from + i]!;
    // calcTrendValue(i-1, …): the first step keeps the initial trend.
    if (i - 1 !== 0) b = tf * (s1 - s0) + (1 - tf) * b;
    const y = (1 - sf) * (s1 + b);
    s0 = s1;
    s1 = x + y;
  }
  return s1;
}

function avgOverTime(w: SeriesWindow): number {
  let mean = 0;
  let count = 0;
  let c = 0;
  for (let i = w.from; i < w.to; i++) {
    const v = w.v[i]!;
    count++;
    if (mean === Infinity || mean === -Infinity) {
      // Same-signed infinities, or a finite value after an infinite mean: the mean stays (Inf - Inf would be NaN).
      if ((v === Infinity || v === -Infinity) && mean > 0 === v > 0) continue;
      if (Number.isFinite(v)) continue;
    }
    mean = kahanInc(v / count - mean / count, mean, c);
    c = kahanC;
  }
  if (mean === Infinity || mean === -Infinity) return mean;
  return mean + c;
}

function sumOverTime(w: SeriesWindow): number {
  let sum = 0;
  let c = 0;
  for (let i = w.from; i < w.to; i++) {
    sum = kahanInc(w.v[i]!, sum, c);
    c = kahanC;
  }
  if (sum === Infinity || sum === -Infinity) return sum;
  return sum + c;
}

/** 2.42's stdvar_over_time (Welford's update with Kahan-compensated sums). */
function stdvarOverTime(w: SeriesWindow): number {
  let count = 0;
  let mean = 0;
  let cMean = 0;
  let aux = 0;
  let cAux = 0;
  for (let i = w.from; i < w.to; i++) {
    const v = w.v[i]!;
    count++;
    const delta = v - (mean + cMean);
    mean = kahanInc(delta / count, mean, cMean);
    cMean = kahanC;
    aux = kahanInc(delta * (v - (mean + cMean)), aux, cAux);
    cAux = kahanC;
  }
  return (aux + cAux) / count;
}

function maxOverTime(w: SeriesWindow): number {
  let max = w.v[w.from]!;
  for (let i = w.from; i < w.to; i++) {
    const v = w.v[i]!;
    if (v > max || Number.isNaN(max)) max = v;
  }
  return max;
}

function minOverTime(w: SeriesWindow): number {
  let min = w.v[w.from]!;
  for (let i = w.from; i < w.to; i++) {
    const v = w.v[i]!;
    if (v < min || Number.isNaN(min)) min = v;
  }
  return min;
}

function windowValues(w: SeriesWindow): number[] {
  const out = new Array<number>(w.to - w.from);
  for (let i = w.from; i < w.to; i++) out[i - w.from] = w.v[i]!;
  return out;
}

/** mad_over_time (Prometheus 3.x): the median of the absolute deviations from the median; NaN if any sample is NaN. */
function madOverTime(w: SeriesWindow): number {
  const values = windowValues(w);
  for (const v of values) if (Number.isNaN(v)) return Number.NaN;
  const median = quantile(0.5, values);
  for (let i = 0; i < values.length; i++) values[i] = Math.abs(values[i]! - median);
  return quantile(0.5, values);
}

function resets(w: SeriesWindow): number {
  let n = 0;
  let prev = w.v[w.from]!;
  for (let i = w.from + 1; i < w.to; i++) {
    const cur = w.v[i]!;
    if (cur < prev) n++;
    prev = cur;
  }
  return n;
}

/** changes: a NaN after a NaN is no change; NaN after a number (and back) is. */
function changes(w: SeriesWindow): number {
  let n = 0;
  let prev = w.v[w.from]!;
  for (let i = w.from + 1; i < w.to; i++) {
    const cur = w.v[i]!;
    if (cur !== prev && !(Number.isNaN(cur) && Number.isNaN(prev))) n++;
    prev = cur;
  }
  return n;
}

export const RANGE_FUNCTIONS: ReadonlyMap<string, RangeFunction> = new Map<string, RangeFunction>([
  ['rate', range((w) => extrapolatedRate(w, true, true))],
  ['increase', range((w) => extrapolatedRate(w, true, false))],
  ['delta', range((w) => extrapolatedRate(w, false, false))],
  ['irate', range((w) => instantValue(w, true))],
  ['idelta', range((w) => instantValue(w, false))],
  ['deriv', range((w) => (w.to - w.from < 2 ? undefined : linearRegression(w, w.t[w.from]!)[0]))],
  [
    'predict_linear',
    range((w, p, t) => {
      if (w.to - w.from < 2) return undefined;
      const [slope, intercept] = linearRegression(w, t);
      return slope * p[0]! + intercept;
    }),
  ],
  ['holt_winters', holtWintersFn()],
  ['double_exponential_smoothing', holtWintersFn()],
  ['changes', range(changes)],
  ['resets', range(resets)],
  ['avg_over_time', range(avgOverTime)],
  ['sum_over_time', range(sumOverTime)],
  ['count_over_time', range((w) => w.to - w.from)],
  ['min_over_time', range(minOverTime)],
  ['max_over_time', range(maxOverTime)],
  ['stdvar_over_time', range(stdvarOverTime)],
  ['stddev_over_time', range((w) => Math.sqrt(stdvarOverTime(w)))],
  ['quantile_over_time', range((w, p) => quantile(p[0]!, windowValues(w)), 1)],
  ['mad_over_time', range(madOverTime)],
  ['last_over_time', range((w) => w.v[w.to - 1]!, 0, false)],
  ['present_over_time', range(() => 1)],
  // The evaluator builds absent_over_time's result (1 where no series has a sample, with the
  // selector's labels); per window Prometheus's function only says "present".
  ['absent_over_time', range(() => 1)],
]);

/** holt_winters checks its parameters even for windows with fewer than two samples. */
function holtWintersFn(): RangeFunction {
  return { kind: 'range', rangeArg: 0, dropsName: true, apply: (w, p) => (w.to > w.from ? holtWinters(w, p) : undefined) };
}
