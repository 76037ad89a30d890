/**
 * Request bodies, built before anything is timed and sent unchanged to every system:
 * - InfluxDB line protocol, `batchRows` rows per body, nanosecond timestamps (TSBS's form: measurement
 *   `cpu`, 10 tags, 10 float fields);
 * - Prometheus remote write: one series per host × field (`cpu_usage_user{arch=…,…}`, the 10 tags as
 *   labels, sorted by name), each WriteRequest holding `seriesPerRequest` series × `samplesPerSeries`
 *   consecutive samples, snappy-compressed (tsdb's `encodeWriteRequest`).
 */
import { FIELDS, INTERVAL_MS, lineProtocol, TAGS, type Dataset } from '../tsbs/data.js';
import type { ReadSeries } from '../../src/servers/prometheus/remote-read.js';
import { encodeWriteRequest } from '../../src/servers/prometheus/remote-write.js';

export interface Payload {
  readonly body: Buffer;
  /** Line protocol rows, or remote write samples, in the body. */
  readonly items: number;
}

/** One TSBS row as line protocol with a nanosecond timestamp (the ms timestamp and six zeros: exact). */
export function lineProtocolNs(ds: Dataset, row: number): string {
  return `${lineProtocol(ds, row)}000000`;
}

export function lineProtocolPayloads(ds: Dataset, batchRows: number): Payload[] {
  const out: Payload[] = [];
  for (let from = 0; from < ds.rows; from += batchRows) {
    const to = Math.min(ds.rows, from + batchRows);
    const lines: string[] = [];
    for (let r = from; r < to; r++) lines.push(lineProtocolNs(ds, r));
    out.push({ body: Buffer.from(`${lines.join('\n')}\n`, 'utf8'), items: to - from });
  }
  return out;
}

export interface RemoteWriteShape {
  readonly seriesPerRequest: number;
  readonly samplesPerSeries: number;
}

/** Remote write metric names, one per field: `cpu_usage_user` … (VictoriaMetrics' names for the line protocol too). */
export const METRICS: readonly string[] = FIELDS.map((f) => `cpu_${f}`);

/** Series s = host × 10 + field: a host's ten metrics are neighbours, as a scrape target's are. */
export function seriesCount(ds: Dataset): number {
  return ds.hosts * FIELDS.length;
}

function seriesLabels(ds: Dataset, s: number): { name: string; value: string }[] {
  const host = Math.floor(s / FIELDS.length);
  const field = s % FIELDS.length;
  const tags = ds.tagValues[host] ?? [];
  const labels = [{ name: '__name__', value: METRICS[field] ?? '' }, ...TAGS.map((t, k) => ({ name: t, value: tags[k] ?? '' }))];
  return labels.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * WriteRequests in time order: for each window of `samplesPerSeries` steps, the series in chunks of
 * `seriesPerRequest` (the last chunk and the last window may be smaller).
 */
export function remoteWritePayloads(ds: Dataset, shape: RemoteWriteShape): Payload[] {
  const nSeries = seriesCount(ds);
  const labels = Array.from({ length: nSeries }, (_, s) => seriesLabels(ds, s));
  const out: Payload[] = [];
  for (let step0 = 0; step0 < ds.steps; step0 += shape.samplesPerSeries) {
    const step1 = Math.min(ds.steps, step0 + shape.samplesPerSeries);
    for (let s0 = 0; s0 < nSeries; s0 += shape.seriesPerRequest) {
      const s1 = Math.min(nSeries, s0 + shape.seriesPerRequest);
      const series: ReadSeries[] = [];
      for (let s = s0; s < s1; s++) {
        const host = Math.floor(s / FIELDS.length);
        const field = s % FIELDS.length;
        const samples: { value: number; timestampMs: number }[] = [];
        for (let step = step0; step < step1; step++) {
          const row = step * ds.hosts + host;
          samples.push({ value: ds.values[row * FIELDS.length + field] ?? 0, timestampMs: ds.startMs + step * INTERVAL_MS });
        }
        series.push({ labels: labels[s] ?? [], samples });
      }
      out.push({ body: encodeWriteRequest(series), items: (s1 - s0) * (step1 - step0) });
    }
  }
  return out;
}

export function totalBytes(payloads: readonly Payload[]): number {
  return payloads.reduce((n, p) => n + p.body.length, 0);
}
