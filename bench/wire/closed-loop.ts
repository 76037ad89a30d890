/**
 * A closed loop per connection: each worker sends a point query, waits for the whole answer, checks
 * it holds exactly one row and sends the next, for `warmupMs` + `durationMs`. Only queries that
 * finish inside the measured window count: throughput = those ÷ window, latency percentiles over
 * them (client-side, send to last byte parsed). Server and client CPU are read at the window's
 * edges; the window is also kept in CLOCK_MONOTONIC µs for cutting a server CPU profile.
 */
import { cpuSeconds } from '../ingest/proc-stats.js';
import { monotonicUs, type ProfileWindow } from '../ingest/cpu-profile.js';
import { log } from '../tsbs/servers.js';
import type { ConnectionSet } from './clients.js';
import type { PointQueries } from './dataset.js';

export interface LevelResult {
  readonly concurrency: number;
  /** Measured window, s. */
  readonly seconds: number;
  readonly queries: number;
  readonly qps: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Queries that failed (the worker stops at its first failure), and the first message. */
  readonly errors: number;
  readonly firstError?: string;
  /** Answers without exactly one row. */
  readonly wrongAnswers: number;
  /** Server CPU (process tree) and this process's CPU during the window, s. */
  readonly serverCpuSeconds: number;
  readonly clientCpuSeconds: number;
  readonly window: ProfileWindow;
  /** Workers still waiting for an answer 30 s after the end (their connections were dropped). */
  readonly stuck: number;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export interface LevelOptions {
  readonly label: string;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly serverPid: number;
  /** The query generator of worker i (seeded per worker: the same sequence for every system). */
  readonly queries: (worker: number) => PointQueries;
}

export async function runLevel(set: ConnectionSet, opts: LevelOptions): Promise<LevelResult> {
  const n = set.connections.length;
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let measureFrom = Number.POSITIVE_INFINITY;
  let measureTo = Number.POSITIVE_INFINITY;
  let stop = false;
  let errors = 0;
  let firstError: string | undefined;
  let wrongAnswers = 0;
  let inFlight = 0;
  let completed = 0;

  const worker = async (i: number): Promise<void> => {
    const conn = set.connections[i]!;
    const gen = opts.queries(i);
    while (!stop) {
      const q = gen.next();
      const t0 = performance.now();
      inFlight++;
      try {
        const answer = await conn.run(q);
        const t1 = performance.now();
        completed++;
        if (answer.rows !== 1) wrongAnswers++;
        if (t0 >= measureFrom && t1 < measureTo) {
          if (count === latencies.length) {
            const bigger = new Float64Array(latencies.length * 2);
            bigger.set(latencies);
            latencies = bigger;
          }
          latencies[count++] = t1 - t0;
        }
      } catch (e) {
        errors++;
        firstError ??= e instanceof Error ? e.message : String(e);
        return;
      } finally {
        inFlight--;
      }
    }
  };

  const tStart = performance.now();
  const running = Promise.all(Array.from({ length: n }, (_, i) => worker(i)));
  const progress = setInterval(() => {
    const t = (performance.now() - tStart) / 1000;
    log(`${opts.label}: ${t.toFixed(0)} s, ${completed.toLocaleString('en-US')} answers so far${errors > 0 ? `, ${errors} error(s)` : ''}`);
  }, 5000);
  try {
    await sleep(opts.warmupMs);
    // Counted: queries sent from here on that finish before the end.
    measureFrom = performance.now();
    const fromUs = monotonicUs();
    const server0 = cpuSeconds(opts.serverPid, true).seconds;
    const client0 = process.cpuUsage();
    await sleep(opts.durationMs);
    measureTo = performance.now();
    const toUs = monotonicUs();
    const server1 = cpuSeconds(opts.serverPid, true).seconds;
    const client1 = process.cpuUsage(client0);
    stop = true;
    const settled = await Promise.race([running.then(() => true), sleep(30_000).then(() => false)]);
    const stuck = settled ? 0 : inFlight;
    if (!settled) set.destroy();
    const sorted = latencies.slice(0, count).sort();
    let sum = 0;
    for (const x of sorted) sum += x;
    const seconds = (measureTo - measureFrom) / 1000;
    const r: LevelResult = {
      concurrency: n,
      seconds,
      queries: count,
      qps: count / seconds,
      meanMs: count > 0 ? sum / count : Number.NaN,
      p50Ms: percentile(sorted, 0.5),
      p90Ms: percentile(sorted, 0.9),
      p99Ms: percentile(sorted, 0.99),
      maxMs: count > 0 ? sorted[count - 1]! : Number.NaN,
      errors,
      wrongAnswers,
      serverCpuSeconds: server1 - server0,
      clientCpuSeconds: (client1.user + client1.system) / 1e6,
      window: { fromUs, toUs },
      stuck,
    };
    return firstError === undefined ? r : { ...r, firstError };
  } finally {
    clearInterval(progress);
    stop = true;
  }
}
