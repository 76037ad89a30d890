/**
 * TRUNCATE TABLE in a cluster, with the results of `LocalTableDdl.truncateTable`: every region of
 * the table truncated on the datanode its route names, in parallel. No metadata changes. A resumed
 * truncate goes on (truncating a region twice leaves it empty as once).
 */
import { fullTableName, ownsNoRegions, type TableInfo } from '../../catalog/table-info.js';
import type { TableRoute } from '../../catalog/table-route.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { formatRegionId, regionId } from '../../types/region-id.js';
import type { DdlResult } from '../meta-service.js';
import type { LockRequest } from './lock-manager.js';
import { Procedure, tableLocks, type ProcedureContext } from './procedure.js';

export interface TruncateTableData {
  readonly info: TableInfo;
  route?: TableRoute;
}

export const TRUNCATE_TABLE = 'truncate_table';

export class TruncateTableProcedure extends Procedure<TruncateTableData> {
  readonly kind = TRUNCATE_TABLE;

  static create(info: TableInfo): TruncateTableProcedure {
    return new TruncateTableProcedure('prepare', { info });
  }

  describe(): string {
    return `TRUNCATE TABLE ${fullTableName(this.data.info)} (id ${this.data.info.table_id})`;
  }

  locks(): LockRequest[] {
    return tableLocks(this.data.info);
  }

  async execute(ctx: ProcedureContext): Promise<DdlResult> {
    const info = this.data.info;
    for (;;) {
      switch (this.step) {
        case 'prepare': {
          if (ctx.resumed) {
            this.finished = true; // stopped before any region was truncated
            return {};
          }
          if (ownsNoRegions(info)) throw new TsdbError(StatusCode.Unexpected, `truncate of logical table ${info.name}: delete its rows`);
          const current = await ctx.guard(ctx.catalog.table(info.database, info.name));
          if (current?.table_id !== info.table_id) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${fullTableName(info)}`);
          const route = await ctx.guard(ctx.catalog.tableRoute(info.table_id));
          if (route === undefined) throw new TsdbError(StatusCode.TableUnavailable, `${fullTableName(info)} has no route: its regions cannot be truncated`);
          this.data.route = route;
          await ctx.advance('truncate_regions');
          break;
        }
        case 'truncate_regions': {
          const route = this.data.route!;
          this.finished = true;
          const results = await Promise.allSettled(
            info.region_numbers.map((n) => {
              const id = regionId(info.table_id, n);
              const leader = route.region_routes.find((r) => r.region_number === n)?.leader_peer;
              if (leader === undefined) return Promise.reject(new TsdbError(StatusCode.RegionNotReady, `Region ${formatRegionId(id)} of ${fullTableName(info)} has no datanode serving it: it cannot be truncated`));
              return ctx.regionCall(leader, `truncate region ${n} of ${fullTableName(info)}`, (rs) => rs.truncateRegion(id));
            }),
          );
          const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
          if (failed !== undefined) throw failed.reason;
          return {};
        }
        default:
          throw new TsdbError(StatusCode.Internal, `${this.describe()}: unknown step ${this.step}`);
      }
    }
  }
}
