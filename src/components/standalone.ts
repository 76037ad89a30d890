import type { Logger } from '../common/logging.js';
import type { LoadedConfig } from '../config/load.js';
import { standaloneSchema } from '../config/options.js';
import { ServingComponent, type Component } from './component.js';
import { StandaloneServices, type StandaloneServicesOptions } from './standalone-services.js';

/** A frontend and a datanode in one process. */
/** `services`: where the regions are (default: an engine in this process). */
export function createStandalone(loaded: LoadedConfig<'standalone'>, logger: Logger, services?: StandaloneServicesOptions): Component {
  const c = loaded.config;
  return new ServingComponent({
    name: 'standalone',
    schema: standaloneSchema,
    config: c,
    http: c.http,
    dashboard: !c.http.disable_dashboard,
    home: { option: 'storage.data_home', dir: c.storage.data_home },
    dirs: [{ option: 'wal.dir', dir: c.wal.dir }],
    logger,
    exportMetrics: c.export_metrics,
    services: new StandaloneServices(c, logger, services),
    ...(c.postgres.enable && { postgres: { addr: c.postgres.addr, tls: c.postgres.tls } }),
    ...(c.mysql.enable && { mysql: { addr: c.mysql.addr, tls: c.mysql.tls } }),
    grpc: { addr: c.grpc.addr },
    ...(c.default_timezone !== undefined && { defaultTimezone: c.default_timezone }),
    protocols: { influxdb: c.influxdb.enable, opentsdb: c.opentsdb.enable, promStore: c.prom_store.enable, promWithMetricEngine: c.prom_store.with_metric_engine },
  });
}
