import type { Logger } from '../common/logging.js';
import type { LoadedConfig } from '../config/load.js';
import { datanodeSchema } from '../config/options.js';
import { ServingComponent, type Component } from './component.js';
import { DatanodeServices } from './datanode-services.js';

/** Hosts regions and stores their data. */
export function createDatanode(loaded: LoadedConfig<'datanode'>, logger: Logger): Component {
  const c = loaded.config;
  return new ServingComponent({
    name: 'datanode',
    schema: datanodeSchema,
    config: c,
    http: c.http,
    home: { option: 'storage.data_home', dir: c.storage.data_home },
    dirs: [{ option: 'wal.dir', dir: c.wal.dir }],
    logger,
    exportMetrics: c.export_metrics,
    regionService: { addr: c.rpc_addr, regions: new DatanodeServices(c, logger) },
  });
}
