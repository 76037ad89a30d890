/**
 * What a datanode opens at start (reference internals.md §6.2): its shares of the tables,
 * `__dn_table/{node_id}/{table_id}`, read through the metasrv, every region opened from its
 * directory (on the table's storage provider), `parallelism` at a time. A region that fails to
 * open is logged and left: the metasrv's heartbeat answers ask for it again. Through a
 * LeasedRegionServer, each region opened gets its first lease.
 */
import { datanodeTablePrefix, type DatanodeTable } from '../catalog/table-route.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { Logger } from '../common/logging.js';
import { formatRegionId, regionId, type RegionId } from '../types/region-id.js';
import type { RegionServer } from '../types/region-server.js';
import type { MetaService } from './meta-service.js';

export interface OpenedRegions {
  readonly opened: RegionId[];
  readonly failed: Array<{ readonly id: RegionId; readonly error: unknown }>;
}

export async function openDatanodeRegions(
  meta: Pick<MetaService, 'range'>,
  nodeId: number,
  regions: Pick<RegionServer, 'openRegion'>,
  logger: Logger,
  parallelism = 16,
): Promise<OpenedRegions> {
  const todo: Array<{ id: RegionId; dir: string; storage: string | undefined }> = [];
  for (const e of await meta.range(datanodeTablePrefix(nodeId))) {
    const share = JSON.parse(Buffer.from(e.value).toString('utf8')) as DatanodeTable;
    for (const r of share.regions) todo.push({ id: regionId(share.table_id, r.region_number), dir: r.dir, storage: share.storage });
  }
  const out: OpenedRegions = { opened: [], failed: [] };
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const r = todo[next++]!;
      try {
        await regions.openRegion(r.id, r.dir, r.storage);
        out.opened.push(r.id);
      } catch (err) {
        if (err instanceof TsdbError && err.code === StatusCode.RegionAlreadyExists) out.opened.push(r.id);
        else {
          out.failed.push({ id: r.id, error: err });
          logger.error({ err, region: formatRegionId(r.id), dir: r.dir }, `region ${formatRegionId(r.id)} placed on this datanode failed to open`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallelism, todo.length)) }, worker));
  logger.info({ opened: out.opened.length, failed: out.failed.length }, `opened the regions the metasrv places on datanode ${nodeId}`);
  return out;
}
