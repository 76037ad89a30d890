/**
 * CREATE [OR REPLACE] VIEW and DROP VIEW in a cluster: one change of the view's record in the
 * catalog (`CatalogManager.createView` / `dropView`), under the view's name lock with its
 * database shared (a DROP DATABASE waits), subscribers told. A resumed one is applied again: a
 * creation then finds its own record (not an error), a drop finds none.
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { DdlResult, DdlTask } from '../meta-service.js';
import type { LockRequest } from './lock-manager.js';
import { lockKeys, Procedure, type ProcedureContext } from './procedure.js';

export type ViewTask = Extract<DdlTask, { kind: 'create_view' | 'drop_view' }>;

export interface ViewData {
  readonly task: ViewTask;
}

export const VIEW = 'view';

export class ViewProcedure extends Procedure<ViewData> {
  readonly kind = VIEW;

  static create(task: ViewTask): ViewProcedure {
    return new ViewProcedure('apply', { task });
  }

  describe(): string {
    const t = this.data.task;
    return `${t.kind === 'create_view' ? 'CREATE VIEW' : 'DROP VIEW'} ${t.info.database}.${t.info.name}`;
  }

  locks(): LockRequest[] {
    const { database, name } = this.data.task.info;
    return [
      { key: lockKeys.database(database), exclusive: false },
      { key: lockKeys.tableName(database, name), exclusive: true },
    ];
  }

  async execute(ctx: ProcedureContext): Promise<DdlResult> {
    if (this.step !== 'apply') throw new TsdbError(StatusCode.Internal, `${this.describe()}: unknown step ${this.step}`);
    const t = this.data.task;
    this.finished = true;
    if (t.kind === 'create_view') await ctx.guard(ctx.catalog.createView(t.info, t.replace || ctx.resumed));
    else await ctx.guard(ctx.catalog.dropView(t.info.database, t.info.name));
    ctx.emit({ kind: 'database_changed', name: t.info.database });
    return {};
  }
}
