/**
 * Where PromQL reads samples from. The engine asks for the series that match a selector's label
 * matchers in a time range; an implementation pushes both into the region scan (see
 * `src/frontend/promql-source.ts`). Tests pass an in-memory source.
 */
import type { LabelMatcher } from './ast.js';
import type { Labels } from './labels.js';

/** The samples of one series in a time range: parallel arrays, times (ms) ascending. */
export interface SeriesData {
  readonly labels: Labels;
  readonly t: Float64Array;
  readonly v: Float64Array;
}

export interface SelectRequest {
  readonly matchers: readonly LabelMatcher[];
  /** Inclusive bounds in ms. */
  readonly startMs: number;
  readonly endMs: number;
  readonly signal?: AbortSignal;
  /**
   * The most samples the answer may hold; a source that would return more throws
   * `PromqlError('execution', 'query processing would load too many samples into memory in query execution')`.
   */
  readonly maxSamples: number;
}

export interface MetadataRequest {
  /** Series must match one of these matcher sets (`match[]`); empty: every series. */
  readonly matcherSets: readonly (readonly LabelMatcher[])[];
  readonly startMs: number;
  readonly endMs: number;
  readonly signal?: AbortSignal;
  /** At most this many answers (0: all). */
  readonly limit: number;
}

export interface PromSource {
  /** The series matching every matcher, with their samples in the range (stale markers kept). */
  select(req: SelectRequest): Promise<SeriesData[]>;
  /**
   * `select` of several requests at once (answers in their order), where reading them together is
   * cheaper than one by one (one SQL statement for all of a query's selectors); optional.
   */
  selectAll?(reqs: readonly SelectRequest[]): Promise<SeriesData[][]>;
  /** Label sets of the series matching `matcherSets` in the range. */
  series(req: MetadataRequest): Promise<Labels[]>;
  /** Sorted label names (incl. `__name__`) of the matching series. */
  labelNames(req: MetadataRequest): Promise<string[]>;
  /** Sorted values of one label over the matching series. */
  labelValues(name: string, req: MetadataRequest): Promise<string[]>;
}
