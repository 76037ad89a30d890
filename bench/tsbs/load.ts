/**
 * Bulk loading and single-row write latency, the same way for every system: the rows go in TSBS
 * order in batches of `batchRows`, `concurrency` requests in flight. Batch bodies are serialized
 * ahead, a window of batches at a time, outside the timed part, so rows/s measures the server (and
 * HTTP), not this process's string building. Progress lines go to stderr.
 */
import type { Dataset } from './data.js';
import { log } from './servers.js';

export interface LoadResult {
  readonly rows: number;
  readonly batches: number;
  /** Time spent sending (serialization excluded). */
  readonly seconds: number;
  readonly rowsPerSecond: number;
  readonly bodyBytes: number;
}

export interface LatencyResult {
  readonly n: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  readonly maxMs: number;
}

/** `serialize` builds the body of rows [from, to): text (line protocol, SQL) or bytes (protobuf). */
export async function bulkLoad<B extends string | Uint8Array = string>(
  label: string,
  ds: Dataset,
  batchRows: number,
  concurrency: number,
  serialize: (from: number, to: number) => B,
  send: (body: B) => Promise<void>,
): Promise<LoadResult> {
  const batchCount = Math.ceil(ds.rows / batchRows);
  const windowBatches = Math.max(concurrency * 8, 32);
  let sendMs = 0;
  let sentRows = 0;
  let bodyBytes = 0;
  let lastReport = performance.now();
  const reportEvery = 5000;
  for (let w = 0; w < batchCount; w += windowBatches) {
    const bodies: { body: B; rows: number }[] = [];
    for (let b = w; b < Math.min(batchCount, w + windowBatches); b++) {
      const from = b * batchRows;
      const to = Math.min(ds.rows, from + batchRows);
      const body = serialize(from, to);
      bodyBytes += Buffer.byteLength(body);
      bodies.push({ body, rows: to - from });
    }
    const t0 = performance.now();
    let next = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const i = next++;
        const item = bodies[i];
        if (item === undefined) return;
        await send(item.body);
        sentRows += item.rows;
        const now = performance.now();
        if (now - lastReport >= reportEvery) {
          lastReport = now;
          const elapsed = (sendMs + now - t0) / 1000;
          log(`${label}: ${sentRows.toLocaleString('en-US')}/${ds.rows.toLocaleString('en-US')} rows (${((100 * sentRows) / ds.rows).toFixed(0)}%), ${Math.round(sentRows / elapsed).toLocaleString('en-US')} rows/s`);
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, () => worker()));
    sendMs += performance.now() - t0;
  }
  const seconds = sendMs / 1000;
  const result = { rows: sentRows, batches: batchCount, seconds, rowsPerSecond: sentRows / seconds, bodyBytes };
  log(`${label}: loaded ${sentRows.toLocaleString('en-US')} rows in ${seconds.toFixed(1)} s = ${Math.round(result.rowsPerSecond).toLocaleString('en-US')} rows/s (${(bodyBytes / 2 ** 20).toFixed(0)} MiB of request bodies)`);
  return result;
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[idx] ?? Number.NaN;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

/** n sequential single-row writes; write(i) performs the i-th one. */
export async function singleRowLatency(n: number, write: (i: number) => Promise<void>): Promise<LatencyResult> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await write(i);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { n, p50Ms: quantile(times, 0.5), p99Ms: quantile(times, 0.99), meanMs: times.reduce((a, b) => a + b, 0) / n, maxMs: times[times.length - 1] ?? Number.NaN };
}
