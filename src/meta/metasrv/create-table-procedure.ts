/**
 * CREATE TABLE in a cluster (reference internals.md §6.6), with the results of the standalone
 * `LocalTableDdl.createTable`:
 *
 *   prepare          the database exists, the name is free; each region's datanode chosen by the
 *                    selector among those with a current lease (a logical metric table has none)
 *   create_regions   every region created on its datanode, in parallel
 *   create_metadata  name, info, route and datanode shares in one batch; subscribers told
 *   rollback         (after a failure) every region dropped again
 *
 * Resumed by a restarted metasrv: if the metadata was written the table is done; otherwise its
 * regions are dropped — no half-created table remains.
 */
import { regionDir, regionMetadataOf, fullTableName, ownsNoRegions, type TableInfo } from '../../catalog/table-info.js';
import { effectiveOptions, regionOptionsOf } from '../../catalog/table-options.js';
import { tablePlacement, type Peer } from '../../catalog/table-route.js';
import { StatusCode } from '../../common/error/status-code.js';
import { errorMessage, TsdbError } from '../../common/error/tsdb-error.js';
import { regionId, type RegionId } from '../../types/region-id.js';
import type { DdlResult } from '../meta-service.js';
import type { LockRequest } from './lock-manager.js';
import { lockKeys, Procedure, type ProcedureContext } from './procedure.js';

export interface CreateTableData {
  readonly info: TableInfo;
  readonly if_not_exists: boolean;
  /** The datanode of region `info.region_numbers[i]`, once chosen. */
  leaders?: Peer[];
  /** Why it is rolled back (for the log of a resumed rollback). */
  error?: string;
}

export const CREATE_TABLE = 'create_table';

export class CreateTableProcedure extends Procedure<CreateTableData> {
  readonly kind = CREATE_TABLE;

  static create(info: TableInfo, ifNotExists: boolean): CreateTableProcedure {
    return new CreateTableProcedure('prepare', { info, if_not_exists: ifNotExists });
  }

  describe(): string {
    return `CREATE TABLE ${fullTableName(this.data.info)} (id ${this.data.info.table_id})`;
  }

  locks(): LockRequest[] {
    const i = this.data.info;
    return [
      { key: lockKeys.database(i.database), exclusive: false },
      { key: lockKeys.tableName(i.database, i.name), exclusive: true },
    ];
  }

  override operating(): RegionId[] {
    if (this.data.leaders === undefined || !['create_regions', 'create_metadata', 'rollback'].includes(this.step)) return [];
    return this.data.info.region_numbers.map((n) => regionId(this.data.info.table_id, n));
  }

  async execute(ctx: ProcedureContext): Promise<DdlResult> {
    for (;;) {
      switch (this.step) {
        case 'prepare':
          if (ctx.resumed) {
            // Stopped before anything was created: nothing to undo.
            this.finished = true;
            return { created: false };
          }
          await this.prepare(ctx);
          if (this.finished) return { created: false };
          break;
        case 'create_regions':
          if (ctx.resumed) {
            // Which regions were created is unknown: the creation is undone.
            this.data.error = 'the metasrv stopped while the regions were created';
            await ctx.advance('rollback');
            break;
          }
          await this.createRegions(ctx);
          break;
        case 'create_metadata':
          return await this.createMetadata(ctx);
        case 'rollback':
          await this.rollback(ctx);
          this.finished = true;
          if (ctx.resumed) return { created: false };
          throw new TsdbError(StatusCode.Internal, `${this.describe()} was undone: ${this.data.error}`);
        default:
          throw new TsdbError(StatusCode.Internal, `${this.describe()}: unknown step ${this.step}`);
      }
    }
  }

  private async prepare(ctx: ProcedureContext): Promise<void> {
    const info = this.data.info;
    await ctx.guard(ctx.catalog.requireDatabase(info.database));
    if ((await ctx.guard(ctx.catalog.table(info.database, info.name))) !== undefined) {
      if (this.data.if_not_exists) {
        this.finished = true;
        return;
      }
      throw new TsdbError(StatusCode.TableAlreadyExists, `Table already exists: \`${fullTableName(info)}\``);
    }
    if (ownsNoRegions(info) || info.region_numbers.length === 0) {
      await ctx.advance('create_metadata');
      return;
    }
    this.data.leaders = ctx.selectDatanodes(info.region_numbers.length);
    await ctx.advance('create_regions');
  }

  private async createRegions(ctx: ProcedureContext): Promise<void> {
    const info = this.data.info;
    const leaders = this.data.leaders!;
    // With the database's dynamic options (TTL, compaction) as they are now.
    const database = await ctx.guard(ctx.catalog.database(info.database));
    const options = regionOptionsOf(effectiveOptions(info.options, database?.options));
    const results = await Promise.allSettled(
      info.region_numbers.map((n, i) =>
        ctx.regionCall(leaders[i]!, `create region ${n} of ${fullTableName(info)}`, (rs) => rs.createRegion(regionMetadataOf(info, n, options), regionDir(info, n)), {
          // The table id is new: a region of that id already there is this procedure's, from a try whose answer was lost.
          okWhenRepeated: [StatusCode.RegionAlreadyExists],
        }),
      ),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed === undefined) {
      await ctx.advance('create_metadata');
      return;
    }
    await this.undo(ctx, failed.reason);
  }

  private async createMetadata(ctx: ProcedureContext): Promise<DdlResult> {
    const info = this.data.info;
    if (ctx.resumed) {
      if (await ctx.guard(this.metadataWritten(ctx))) return this.done(ctx);
      this.data.error = 'the metasrv stopped before the metadata was written';
      await ctx.advance('rollback');
      return this.execute(ctx);
    }
    try {
      await ctx.guard(ctx.catalog.createTable(info, this.data.leaders === undefined ? undefined : tablePlacement(info, this.data.leaders)));
    } catch (err) {
      if (err instanceof TsdbError && err.code === StatusCode.TableAlreadyExists) {
        if (this.data.leaders !== undefined) await this.rollback(ctx);
        this.finished = true;
        if (this.data.if_not_exists) return { created: false };
        throw err;
      }
      // A store that failed may still have applied the batch: undo only what is known not written.
      let written: boolean;
      try {
        written = await ctx.guard(this.metadataWritten(ctx));
      } catch {
        throw err; // unknown: the record stays, the next start decides
      }
      if (written) return this.done(ctx);
      await this.undo(ctx, err);
    }
    return this.done(ctx);
  }

  private done(ctx: ProcedureContext): DdlResult {
    this.finished = true;
    ctx.emit({ kind: 'table_changed', table_id: this.data.info.table_id });
    return { created: true };
  }

  /** Whether the table's name points at this procedure's table id. */
  private async metadataWritten(ctx: ProcedureContext): Promise<boolean> {
    ctx.catalog.invalidate();
    const t = await ctx.catalog.table(this.data.info.database, this.data.info.name);
    return t?.table_id === this.data.info.table_id;
  }

  /** Drops the regions created so far, then fails with `cause`. */
  private async undo(ctx: ProcedureContext, cause: unknown): Promise<never> {
    this.data.error = errorMessage(cause);
    if (this.data.leaders !== undefined) {
      await ctx.advance('rollback');
      try {
        await this.rollback(ctx);
      } catch (err) {
        // Unfinished: the record stays and the next start drops what is left.
        ctx.logger.error({ err }, `${this.describe()}: its regions could not all be dropped after it failed`);
        throw cause;
      }
    }
    this.finished = true;
    throw cause;
  }

  private async rollback(ctx: ProcedureContext): Promise<void> {
    const info = this.data.info;
    const leaders = this.data.leaders ?? [];
    const results = await Promise.allSettled(
      info.region_numbers.map((n, i) =>
        leaders[i] === undefined
          ? Promise.resolve(undefined)
          : ctx.regionCall(leaders[i], `drop region ${n} of the undone ${fullTableName(info)}`, (rs) => rs.dropRegion(regionId(info.table_id, n)), { ok: [StatusCode.RegionNotFound] }),
      ),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    ctx.logger.info({ reason: this.data.error }, `${this.describe()} undone: its regions are dropped`);
  }
}
