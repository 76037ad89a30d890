import type { Logger } from '../common/logging.js';
import type { LoadedConfig } from '../config/load.js';
import { metasrvSchema } from '../config/options.js';
import { ServingComponent, type Component } from './component.js';

/** Cluster metadata, region placement and failover. */
export function createMetasrv(loaded: LoadedConfig<'metasrv'>, logger: Logger): Component {
  const c = loaded.config;
  return new ServingComponent({
    name: 'metasrv',
    schema: metasrvSchema,
    config: c,
    http: c.http,
    home: { option: 'data_home', dir: c.data_home },
    logger,
    notServedYet: [`metasrv (gRPC) on ${c.bind_addr}`],
  });
}
