/**
 * The process's metrics registry: every counter, gauge and histogram tsdb keeps is registered
 * here, `/metrics` renders it in Prometheus text format and `[export_metrics]` gathers it.
 *
 * One registry per process, not per component: in production each component (standalone,
 * frontend, datanode, metasrv) is its own process, and instrumented code deep in the engine or
 * the servers should not need a registry threaded through every constructor.
 */
import { Registry } from 'prom-client';

export const metricsRegistry = new Registry();
