import type { Logger } from '../common/logging.js';
import type { LoadedConfig } from '../config/load.js';
import { frontendSchema, type FrontendOptions } from '../config/options.js';
import { ServingComponent, type Component } from './component.js';

/** The protocol servers and HTTP APIs a frontend is configured for that this build does not serve yet. */
export function frontendNotServedYet(c: Pick<FrontendOptions, 'grpc' | 'mysql' | 'postgres' | 'influxdb' | 'opentsdb' | 'prom_store'>): string[] {
  return [
    `gRPC on ${c.grpc.addr}`,
    ...(c.mysql.enable ? [`MySQL on ${c.mysql.addr}`] : []),
    ...(c.postgres.enable ? [`PostgreSQL on ${c.postgres.addr}`] : []),
    'SQL and PromQL over HTTP',
    ...(c.influxdb.enable ? ['InfluxDB line protocol'] : []),
    ...(c.opentsdb.enable ? ['OpenTSDB'] : []),
    ...(c.prom_store.enable ? ['Prometheus remote write/read'] : []),
  ];
}

/** The stateless protocol front of a distributed deployment. */
export function createFrontend(loaded: LoadedConfig<'frontend'>, logger: Logger): Component {
  const c = loaded.config;
  return new ServingComponent({
    name: 'frontend',
    schema: frontendSchema,
    config: c,
    http: c.http,
    logger,
    notServedYet: frontendNotServedYet(c),
  });
}
