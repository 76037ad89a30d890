/**
 * How the evaluator calls a PromQL function. Two kinds, as Prometheus's engine distinguishes them:
 * range functions see one series' samples in one window per step (rate, *_over_time…); the
 * others see the evaluated arguments at one step (abs, label_replace, histogram_quantile, sort…).
 */
import type { Expr } from '../ast.js';
import type { Labels } from '../labels.js';
import type { Vector } from '../values.js';

/**
 * One series' samples in the window [rangeStartMs, rangeEndMs] of one step (both ends included, as
 * Prometheus 2.42 selects them), as indices [from, to) into the series' arrays. Stale markers are
 * already removed.
 */
export interface SeriesWindow {
  readonly labels: Labels;
  readonly t: ArrayLike<number>;
  readonly v: ArrayLike<number>;
  readonly from: number;
  readonly to: number;
  readonly rangeStartMs: number;
  readonly rangeEndMs: number;
}

export interface RangeFunction {
  readonly kind: 'range';
  /** Which argument is the range vector (1 for quantile_over_time, else 0). */
  readonly rangeArg: number;
  /** Whether the result drops `__name__` (all but last_over_time… as Prometheus 2.42 does). */
  readonly dropsName: boolean;
  /**
   * The value for one window, or undefined for no sample (e.g. rate over fewer than two samples).
   * `params` are the scalar arguments other than the range, in order, evaluated at this step.
   */
  apply(w: SeriesWindow, params: readonly number[], evalTimeMs: number): number | undefined;
}

/** An evaluated argument at one step. */
export type FnArg = Vector | number | string;

export interface CallContext {
  /** The step's time in ms. */
  readonly evalTimeMs: number;
  /** The call's argument expressions (absent() builds its labels from the selector's matchers). */
  readonly args: readonly Expr[];
}

export interface InstantFunction {
  readonly kind: 'instant';
  /**
   * The output at one step. Scalar-returning functions (scalar, time, pi) return a one-sample
   * vector with no labels; the evaluator turns it into a scalar. Functions must not mutate inputs.
   */
  apply(args: readonly FnArg[], ctx: CallContext): Vector;
}

export type PromFunction = RangeFunction | InstantFunction;
