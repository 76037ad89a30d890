import type { Logger } from '../common/logging.js';
import type { LoadedConfig } from '../config/load.js';
import { frontendSchema } from '../config/options.js';
import { MetaClient } from '../servers/grpc/meta-client.js';
import { ServingComponent, type Component } from './component.js';
import { FrontendServices } from './frontend-services.js';

/**
 * The stateless protocol front of a distributed deployment: every protocol a standalone server
 * serves, over the cluster's metadata (through the metasrv) and the datanodes' regions.
 */
export function createFrontend(loaded: LoadedConfig<'frontend'>, logger: Logger): Component {
  const c = loaded.config;
  const m = c.meta_client;
  return new ServingComponent({
    name: 'frontend',
    schema: frontendSchema,
    config: c,
    http: c.http,
    dashboard: !c.http.disable_dashboard,
    logger,
    exportMetrics: c.export_metrics,
    services: new FrontendServices(c, logger, () => new MetaClient({ addrs: m.metasrv_addrs, timeoutMs: m.timeout, connectTimeoutMs: m.connect_timeout, ddlTimeoutMs: m.ddl_timeout, tcpNoDelay: m.tcp_nodelay, logger })),
    ...(c.postgres.enable && { postgres: { addr: c.postgres.addr, tls: c.postgres.tls } }),
    ...(c.mysql.enable && { mysql: { addr: c.mysql.addr, tls: c.mysql.tls } }),
    grpc: { addr: c.grpc.addr },
    ...(c.default_timezone !== undefined && { defaultTimezone: c.default_timezone }),
    protocols: { influxdb: c.influxdb.enable, opentsdb: c.opentsdb.enable, promStore: c.prom_store.enable, promWithMetricEngine: c.prom_store.with_metric_engine },
  });
}
