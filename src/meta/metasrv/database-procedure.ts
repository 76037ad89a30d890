/**
 * CREATE, ALTER and DROP DATABASE in a cluster, with the results of `LocalTableDdl`: one change
 * of the database's record, under the database's exclusive lock (so no table DDL of it runs
 * meanwhile); subscribers told. A resumed one is applied again, which changes nothing more.
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { DdlResult, DdlTask } from '../meta-service.js';
import type { LockRequest } from './lock-manager.js';
import { lockKeys, Procedure, type ProcedureContext } from './procedure.js';

export type DatabaseTask = Extract<DdlTask, { kind: 'create_database' | 'alter_database' | 'drop_database' }>;

export interface DatabaseData {
  readonly task: DatabaseTask;
}

export const DATABASE = 'database';

export class DatabaseProcedure extends Procedure<DatabaseData> {
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

  async execute(ctx: ProcedureContext): Promise<DdlResult> {
    if (this.step !== 'apply') throw new TsdbError(StatusCode.Internal, `${this.describe()}: unknown step ${this.step}`);
    const t = this.data.task;
    this.finished = true;
    let result: DdlResult = {};
    switch (t.kind) {
      case 'create_database':
        // A resumed creation may find its own record: not an error then.
        result = { created: await ctx.guard(ctx.catalog.createDatabase(t.name, t.options, t.if_not_exists || ctx.resumed)) };
        break;
      case 'alter_database':
        await ctx.guard(ctx.catalog.alterDatabase(t.name, t.set, t.unset));
        break;
      case 'drop_database':
        await ctx.guard(ctx.catalog.dropDatabase(t.name));
        break;
    }
    ctx.emit({ kind: 'database_changed', name: t.name });
    return result;
  }
}
