/**
 * The process and Node runtime metrics (`process_resident_memory_bytes`, `nodejs_heap_size_used_bytes`,
 * event loop lag, GC…) that prom-client collects, registered once per process in `metricsRegistry`,
 * so that `/metrics` and `[export_metrics]` carry them on every component.
 */
import { collectDefaultMetrics } from 'prom-client';
import { metricsRegistry } from './registry.js';

let registered = false;

/** Registers the default metrics in `metricsRegistry`; later calls do nothing (prom-client refuses a name twice). */
export function registerDefaultMetrics(): void {
  if (registered) return;
  registered = true;
  if (metricsRegistry.getSingleMetric('process_resident_memory_bytes') !== undefined) return;
  collectDefaultMetrics({ register: metricsRegistry });
}
