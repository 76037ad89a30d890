/**
 * DDL in a cluster, as a frontend sends it: each change of databases and tables becomes a task the
 * metasrv runs as a procedure (placing regions on datanodes, then the metadata in one transaction).
 * The frontend's own caches are dropped once a task answers, so that its next statement sees the
 * change even before the metasrv's event arrives.
 */
import type { TableDdl } from '../catalog/table-ddl.js';
import type { TableInfo } from '../catalog/table-info.js';
import type { ViewInfo } from '../catalog/view-info.js';
import type { DdlTask, MetaService } from './meta-service.js';

export class MetaTableDdl implements TableDdl {
  constructor(
    private readonly meta: MetaService,
    /** `meta_client.ddl_timeout`: how long a task may take before the statement fails (the procedure still ends on its own). */
    private readonly timeoutMs: number,
    /** Told after every task, failed ones too (a task that timed out may still commit). */
    private readonly changed: (task: DdlTask) => void,
  ) {}

  private async run(task: DdlTask): Promise<boolean> {
    try {
      return (await this.meta.ddl(task, this.timeoutMs)).created ?? true;
    } finally {
      this.changed(task);
    }
  }

  allocateTableId(): Promise<number> {
    return this.meta.allocateTableId();
  }

  createTable(info: TableInfo, ifNotExists: boolean): Promise<boolean> {
    return this.run({ kind: 'create_table', info, if_not_exists: ifNotExists });
  }

  async alterTable(before: TableInfo, after: TableInfo): Promise<void> {
    await this.run({ kind: 'alter_table', before, after });
  }

  async dropTable(info: TableInfo): Promise<void> {
    await this.run({ kind: 'drop_table', info });
  }

  async truncateTable(info: TableInfo): Promise<void> {
    await this.run({ kind: 'truncate_table', info });
  }

  createDatabase(name: string, options: Readonly<Record<string, string>>, ifNotExists: boolean): Promise<boolean> {
    return this.run({ kind: 'create_database', name, options, if_not_exists: ifNotExists });
  }

  async alterDatabase(name: string, set: Readonly<Record<string, string>>, unset: readonly string[]): Promise<void> {
    await this.run({ kind: 'alter_database', name, set, unset });
  }

  async dropDatabase(name: string): Promise<void> {
    await this.run({ kind: 'drop_database', name });
  }

  async createView(info: ViewInfo, replace: boolean): Promise<void> {
    await this.run({ kind: 'create_view', info, replace });
  }

  async dropView(info: ViewInfo): Promise<void> {
    await this.run({ kind: 'drop_view', info });
  }
}
