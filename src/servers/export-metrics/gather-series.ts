/**
 * One gathering of a prom-client registry as Prometheus series, the shape `[export_metrics]` sends
 * (internals.md §8): a counter or gauge is one sample; a histogram its `_bucket{le}` samples
 * (`+Inf` included), `_sum` and `_count`; a summary its `{quantile}` samples, `_sum` and `_count`.
 * Every sample has the time of the gathering; labels are sorted by name, `__name__` included.
 */
import type { Registry } from 'prom-client';
import { METRIC_NAME_LABEL } from '../prometheus/remote-write.js';
import type { ReadSeries } from '../prometheus/remote-read.js';

/** A label value as Prometheus's text format writes it (`le="+Inf"`, `quantile="0.5"`). */
function labelText(v: string | number): string {
  if (typeof v === 'string') return v;
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  return Number.isNaN(v) ? 'NaN' : String(v);
}

/** prom-client's exported value: histogram buckets keep their series' labels apart, in `sharedLabels`. */
interface ExportedValue {
  readonly value: number;
  readonly labels?: Readonly<Record<string, string | number | undefined>>;
  readonly sharedLabels?: Readonly<Record<string, string | number | undefined>>;
  readonly metricName?: string;
}

/**
 * The series of `registry` now. `identity` labels (`job`, `instance`) are added to every series; a
 * metric's own label of the same name wins. Labels with an empty value are left out (Prometheus
 * reads them as absent).
 */
export async function gatherSeries(registry: Registry, identity: Readonly<Record<string, string>>, nowMs: number): Promise<ReadSeries[]> {
  const metrics = await registry.getMetricsAsJSON();
  const out: ReadSeries[] = [];
  for (const metric of metrics) {
    for (const v of metric.values as readonly ExportedValue[]) {
      const labels = new Map<string, string>();
      for (const [k, x] of Object.entries(identity)) labels.set(k, x);
      for (const source of [v.sharedLabels, v.labels]) {
        if (source === undefined) continue;
        for (const [k, x] of Object.entries(source)) if (x !== undefined) labels.set(k, labelText(x));
      }
      labels.set(METRIC_NAME_LABEL, v.metricName ?? metric.name);
      const list: Array<{ name: string; value: string }> = [];
      for (const [name, value] of labels) if (value !== '') list.push({ name, value });
      list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      out.push({ labels: list, samples: [{ value: v.value, timestampMs: nowMs }] });
    }
  }
  return out;
}
