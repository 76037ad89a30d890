/**
 * The t-digest estimate of a quantile as GreptimeDB's `approx_percentile_cont` and `approx_median`
 * give it (DataFusion's TDigest, 100 centroids at most, Folly's merge and interpolation): the
 * values are merged, sorted, into one digest in one pass, as DataFusion merges a batch, and the
 * quantile is interpolated between the centroids' means. Written for tsdb from the algorithm's
 * description (the same floating-point steps, so that the same values give the same answer).
 *
 * tsdb's DuckDB has no aggregate functions of JavaScript's: the values of a group are gathered by
 * DuckDB (`list`) and the digest is built here once per group (`sketch-functions.ts`).
 */

/** Centroids at most (DataFusion's `DEFAULT_MAX_SIZE`). */
export const TDIGEST_MAX_SIZE = 100;

/** The scale function's inverse: the quantile at which centroid k ends. */
function kToQ(k: number, d: number): number {
  const kd = k / d;
  if (kd >= 0.5) {
    const base = 1 - kd;
    return 1 - 2 * base * base;
  }
  return 2 * kd * kd;
}

/** A digest: centroid means and weights (ascending means), the count, the extremes. */
export interface TDigest {
  readonly means: Float64Array;
  readonly weights: Float64Array;
  readonly count: number;
  readonly min: number;
  readonly max: number;
}

/** The digest of `sorted` (ascending, no NaN first) merged into an empty one. */
export function digestOf(sorted: Float64Array, maxSize = TDIGEST_MAX_SIZE): TDigest {
  // DataFusion's merge_sorted_f64 advances k once before its loop.
  return compress(sorted, undefined, sorted.length, 2, maxSize);
}

/**
 * Centroids in ascending order of mean (`means`, with `weights`, or weight 1 each when there are
 * none) compressed into a digest counting `count`, as DataFusion's merges do: a centroid takes its
 * successors while the weight so far stays within the scale function's limit at k (the first
 * limit at k = 1, the next at `nextK`, then one k more each), each merge a Centroid::add.
 */
function compress(means: Float64Array, weights: Float64Array | undefined, count: number, nextK: number, maxSize: number): TDigest {
  const n = means.length;
  // Weights of 1 close at most maxSize + 1 centroids; other weights may close one per value.
  const outMeans = new Float64Array(weights === undefined ? Math.min(n, maxSize + 1) : n);
  const outWeights = new Float64Array(outMeans.length);
  if (n === 0) return { means: outMeans, weights: outWeights, count: 0, min: NaN, max: NaN };
  const weightOf = (i: number) => (weights === undefined ? 1 : weights[i]!);
  let size = 0;
  let qLimitTimesCount = kToQ(1, maxSize) * count;
  let kLimit = nextK;
  let currMean = means[0]!;
  let currWeight = weightOf(0);
  let weightSoFar = currWeight;
  let sumsToMerge = 0;
  let weightsToMerge = 0;
  const close = () => {
    // Centroid::add: the merged values' sum with the centroid's, then the mean.
    const newSum = sumsToMerge + currWeight * currMean;
    currWeight += weightsToMerge;
    currMean = newSum / currWeight;
    outMeans[size] = currMean;
    outWeights[size] = currWeight;
    size++;
  };
  for (let i = 1; i < n; i++) {
    const weight = weightOf(i);
    weightSoFar += weight;
    if (weightSoFar <= qLimitTimesCount) {
      sumsToMerge += means[i]! * weight;
      weightsToMerge += weight;
    } else {
      close();
      sumsToMerge = 0;
      weightsToMerge = 0;
      qLimitTimesCount = kToQ(kLimit, maxSize) * count;
      kLimit++;
      currMean = means[i]!;
      currWeight = weight;
    }
  }
  close();
  return { means: outMeans.subarray(0, size), weights: outWeights.subarray(0, size), count, min: means[0]!, max: means[n - 1]! };
}

/** The digest's estimate of quantile `q` (0 … 1); undefined for an empty digest. */
export function estimateQuantile(d: TDigest, q: number): number | undefined {
  const { means, weights } = d;
  const len = means.length;
  if (len === 0) return undefined;
  const rank = q * d.count;
  let pos: number;
  let t: number;
  if (q > 0.5) {
    if (q >= 1) return d.max;
    pos = 0;
    t = d.count;
    for (let k = len - 1; k >= 0; k--) {
      t -= weights[k]!;
      if (rank >= t) {
        pos = k;
        break;
      }
    }
  } else {
    if (q <= 0) return d.min;
    pos = len - 1;
    t = 0;
    for (let k = 0; k < len; k++) {
      if (rank < t + weights[k]!) {
        pos = k;
        break;
      }
      t += weights[k]!;
    }
  }
  let delta = 0;
  let min = d.min;
  let max = d.max;
  if (len > 1) {
    if (pos === 0) {
      delta = means[pos + 1]! - means[pos]!;
      max = means[pos + 1]!;
    } else if (pos === len - 1) {
      delta = means[pos]! - means[pos - 1]!;
      min = means[pos - 1]!;
    } else {
      delta = (means[pos + 1]! - means[pos - 1]!) / 2;
      min = means[pos - 1]!;
      max = means[pos + 1]!;
    }
  }
  const value = means[pos]! + ((rank - t) / weights[pos]! - 0.5) * delta;
  if (Number.isNaN(min) || Number.isNaN(max)) return value;
  return Math.min(Math.max(value, min), max);
}

/**
 * The digest of weighted values as DataFusion's `approx_percentile_cont_with_weight` builds it:
 * each (value, weight) a one-centroid digest counting its weight, all merged at once
 * (`merge_digests`: centroids by mean, compressed with the limits of the total weight).
 * `values` ascending, `weights` alongside. (GreptimeDB's sqlness answers fix the count as the
 * weights' sum: 3.6666666666666665 for weights 0.5, 1, 1.5, 2.)
 */
export function weightedDigestOf(values: Float64Array, weights: Float64Array, maxSize = TDIGEST_MAX_SIZE): TDigest {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += weights[i]!;
  // DataFusion's merge_digests computes the next limit before it advances k.
  return compress(values, weights, total, 1, maxSize);
}

/** Quantile `q` of `values` (any order; NaN sorts last, as Rust's total order puts it), or undefined when there are none. */
export function approxQuantile(values: Float64Array, q: number): number | undefined {
  return estimateQuantile(digestOf(values.sort()), q);
}
