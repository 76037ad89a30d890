/**
 * The data set of the PromQL oracle test (`test/integration/promql-oracle.test.ts`): deterministic
 * series (a seeded PRNG; only the start time depends on the clock) shaped to reach the corners of
 * PromQL's semantics — counters with resets and a late start, gauges with NaN and ±Inf, series
 * that end with Prometheus's stale marker (and some that come back), series that end without one,
 * gaps longer than the 5-minute lookback, classic histograms (`_bucket{le}` up to +Inf, `_sum`,
 * `_count`) — sampled at irregular 10–30 s intervals (millisecond offsets, not whole seconds).
 * Written by remote write in time windows, so that Prometheus' head (which refuses samples more than
 * an hour older than its newest) accepts every sample.
 */
import type { ReadSeries } from '../../src/servers/prometheus/remote-read.js';
import { encodeWriteRequest } from '../../src/servers/prometheus/remote-write.js';
import { staleNaN } from '../../src/promql/values.js';

/** mulberry32: a small seeded PRNG, the same on every platform. */
export class SeededRandom {
  private s: number;

  constructor(seed: number) {
    this.s = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let z = this.s;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
}

export interface OracleSeries {
  /** Labels including `__name__`, sorted by name. */
  readonly labels: ReadonlyArray<{ name: string; value: string }>;
  readonly t: number[];
  /** Values; at the times in `stale` a placeholder NaN (the stale marker is made when encoding). */
  readonly v: number[];
  /**
   * Times of stale markers. They are not kept in `v`: V8 may canonicalize a NaN stored in an array
   * of doubles, losing the marker's bit pattern.
   */
  readonly stale?: ReadonlySet<number>;
}

export interface OracleDataset {
  readonly startMs: number;
  /** The last sample time is before this. */
  readonly endMs: number;
  readonly series: OracleSeries[];
  /** Samples written, stale markers included. */
  readonly samples: number;
  readonly staleMarkers: number;
}

/** How long the data runs: under Prometheus' 3-hour head span, so that no compaction runs during the test. */
export const SPAN_MS = 170 * 60_000;

function labelsOf(name: string, labels: Record<string, string>): Array<{ name: string; value: string }> {
  return Object.entries({ __name__: name, ...labels })
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([n, value]) => ({ name: n, value }));
}

/** Sample times from `from` to before `to` at irregular 10–30 s steps (whole milliseconds). */
function sampleTimes(rng: SeededRandom, from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = from + rng.int(0, 9_999); t < to; t += rng.int(10_000, 30_000)) out.push(t);
  return out;
}

const MIN = 60_000;

/**
 * The data set starting at `startMs` (a whole minute). Seed 18 gives the series the test was
 * written against; the shapes (resets, gaps, stale markers) are forced at fixed offsets so that any
 * seed reaches them.
 */
export function oracleDataset(startMs: number, seed = 18): OracleDataset {
  const rng = new SeededRandom(seed);
  const endMs = startMs + SPAN_MS;
  const series: OracleSeries[] = [];

  // Counters: http_requests_total{job, instance, method, code}; resets at random (about 2 per
  // series) and one forced; web/i2/POST/500 starts 40 minutes late.
  for (const job of ['api', 'web']) {
    for (const instance of ['i1:80', 'i2:80']) {
      for (const method of ['GET', 'POST']) {
        for (const code of ['200', '500']) {
          const late = job === 'web' && instance === 'i2:80' && method === 'POST' && code === '500';
          const times = sampleTimes(rng, startMs + (late ? 40 * MIN : 0), endMs);
          const ratePerSec = code === '200' ? 2 + rng.next() * 8 : rng.next();
          let value = Math.floor(rng.next() * 1000);
          const v: number[] = [];
          const forcedReset = job === 'api' && method === 'GET' ? Math.floor(times.length / 2) : -1;
          for (let i = 0; i < times.length; i++) {
            if (i > 0) {
              const inc = Math.round(ratePerSec * ((times[i]! - times[i - 1]!) / 1000) * (0.5 + rng.next()));
              value = i === forcedReset || rng.next() < 0.004 ? inc : value + inc;
            }
            v.push(value);
          }
          series.push({ labels: labelsOf('http_requests_total', { job, instance, method, code }), t: times, v });
        }
      }
    }
  }

  // A counter series without the method and code labels (absent labels are NULL columns in tsdb).
  {
    const times = sampleTimes(rng, startMs + 5 * MIN, endMs);
    let value = 0;
    series.push({ labels: labelsOf('http_requests_total', { job: 'batch', instance: 'i9:80' }), t: times, v: times.map(() => (value += rng.int(0, 50))) });
  }

  // Label values with quotes, backslashes and non-ASCII characters.
  for (const [version, note] of [['1.2.3', 'say "hi" \\ ünïcode'], ['2.0.0-rc.1', 'tab\there, comma']] as const) {
    const times = sampleTimes(rng, startMs, endMs);
    series.push({ labels: labelsOf('build_info', { version, note }), t: times, v: times.map(() => 1) });
  }

  // Gauges with NaN, +Inf, -Inf among ordinary values; one zone hovers around zero (signs).
  for (const instance of ['i1:80', 'i2:80', 'i3:80']) {
    for (const [zone, base] of [['cpu', 55], ['ambient', 0]] as const) {
      const times = sampleTimes(rng, startMs, endMs);
      let x = base + (rng.next() - 0.5) * 10;
      const v = times.map(() => {
        x += (rng.next() - 0.5) * 3;
        const r = rng.next();
        if (r < 0.01) return Number.NaN;
        if (r < 0.015) return Number.POSITIVE_INFINITY;
        if (r < 0.02) return Number.NEGATIVE_INFINITY;
        return Math.round(x * 1000) / 1000;
      });
      series.push({ labels: labelsOf('node_temperature_celsius', { instance, zone }), t: times, v });
    }
  }

  // queue_depth{job, queue}: gaps longer than the lookback, stale markers (then coming back, or
  // not), and a series that just stops (no marker: it fades after 5 minutes).
  const queueShapes: Record<string, (t: number) => 'sample' | 'gap'> = {
    'api/a': () => 'sample',
    'api/b': (t) => (t >= startMs + 30 * MIN && t < startMs + 42 * MIN) || (t >= startMs + 100 * MIN && t < startMs + 107 * MIN) ? 'gap' : 'sample',
    'api/c': (t) => (t >= startMs + 60 * MIN && t < startMs + 80 * MIN) ? 'gap' : 'sample',
    'web/a': (t) => (t >= startMs + 100 * MIN ? 'gap' : 'sample'),
    'web/b': (t) => (t >= startMs + 120 * MIN ? 'gap' : 'sample'),
    'web/c': (t) => (t >= startMs + 45 * MIN && t < startMs + 50 * MIN) ? 'gap' : 'sample',
  };
  // Which gaps begin with a stale marker (as Prometheus writes one when a target vanishes).
  const staleAtGap = new Set(['api/c', 'web/a', 'api/b']);
  for (const [key, shape] of Object.entries(queueShapes)) {
    const [job, queue] = key.split('/') as [string, string];
    const t: number[] = [];
    const v: number[] = [];
    const stale = new Set<number>();
    let depth = rng.int(0, 20);
    let inGap = false;
    for (const time of sampleTimes(rng, startMs, endMs)) {
      if (shape(time) === 'gap') {
        if (!inGap && staleAtGap.has(key)) {
          t.push(time);
          v.push(Number.NaN);
          stale.add(time);
        }
        inGap = true;
        continue;
      }
      inGap = false;
      depth = Math.max(0, depth + rng.int(-3, 3));
      t.push(time);
      v.push(depth);
    }
    series.push({ labels: labelsOf('queue_depth', { job, queue }), t, v, stale });
  }

  // Classic histograms per job, all of a job's series sampled together (as one scrape); web's
  // counts reset once.
  const bounds = ['0.05', '0.1', '0.25', '0.5', '1', '2.5', '+Inf'];
  for (const job of ['api', 'web']) {
    const times = sampleTimes(rng, startMs, endMs);
    const counts = new Array<number>(bounds.length).fill(0);
    let sum = 0;
    const buckets = bounds.map(() => [] as number[]);
    const sums: number[] = [];
    const totals: number[] = [];
    const resetAt = job === 'web' ? Math.floor(times.length * 0.6) : -1;
    for (let i = 0; i < times.length; i++) {
      if (i === resetAt) {
        counts.fill(0);
        sum = 0;
      }
      const n = rng.int(0, job === 'api' ? 40 : 10);
      for (let k = 0; k < n; k++) {
        const d = Math.exp(Math.log(job === 'api' ? 0.2 : 0.6) + (rng.next() - 0.5) * 3);
        sum += d;
        for (let b = 0; b < bounds.length; b++) if (b === bounds.length - 1 || d <= Number(bounds[b])) counts[b]!++;
      }
      for (let b = 0; b < bounds.length; b++) buckets[b]!.push(counts[b]!);
      sums.push(Math.round(sum * 1e6) / 1e6);
      totals.push(counts[bounds.length - 1]!);
    }
    bounds.forEach((le, b) => series.push({ labels: labelsOf('request_duration_seconds_bucket', { job, le }), t: [...times], v: buckets[b]! }));
    series.push({ labels: labelsOf('request_duration_seconds_sum', { job }), t: [...times], v: sums });
    series.push({ labels: labelsOf('request_duration_seconds_count', { job }), t: [...times], v: totals });
  }

  // up{job, instance}: 0/1, for bool comparisons and set operators.
  for (const job of ['api', 'web']) {
    for (const instance of ['i1:80', 'i2:80']) {
      const times = sampleTimes(rng, startMs, endMs);
      series.push({ labels: labelsOf('up', { job, instance }), t: times, v: times.map(() => (rng.next() < 0.9 ? 1 : 0)) });
    }
  }

  return { startMs, endMs, series, samples: series.reduce((n, s) => n + s.t.length, 0), staleMarkers: series.reduce((n, s) => n + (s.stale?.size ?? 0), 0) };
}

/**
 * The data set as remote-write request bodies (snappy WriteRequests), one per `windowMs` of time,
 * in time order: each holds every series' samples of its window.
 */
export function remoteWriteBodies(ds: OracleDataset, windowMs = 10 * MIN): Buffer[] {
  const bodies: Buffer[] = [];
  const cursor = ds.series.map(() => 0);
  for (let from = ds.startMs; from < ds.endMs; from += windowMs) {
    const to = from + windowMs;
    const batch: ReadSeries[] = [];
    ds.series.forEach((s, i) => {
      const samples: Array<{ value: number; timestampMs: number }> = [];
      let j = cursor[i]!;
      for (; j < s.t.length && s.t[j]! < to; j++) samples.push({ timestampMs: s.t[j]!, value: s.stale?.has(s.t[j]!) === true ? staleNaN() : s.v[j]! });
      cursor[i] = j;
      if (samples.length > 0) batch.push({ labels: s.labels, samples });
    });
    if (batch.length > 0) bodies.push(encodeWriteRequest(batch));
  }
  return bodies;
}

/** POSTs the bodies in order to a remote-write URL; throws on any answer other than 2xx. */
export async function remoteWrite(url: string, bodies: readonly Buffer[]): Promise<void> {
  for (const body of bodies) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`remote write to ${url}: ${res.status} ${text}`);
  }
}
