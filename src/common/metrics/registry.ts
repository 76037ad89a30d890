/**
 * The process's metrics registry: every counter, gauge and histogram tsdb keeps is registered
 * here, `/metrics` renders it in Prometheus text format and `[export_metrics]` gathers it.
 *
 * One registry per process, not per component: in production each component (standalone,
 * frontend, datanode, metasrv) is its own process, and instrumented code deep in the engine or
 * the servers should not need a registry threaded through every constructor.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

export const metricsRegistry = new Registry();

let processMetrics = false;

/**
 * Adds prom-client's process and Node runtime metrics (`process_cpu_seconds_total`,
 * `process_resident_memory_bytes`, `process_start_time_seconds`, `nodejs_heap_size_used_bytes`,
 * `nodejs_eventloop_lag_seconds`, …) without a prefix: dashboards built for any Prometheus target
 * query `process_*` by those names. Once per process; called when a component starts and by the
 * servers that render `/metrics` (not at import, so that unit tests importing instrumented code do
 * not start the GC observer).
 */
export function startProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: metricsRegistry });
}
