/**
 * The implementations of the PromQL functions, keyed by the names of `signatures.ts`. The
 * evaluator special-cases only `timestamp` (the samples' own times) and `absent`/`absent_over_time`
 * labels (from the selector's matchers, given in CallContext.args).
 */
import type { PromFunction } from './types.js';

export const FUNCTIONS: ReadonlyMap<string, PromFunction> = new Map();
