/**
 * ALTER TABLE in a cluster, with the results of `LocalTableDdl.alterTable`: the stored info must
 * still be `before` (else RequestOutdated: the statement is run again), then every region is
 * altered on its datanode (a rename alone, or a logical table, reaches no region), then the new
 * info — and a rename's name keys — in one batch; subscribers told.
 *
 * An alter is not undone; a resumed one goes on. A region refuses an alter to a schema version it
 * already has (InvalidArguments), which is what a repeated call finds: counted as done then.
 */
import { altersRegions } from '../../catalog/table-ddl.js';
import { fullTableName, regionMetadataOf, type TableInfo } from '../../catalog/table-info.js';
import { effectiveOptions, regionOptionsOf } from '../../catalog/table-options.js';
import type { TableRoute } from '../../catalog/table-route.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { formatRegionId, regionId } from '../../types/region-id.js';
import type { DdlResult } from '../meta-service.js';
import type { LockRequest } from './lock-manager.js';
import { lockKeys, Procedure, type ProcedureContext } from './procedure.js';

export interface AlterTableData {
  readonly before: TableInfo;
  readonly after: TableInfo;
  route?: TableRoute;
}

export const ALTER_TABLE = 'alter_table';

export class AlterTableProcedure extends Procedure<AlterTableData> {
  readonly kind = ALTER_TABLE;

  static create(before: TableInfo, after: TableInfo): AlterTableProcedure {
    return new AlterTableProcedure('prepare', { before, after });
  }

  describe(): string {
    return `ALTER TABLE ${fullTableName(this.data.before)} (id ${this.data.before.table_id})`;
  }

  locks(): LockRequest[] {
    const { before, after } = this.data;
    return [
      { key: lockKeys.database(before.database), exclusive: false },
      { key: lockKeys.database(after.database), exclusive: false },
      { key: lockKeys.tableName(before.database, before.name), exclusive: true },
      { key: lockKeys.tableName(after.database, after.name), exclusive: true },
      { key: lockKeys.tableId(before.table_id), exclusive: true },
    ];
  }

  async execute(ctx: ProcedureContext): Promise<DdlResult> {
    const { before, after } = this.data;
    for (;;) {
      switch (this.step) {
        case 'prepare':
          if (ctx.resumed) {
            this.finished = true; // stopped before anything changed
            return {};
          }
          if (after.table_id !== before.table_id) throw new TsdbError(StatusCode.InvalidArguments, `an alter cannot change a table's id (${before.table_id} to ${after.table_id})`);
          await ctx.guard(ctx.catalog.checkCurrent(before));
          if (before.name !== after.name && (await ctx.guard(ctx.catalog.table(after.database, after.name))) !== undefined) {
            throw new TsdbError(StatusCode.TableAlreadyExists, `Table already exists: \`${fullTableName(after)}\``);
          }
          if (altersRegions(before, after)) {
            const route = await ctx.guard(ctx.catalog.tableRoute(before.table_id));
            if (route === undefined) throw new TsdbError(StatusCode.TableUnavailable, `${fullTableName(before)} has no route: its regions cannot be altered`);
            this.data.route = route;
            await ctx.advance('alter_regions');
          } else await ctx.advance('update_metadata');
          break;
        case 'alter_regions':
          try {
            await this.alterRegions(ctx, this.data.route!);
          } catch (err) {
            // Not undone: a region altered stays so, as in a standalone server.
            this.finished = true;
            throw err;
          }
          await ctx.advance('update_metadata');
          break;
        case 'update_metadata':
          this.finished = true;
          if (ctx.resumed && (await this.applied(ctx))) return {};
          await ctx.guard(ctx.catalog.updateTable(before, after, { checkCurrent: true }));
          ctx.emit({ kind: 'table_changed', table_id: after.table_id });
          return {};
        default:
          throw new TsdbError(StatusCode.Internal, `${this.describe()}: unknown step ${this.step}`);
      }
    }
  }

  /** Whether the stored info is already `after` (a resumed procedure whose batch was written). */
  private async applied(ctx: ProcedureContext): Promise<boolean> {
    try {
      await ctx.guard(ctx.catalog.checkCurrent(this.data.after));
      return true;
    } catch {
      return false;
    }
  }

  private async alterRegions(ctx: ProcedureContext, route: TableRoute): Promise<void> {
    const after = this.data.after;
    // With the database's dynamic options (TTL, compaction) as they are now.
    const database = await ctx.guard(ctx.catalog.database(after.database));
    const options = regionOptionsOf(effectiveOptions(after.options, database?.options));
    const results = await Promise.allSettled(
      after.region_numbers.map((n) => {
        const id = regionId(after.table_id, n);
        const leader = route.region_routes.find((r) => r.region_number === n)?.leader_peer;
        if (leader === undefined) {
          return Promise.reject(new TsdbError(StatusCode.RegionNotReady, `Region ${formatRegionId(id)} of ${fullTableName(after)} has no datanode serving it: it cannot be altered`));
        }
        return ctx.regionCall(leader, `alter region ${n} of ${fullTableName(after)}`, (rs) => rs.alterRegion(id, regionMetadataOf(after, n, options)), {
          okWhenRepeated: [StatusCode.InvalidArguments],
        });
      }),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }
}
