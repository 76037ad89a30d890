/**
 * Creating and extending metric-engine tables (`metric-engine.ts`): physical tables get their
 * internal key columns and their regions (one per partition expression); logical tables get a catalog entry only, after their tags have
 * been added to the physical table (under the physical table's schema lock, so concurrent creators
 * of logical tables do not lose one another's tags).
 */
import type { CatalogManager } from '../catalog/catalog-manager.js';
import { checkColumnCount, checkColumnName, checkTableName } from '../catalog/limit-checks.js';
import { MAX_COLUMNS_PER_REGION } from '../catalog/limits.js';
import type { TableDdl } from '../catalog/table-ddl.js';
import { parsePartition, partitionRuleOf } from '../catalog/partition-rule.js';
import { DEFAULT_CATALOG, type ColumnSchema, type TableInfo } from '../catalog/table-info.js';
import { regionOptionsOf } from '../catalog/table-options.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { KeyedMutex } from '../common/sync/keyed-mutex.js';
import { schemaLockKey } from './ingest.js';
import { checkLogical, isLogicalTable, isPhysicalTable, LOGICAL_TABLE_OPTION, PHYSICAL_TABLE_OPTION, physicalTableInfo, withTags } from './metric-engine.js';
import { createWithRegions } from './statement/create-table.js';

export class MetricTables {
  constructor(
    private readonly catalog: CatalogManager,
    private readonly ddl: TableDdl,
    private readonly schemaLocks: KeyedMutex,
  ) {}

  /**
   * Creates a metric table from its checked info (engine `metric`, one of the two options); returns
   * whether it was created (false: it exists and `ifNotExists`).
   */
  async create(info: TableInfo, ifNotExists: boolean): Promise<boolean> {
    checkTableName(info.name);
    const physicalOpt = info.options[PHYSICAL_TABLE_OPTION];
    const logicalOpt = info.options[LOGICAL_TABLE_OPTION];
    if ((physicalOpt === undefined) === (logicalOpt === undefined)) {
      throw new TsdbError(StatusCode.InvalidArguments, `A metric table needs exactly one of the options ${PHYSICAL_TABLE_OPTION} (a physical table) or ${LOGICAL_TABLE_OPTION} (a logical table on one)`);
    }
    if (physicalOpt !== undefined) return createWithRegions(physicalTableInfo(info), this.ddl, ifNotExists);
    return this.createLogical(info, ifNotExists);
  }

  private async createLogical(info: TableInfo, ifNotExists: boolean): Promise<boolean> {
    const physicalName = info.options[LOGICAL_TABLE_OPTION]!;
    return this.schemaLocks.run(schemaLockKey(info.database, physicalName), async () => {
      const physical = await this.requirePhysical(info.database, physicalName);
      checkLogicalPartition(info, physical);
      // The logical table's time index and fields are the physical table's; its own options are
      // only the link (region options are the physical region's).
      await this.addTags(physical, checkLogical(info, physical));
      // Its rows are routed by its physical table's rule: it keeps none of its own.
      const { partition: _, ...own } = info;
      return this.ddl.createTable({ ...own, region_numbers: [0] }, ifNotExists);
    });
  }

  /** The physical table of a logical one, which must be a physical metric table. */
  private async requirePhysical(database: string, name: string): Promise<TableInfo> {
    const physical = await this.catalog.table(database, name);
    if (physical === undefined) throw new TsdbError(StatusCode.TableNotFound, `Physical table not found: ${DEFAULT_CATALOG}.${database}.${name}`);
    if (!isPhysicalTable(physical)) throw new TsdbError(StatusCode.InvalidArguments, `Table ${name} is not a physical metric table (${PHYSICAL_TABLE_OPTION})`);
    return physical;
  }

  /** Adds tags to a physical table and its region (caller holds its schema lock); returns it. */
  private async addTags(physical: TableInfo, tags: readonly ColumnSchema[]): Promise<TableInfo> {
    if (tags.length === 0) return physical;
    const next = withTags(physical, tags);
    checkColumnCount(physical.name, next.columns.length, MAX_COLUMNS_PER_REGION);
    for (const t of tags) checkColumnName(physical.name, t.name);
    regionOptionsOf(next.options);
    await this.ddl.alterTable(physical, next);
    return next;
  }

  /**
   * Adds tags to a logical table (and to its physical table first). The caller holds the logical
   * table's schema lock; the physical table's is taken here.
   */
  async addLogicalTags(logical: TableInfo, tags: readonly ColumnSchema[]): Promise<TableInfo> {
    if (!isLogicalTable(logical)) throw new TsdbError(StatusCode.Unexpected, `${logical.name} is not a logical table`);
    const physicalName = logical.options[LOGICAL_TABLE_OPTION]!;
    let nextId = logical.next_column_id;
    const added = tags.map((c) => ({ ...c, column_id: nextId++, semantic_type: 'tag' as const, nullable: true }));
    const next: TableInfo = {
      ...logical,
      columns: [...logical.columns, ...added],
      primary_key: [...logical.primary_key, ...added.map((c) => c.name)],
      next_column_id: nextId,
      schema_version: logical.schema_version + 1,
    };
    await this.schemaLocks.run(schemaLockKey(logical.database, physicalName), async () => {
      const physical = await this.requirePhysical(logical.database, physicalName);
      await this.addTags(physical, checkLogical(next, physical));
    });
    await this.ddl.alterTable(logical, next);
    return next;
  }
}

/**
 * A logical table may repeat its physical table's partition rule (its expressions in any order) or
 * give none (`PARTITION ON COLUMNS (host) ()`); any other rule is refused (GreptimeDB's message).
 */
function checkLogicalPartition(logical: TableInfo, physical: TableInfo): void {
  const own = logical.partition;
  if (own === undefined || own.exprs.length === 0) return;
  const mine = parsePartition(own, logical);
  const theirs = partitionRuleOf(physical) ?? parsePartition({ columns: [], exprs: [] }, physical);
  if (mine.sameExprs(theirs)) return;
  throw new TsdbError(
    StatusCode.InvalidArguments,
    `Invalid partition rule: logical table partition rule must match the corresponding physical table's\n logical table partition exprs:\t\t ${mine.debugList()}\n physical table partition exprs:\t ${theirs.debugList()}`,
  );
}
