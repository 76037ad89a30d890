/**
 * What one query's evaluation shares across its nodes: the sample budget (Prometheus's
 * `currentSamples` against `query.max-samples`), cancellation, the lookback delta and the
 * function implementations, plus the grid of times a (sub)tree is evaluated at.
 *
 * The budget counts what the evaluation materializes, as 2.42 does: each node's samples at a step,
 * range windows (with the output they produce), evaluated subqueries and the answer so far; the
 * raw samples a selector fetched are bounded separately (the source gets `maxSamples`). Since
 * steps are evaluated one at a time, a composed expression holds (and counts) less than 2.42,
 * which materializes every sub-expression over all steps: selectors, single range functions and
 * subqueries hit the limit at the same count as 2.42, compositions later, never earlier.
 */
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import { PromqlError, TOO_MANY_SAMPLES } from './errors.js';
import type { PromFunction } from './functions/types.js';

/** The times a tree is evaluated at: start, start + interval, … ≤ end. */
export interface Grid {
  readonly start: number;
  readonly end: number;
  readonly interval: number;
}


export class EvalState {
  /** Samples held now: `held` (materialized subqueries, the result so far) plus this step's. */
  current = 0;
  held = 0;
  /** The query's subqueries in the order they were compiled (inner ones first). */
  readonly subqueries: Array<{ prepareAsync(): Promise<void> }> = [];

  constructor(
    readonly maxSamples: number,
    readonly lookbackMs: number,
    readonly functions: ReadonlyMap<string, PromFunction>,
    readonly noStepSubqueryIntervalMs: number,
    readonly signal: AbortSignal | undefined,
    /** The query's start and end (`@ start()`, `@ end()`). */
    readonly queryStart: number,
    readonly queryEnd: number,
  ) {}

  /** Counts n more samples held, failing as Prometheus does past the limit. */
  add(n: number): void {
    this.current += n;
    if (this.current > this.maxSamples) throw new PromqlError('execution', TOO_MANY_SAMPLES);
  }

  checkAborted(): void {
    if (this.signal?.aborted === true) throw abortError(this.signal);
  }

  private lastYield = performance.now();

  /**
   * Gives the event loop a turn when this query has held it for more than YIELD_AFTER_MS: other
   * requests are served meanwhile, and a deadline or a client that went away (whose abort arrives
   * as an event) stops the query at its next check.
   */
  async pause(): Promise<void> {
    const now = performance.now();
    if (now - this.lastYield < YIELD_AFTER_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.lastYield = performance.now();
    this.checkAborted();
  }
}

/** How long a query evaluates before letting other work run. */
const YIELD_AFTER_MS = 10;

/** Prometheus's timeout / cancel errors: a deadline (reason DeadlineExceeded) is a timeout. */
export function abortError(signal: AbortSignal): PromqlError {
  const reason: unknown = signal.reason;
  if (reason instanceof TsdbError && reason.code === StatusCode.DeadlineExceeded) {
    return new PromqlError('timeout', 'query timed out in expression evaluation', { cause: reason });
  }
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return new PromqlError('timeout', 'query timed out in expression evaluation', { cause: reason });
  }
  return new PromqlError('canceled', 'query was canceled in expression evaluation', { cause: reason });
}
