/**
 * CREATE, ALTER and DROP DATABASE in a cluster, with the results of `LocalTableDdl`: one change
 * of the database's record, under the database's exclusive lock (so no table DDL of it runs
 * meanwhile). A resumed one is applied again, which changes nothing more.
 */
import type { DdlResult, DdlTask } from '../meta-service.js';
import { CatalogChangeProcedure, type CatalogChangeData } from './catalog-change-procedure.js';
import type { LockRequest } from './lock-manager.js';
import { lockKeys, type ProcedureContext } from './procedure.js';

export type DatabaseTask = Extract<DdlTask, { kind: 'create_database' | 'alter_database' | 'drop_database' }>;

export type DatabaseData = CatalogChangeData<DatabaseTask>;

export const DATABASE = 'database';

export class DatabaseProcedure extends CatalogChangeProcedure<DatabaseTask> {
  readonly kind = DATABASE;

  static create(task: DatabaseTask): DatabaseProcedure {
    return new DatabaseProcedure('apply', { task });
  }

  describe(): string {
    const t = this.data.task;
    return `${t.kind.replace('_', ' ').toUpperCase()} ${t.name}`;
  }

  locks(): LockRequest[] {
    return [{ key: lockKeys.database(this.data.task.name), exclusive: true }];
  }

  protected database(): string {
    return this.data.task.name;
  }

  protected async change(ctx: ProcedureContext): Promise<DdlResult> {
    const t = this.data.task;
    switch (t.kind) {
      case 'create_database':
        // A resumed creation may find its own record: not an error then.
        return { created: await ctx.guard(ctx.catalog.createDatabase(t.name, t.options, t.if_not_exists || ctx.resumed)) };
      case 'alter_database':
        await ctx.guard(ctx.catalog.alterDatabase(t.name, t.set, t.unset));
        return {};
      case 'drop_database':
        await ctx.guard(ctx.catalog.dropDatabase(t.name));
        return {};
    }
  }
}
