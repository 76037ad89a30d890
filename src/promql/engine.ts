/**
 * Evaluates a parsed PromQL expression over a PromSource, as Prometheus 2.42's engine does: the
 * samples every selector needs are fetched once for the whole query range, then each step is
 * evaluated in JS over columnar arrays.
 */
import type { Expr } from './ast.js';
import { PromqlError } from './errors.js';
import type { PromSource } from './source.js';
import type { QueryResult } from './values.js';

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

/**
 * An instant query (stepMs 0) answers a vector, scalar or string; a range query answers a matrix
 * (a string expression is refused, as Prometheus does).
 */
export async function evaluateQuery(expr: Expr, source: PromSource, opts: EvalOptions): Promise<QueryResult> {
  throw new PromqlError('internal', `PromQL engine not built yet: ${expr.kind} ${typeof source} ${opts.stepMs}`);
}
