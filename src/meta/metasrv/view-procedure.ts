/**
 * CREATE [OR REPLACE] VIEW and DROP VIEW in a cluster: one change of the view's record in the
 * catalog (`CatalogManager.createView` / `dropView`), under the view's name lock with its
 * database shared (a DROP DATABASE waits). A resumed one is applied again: a creation then finds
 * its own record (not an error), a drop finds none.
 */
import type { DdlResult, DdlTask } from '../meta-service.js';
import { CatalogChangeProcedure, type CatalogChangeData } from './catalog-change-procedure.js';
import type { LockRequest } from './lock-manager.js';
import { lockKeys, type ProcedureContext } from './procedure.js';

export type ViewTask = Extract<DdlTask, { kind: 'create_view' | 'drop_view' }>;

export type ViewData = CatalogChangeData<ViewTask>;

export const VIEW = 'view';

export class ViewProcedure extends CatalogChangeProcedure<ViewTask> {
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

  protected database(): string {
    return this.data.task.info.database;
  }

  protected async change(ctx: ProcedureContext): Promise<DdlResult> {
    const t = this.data.task;
    if (t.kind === 'create_view') await ctx.guard(ctx.catalog.createView(t.info, t.replace || ctx.resumed));
    else await ctx.guard(ctx.catalog.dropView(t.info.database, t.info.name));
    return {};
  }
}
