/**
 * Latency and outcome bookkeeping of the load benchmark: per operation kind, the latencies of the
 * requests that were answered as expected, and a count per error kind (HTTP status with the tsdb
 * error code, client-side timeout, connection error).
 */

export class OpStats {
  /** Latencies (ms) of the requests answered as expected. */
  readonly okMs: number[] = [];
  /** Latencies (ms) of every request that ended, whatever the outcome. */
  readonly allMs: number[] = [];
  readonly errors = new Map<string, number>();
  /** Rows (writes) or other units carried by the successful requests. */
  units = 0;

  ok(ms: number, units = 0): void {
    this.okMs.push(ms);
    this.allMs.push(ms);
    this.units += units;
  }

  fail(kind: string, ms: number): void {
    this.allMs.push(ms);
    this.errors.set(kind, (this.errors.get(kind) ?? 0) + 1);
  }

  get failed(): number {
    let n = 0;
    for (const v of this.errors.values()) n += v;
    return n;
  }
}

/** The q-quantile (0..1) of `xs`, nearest rank; NaN when empty. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] ?? Number.NaN;
}

export function maxOf(xs: readonly number[]): number {
  let m = Number.NaN;
  for (const x of xs) if (!(x <= m)) m = x;
  return m;
}
