/**
 * Histogram buckets (seconds) shared by tsdb's latency metrics: GreptimeDB's request buckets
 * (5 ms to 5 min), so that dashboards written for it read tsdb's histograms alike.
 */
export const REQUEST_BUCKETS: readonly number[] = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60, 300];

/** Finer buckets for disk syncs (100 µs to 1 s). */
export const FSYNC_BUCKETS: readonly number[] = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** Seconds since `started` (a `process.hrtime.bigint()`). */
export function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}
