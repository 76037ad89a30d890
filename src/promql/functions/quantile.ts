/**
 * Prometheus's `quantile` helper (promql/quantile.go), used by quantile_over_time and
 * mad_over_time: values sorted with NaN first (Go's sort over vectorByValueHeap), then linear
 * interpolation between the two closest ranks.
 */
import { goSortArray } from './go-sort.js';

/** The φ-quantile of `values` (sorted in place); NaN for no values or NaN φ, ∓Inf for φ < 0 / φ > 1. */
export function quantile(q: number, values: number[]): number {
  if (values.length === 0 || Number.isNaN(q)) return Number.NaN;
  if (q < 0) return Number.NEGATIVE_INFINITY;
  if (q > 1) return Number.POSITIVE_INFINITY;
  goSortArray(values, (a, b) => Number.isNaN(a) || a < b);
  const n = values.length;
  const rank = q * (n - 1);
  const lowerIndex = Math.max(0, Math.floor(rank));
  const upperIndex = Math.min(n - 1, lowerIndex + 1);
  const weight = rank - Math.floor(rank);
  return values[lowerIndex]! * (1 - weight) + values[upperIndex]! * weight;
}
