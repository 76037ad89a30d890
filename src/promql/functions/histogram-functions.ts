/**
 * histogram_quantile over classic histograms (`le` buckets) as Prometheus 2.42's
 * bucketQuantile computes it, and the native-histogram functions: tsdb stores float samples
 * only, and on float samples histogram_count/sum/avg/fraction/stddev/stdvar return nothing, as
 * Prometheus's do.
 */
import { METRIC_NAME } from '../ast.js';
import type { Labels } from '../labels.js';
import type { Vector } from '../values.js';
import { goParseFloat } from './go-parse-float.js';
import { goSortArray } from './go-sort.js';
import type { InstantFunction } from './types.js';

interface Bucket {
  upperBound: number;
  count: number;
}

/** Go's sort.Search: the smallest i in [0, n) with f(i), or n. */
function goSearch(n: number, f: (i: number) => boolean): number {
  let i = 0;
  let j = n;
  while (i < j) {
    const h = (i + j) >>> 1;
    if (!f(h)) i = h + 1;
    else j = h;
  }
  return i;
}

/** Prometheus's bucketQuantile (buckets sorted, merged, made monotonic here). */
export function bucketQuantile(q: number, buckets: Bucket[]): number {
  if (Number.isNaN(q)) return Number.NaN;
  if (q < 0) return Number.NEGATIVE_INFINITY;
  if (q > 1) return Number.POSITIVE_INFINITY;
  goSortArray(buckets, (a, b) => a.upperBound < b.upperBound);
  if (buckets[buckets.length - 1]!.upperBound !== Infinity) return Number.NaN;
  buckets = coalesce(buckets);
  ensureMonotonic(buckets);
  if (buckets.length < 2) return Number.NaN;
  const observations = buckets[buckets.length - 1]!.count;
  if (observations === 0) return Number.NaN;
  let rank = q * observations;
  const b = goSearch(buckets.length - 1, (i) => buckets[i]!.count >= rank);
  if (b === buckets.length - 1) return buckets[buckets.length - 2]!.upperBound;
  if (b === 0 && buckets[0]!.upperBound <= 0) return buckets[0]!.upperBound;
  let bucketStart = 0;
  const bucketEnd = buckets[b]!.upperBound;
  let count = buckets[b]!.count;
  if (b > 0) {
    bucketStart = buckets[b - 1]!.upperBound;
    count -= buckets[b - 1]!.count;
    rank -= buckets[b - 1]!.count;
  }
  return bucketStart + (bucketEnd - bucketStart) * (rank / count);
}

/** Buckets with the same upper bound become one (counts added in sorted order). */
function coalesce(buckets: Bucket[]): Bucket[] {
  const out: Bucket[] = [];
  let last = { ...buckets[0]! };
  for (let i = 1; i < buckets.length; i++) {
    const b = buckets[i]!;
    if (b.upperBound === last.upperBound) last.count += b.count;
    else {
      out.push(last);
      last = { ...b };
    }
  }
  out.push(last);
  return out;
}

/** Counts that fall with a rising bound (non-atomic scrapes, rate()) are raised to the running maximum. */
function ensureMonotonic(buckets: Bucket[]): void {
  let max = buckets[0]!.count;
  for (let i = 1; i < buckets.length; i++) {
    const c = buckets[i]!.count;
    if (c > max) max = c;
    else if (c < max) buckets[i]!.count = max;
  }
}

const histogramQuantile: InstantFunction = {
  kind: 'instant',
  apply: (args) => {
    const q = args[0] as number;
    const vec = args[1] as Vector;
    // Grouped by all labels but `le` (the name included); the output drops both.
    const groups = new Map<string, { labels: Labels; buckets: Bucket[] }>();
    for (const s of vec) {
      let le: string | undefined;
      let key = '';
      for (const l of s.labels) {
        if (l.name === 'le') le = l.value;
        else key += `${l.name}\u0000${l.value}\u0001`;
      }
      const upperBound = goParseFloat(le ?? '');
      if (upperBound === undefined) continue;
      let g = groups.get(key);
      if (g === undefined) {
        g = { labels: s.labels.filter((l) => l.name !== 'le' && l.name !== METRIC_NAME), buckets: [] };
        groups.set(key, g);
      }
      g.buckets.push({ upperBound, count: s.v });
    }
    const t = vec.length > 0 ? vec[0]!.t : 0;
    const out: Vector = [];
    for (const g of groups.values()) out.push({ labels: g.labels, t, v: bucketQuantile(q, g.buckets) });
    return out;
  },
};

const none: InstantFunction = { kind: 'instant', apply: () => [] };

export const HISTOGRAM_FUNCTIONS: ReadonlyMap<string, InstantFunction> = new Map<string, InstantFunction>([
  ['histogram_quantile', histogramQuantile],
  ['histogram_count', none],
  ['histogram_sum', none],
  ['histogram_avg', none],
  ['histogram_fraction', none],
  ['histogram_stddev', none],
  ['histogram_stdvar', none],
]);
