/**
 * The implementations of the PromQL functions, keyed by the names of `signatures.ts`. The
 * evaluator special-cases only `timestamp` (the samples' own times) and `absent`/`absent_over_time`
 * labels (from the selector's matchers, given in CallContext.args).
 */
import { HISTOGRAM_FUNCTIONS } from './histogram-functions.js';
import { LABEL_FUNCTIONS } from './label-functions.js';
import { MATH_FUNCTIONS } from './math-functions.js';
import { RANGE_FUNCTIONS } from './range-functions.js';
import { TIME_FUNCTIONS } from './time-functions.js';
import type { PromFunction } from './types.js';
import { VECTOR_FUNCTIONS } from './vector-functions.js';

export const FUNCTIONS: ReadonlyMap<string, PromFunction> = new Map<string, PromFunction>([
  ...RANGE_FUNCTIONS,
  ...MATH_FUNCTIONS,
  ...LABEL_FUNCTIONS,
  ...HISTOGRAM_FUNCTIONS,
  ...TIME_FUNCTIONS,
  ...VECTOR_FUNCTIONS,
]);
