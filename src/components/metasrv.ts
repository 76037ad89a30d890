import type { Logger } from '../common/logging.js';
import type { LoadedConfig } from '../config/load.js';
import { metasrvSchema } from '../config/options.js';
import { ServingComponent, type Component } from './component.js';
import { MetasrvServices } from './metasrv-services.js';

/** Cluster metadata, region placement and failover: the meta service on `bind_addr`, the cluster view over HTTP. */
export function createMetasrv(loaded: LoadedConfig<'metasrv'>, logger: Logger): Component {
  const c = loaded.config;
  const services = new MetasrvServices(c, logger);
  return new ServingComponent({
    name: 'metasrv',
    schema: metasrvSchema,
    config: c,
    http: c.http,
    home: { option: 'data_home', dir: c.data_home },
    logger,
    exportMetrics: c.export_metrics,
    rpc: { addr: c.bind_addr, services },
    admin: services.admin,
  });
}
