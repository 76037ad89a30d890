/**
 * DROP TABLE in a cluster, with the results of `LocalTableDdl.dropTable`: the metadata first
 * (name, info, route and datanode shares in one batch; subscribers told), then every region on
 * the datanode its route names. A region already gone counts as dropped, so a resumed procedure
 * drops what is left; one that stayed unreachable keeps the procedure's record for the next start.
 */
import { fullTableName, ownsNoRegions, type TableInfo } from '../../catalog/table-info.js';
import type { TableRoute } from '../../catalog/table-route.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { regionId, type RegionId } from '../../types/region-id.js';
import type { DdlResult } from '../meta-service.js';
import type { LockRequest } from './lock-manager.js';
import { Procedure, tableLocks, type ProcedureContext } from './procedure.js';

export interface DropTableData {
  readonly info: TableInfo;
  /** The route read before the metadata went. */
  route?: TableRoute;
}

export const DROP_TABLE = 'drop_table';

export class DropTableProcedure extends Procedure<DropTableData> {
  readonly kind = DROP_TABLE;

  static create(info: TableInfo): DropTableProcedure {
    return new DropTableProcedure('prepare', { info });
  }

  describe(): string {
    return `DROP TABLE ${fullTableName(this.data.info)} (id ${this.data.info.table_id})`;
  }

  locks(): LockRequest[] {
    return tableLocks(this.data.info);
  }

  override operating(): RegionId[] {
    const route = this.data.route;
    if (route === undefined || (this.step !== 'drop_metadata' && this.step !== 'drop_regions')) return [];
    return route.region_routes.map((r) => regionId(route.table_id, r.region_number));
  }

  async execute(ctx: ProcedureContext): Promise<DdlResult> {
    const info = this.data.info;
    for (;;) {
      switch (this.step) {
        case 'prepare': {
          if (ctx.resumed) {
            this.finished = true; // stopped before anything was removed
            return {};
          }
          const current = await ctx.guard(ctx.catalog.table(info.database, info.name));
          if (current?.table_id !== info.table_id) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${fullTableName(info)}`);
          if (!ownsNoRegions(info)) {
            const route = await ctx.guard(ctx.catalog.tableRoute(info.table_id));
            if (route !== undefined) this.data.route = route;
          }
          await ctx.advance('drop_metadata');
          break;
        }
        case 'drop_metadata':
          // Removing keys twice is harmless: a resumed procedure does it again.
          await ctx.guard(ctx.catalog.dropTable(info, this.data.route));
          ctx.emit({ kind: 'table_changed', table_id: info.table_id });
          if (this.data.route === undefined) {
            this.finished = true;
            return {};
          }
          await ctx.advance('drop_regions');
          break;
        case 'drop_regions':
          await this.dropRegions(ctx, this.data.route!);
          this.finished = true;
          return {};
        default:
          throw new TsdbError(StatusCode.Internal, `${this.describe()}: unknown step ${this.step}`);
      }
    }
  }

  private async dropRegions(ctx: ProcedureContext, route: TableRoute): Promise<void> {
    const results = await Promise.allSettled(
      route.region_routes.map((r) =>
        r.leader_peer === undefined
          ? Promise.resolve(undefined)
          : ctx.regionCall(r.leader_peer, `drop region ${r.region_number} of ${fullTableName(this.data.info)}`, (rs) => rs.dropRegion(regionId(route.table_id, r.region_number)), {
              ok: [StatusCode.RegionNotFound],
            }),
      ),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed === undefined) return;
    const reason = failed.reason as Error;
    const code = reason instanceof TsdbError ? reason.code : StatusCode.StorageUnavailable;
    throw new TsdbError(code, `${fullTableName(this.data.info)} is dropped from the catalog, but not all its regions could be dropped (they are when the metasrv restarts): ${reason.message}`, { cause: reason });
  }
}
