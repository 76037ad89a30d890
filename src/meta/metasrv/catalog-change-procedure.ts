/**
 * The shape of a procedure that is one change of the catalog's records (a database's, a view's),
 * made by `CatalogManager` in one step, `apply`, under the procedure's locks; then the subscribers
 * are told that the database changed. It is finished once the change is attempted: one that fails
 * gives its error to the user and is not run again at a restart. A resumed one (the metasrv stopped
 * midway) is applied again, so each change is one that may be repeated (`ctx.resumed` tells a
 * creation that finding its own record is not an error).
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { DdlResult } from '../meta-service.js';
import { Procedure, type ProcedureContext } from './procedure.js';

/** What is stored of a catalog change: its DDL task. */
export interface CatalogChangeData<T> {
  readonly task: T;
}

export abstract class CatalogChangeProcedure<T> extends Procedure<CatalogChangeData<T>> {
  /** Makes the change; its result is the DDL's. */
  protected abstract change(ctx: ProcedureContext): Promise<DdlResult>;

  /** The database whose subscribers are told. */
  protected abstract database(): string;

  async execute(ctx: ProcedureContext): Promise<DdlResult> {
    if (this.step !== 'apply') throw new TsdbError(StatusCode.Internal, `${this.describe()}: unknown step ${this.step}`);
    this.finished = true;
    const result = await this.change(ctx);
    ctx.emit({ kind: 'database_changed', name: this.database() });
    return result;
  }
}
