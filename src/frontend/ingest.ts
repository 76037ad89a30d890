/**
 * Schema on write for the ingestion protocols (DESIGN.md "Write path"): each decoded table is
 * resolved, created when missing (tags as a STRING primary key, fields, the protocol's time index)
 * or given the columns it lacks, its columns are checked against the table's, and its rows are
 * written to the table's region.
 *
 * A request is checked whole before anything is written or created: a column whose type or kind
 * differs from the table's refuses the request, and nothing of it lands. Schema changes of one
 * table are serialized (`schemaLocks`, shared with ALTER TABLE), so concurrent writers adding
 * different columns do not lose one another's.
 */
import type { CatalogManager } from '../catalog/catalog-manager.js';
import { DEFAULT_CATALOG, fullTableName, regionMetadataOf, tableRegionIds, type ColumnSchema, type TableInfo } from '../catalog/table-info.js';
import { regionOptionsOf } from '../catalog/table-options.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { KeyedMutex } from '../common/sync/keyed-mutex.js';
import { NS_PER_UNIT } from '../common/time/timestamp.js';
import { OP_PUT, type Vector, type WriteBatch } from '../engine/batch/write-batch.js';
import { timeUnitOf } from '../engine/region/time-unit.js';
import type { IngestColumn, IngestOptions, IngestTable } from './ingest-request.js';
import type { RegionAccess } from './region-access.js';
import type { TableRouter } from './table-router.js';
import { isLogicalTable, LOGICAL_TABLE_OPTION, METRIC_ENGINE, PHYSICAL_TABLE_OPTION } from './metric-engine.js';
import type { MetricTables } from './metric-tables.js';
import { createWithRegions, withDatabaseOptions } from './statement/create-table.js';

/** The comment of tables the protocols create (reference api.md §1.4–1.6). */
export const CREATED_ON_INSERTION = 'Created on insertion';

function invalid(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, message);
}

/** The key under which schema changes of a table are serialized. */
export function schemaLockKey(database: string, table: string): string {
  return `${database}\u0000${table}`;
}

/** Checks the shape of a decoded table (a protocol decoder's promise); returns its time index column. */
function checkShape(t: IngestTable): IngestColumn {
  if (t.name === '') throw invalid('a table name is empty');
  const names = new Set<string>();
  let ts: IngestColumn | undefined;
  for (const c of t.columns) {
    if (c.name === '') throw invalid(`table ${t.name}: a column name is empty`);
    if (names.has(c.name)) throw invalid(`table ${t.name}: column ${c.name} is given twice`);
    names.add(c.name);
    if (c.vector.data.length !== t.rowCount) throw invalid(`table ${t.name}: column ${c.name} has ${c.vector.data.length} values for ${t.rowCount} rows`);
    if (c.semantic === 'timestamp') {
      if (ts !== undefined) throw invalid(`table ${t.name}: two time index columns, ${ts.name} and ${c.name}`);
      if (timeUnitOf(c.type) === undefined || c.vector.type !== 'int64') throw invalid(`table ${t.name}: time index ${c.name} is not a timestamp`);
      ts = c;
    }
    if (c.semantic === 'tag' && c.type !== 'String') throw invalid(`table ${t.name}: tag ${c.name} is not a string`);
  }
  if (ts === undefined) throw invalid(`table ${t.name}: no time index column`);
  return ts;
}

function kindName(semantic: string): string {
  return semantic === 'tag' ? 'a tag' : semantic === 'field' ? 'a field' : 'the time index';
}

/**
 * Checks the decoded columns against an existing table: the time index maps to the table's (any
 * name, converted to its unit); every other column that exists must have the same kind and type.
 * Returns the columns the table lacks.
 */
function missingColumns(info: TableInfo, t: IngestTable): IngestColumn[] {
  const byName = new Map(info.columns.map((c) => [c.name, c]));
  const missing: IngestColumn[] = [];
  for (const c of t.columns) {
    if (c.semantic === 'timestamp') continue;
    const have = byName.get(c.name);
    if (have === undefined) {
      missing.push(c);
      continue;
    }
    if (have.semantic_type !== c.semantic) {
      throw invalid(`Invalid request to table ${fullTableName(info)}, reason: column ${c.name} is ${kindName(have.semantic_type)} of the table, but ${kindName(c.semantic)} of the request`);
    }
    if (have.data_type !== c.type) {
      throw invalid(`Invalid request to table ${fullTableName(info)}, reason: column ${c.name} expect type ${have.data_type}, given: ${c.type}`);
    }
  }
  return missing;
}

function schemaOf(c: IngestColumn, id: number): ColumnSchema {
  return { column_id: id, name: c.name, data_type: c.type, semantic_type: c.semantic, nullable: c.semantic !== 'timestamp' };
}

/** The time index values in the table's unit (floored, as every unit conversion here). */
function timesIn(c: IngestColumn, info: TableInfo): Vector {
  const to = timeUnitOf(info.columns.find((x) => x.name === info.time_index)!.data_type)!;
  const from = timeUnitOf(c.type)!;
  if (from === to) return c.vector;
  const src = c.vector.data as BigInt64Array;
  const out = new BigInt64Array(src.length);
  const fromNs = NS_PER_UNIT[from];
  const toNs = NS_PER_UNIT[to];
  for (let i = 0; i < src.length; i++) {
    const ns = src[i]! * fromNs;
    const q = ns / toNs;
    out[i] = ns % toNs < 0n ? q - 1n : q;
  }
  return { type: 'int64', data: out };
}

/** The write batch of decoded rows for a table that has every column they name. */
function batchOf(info: TableInfo, t: IngestTable): WriteBatch {
  const byName = new Map(info.columns.map((c) => [c.name, c]));
  const columns = new Map<number, Vector>();
  for (const c of t.columns) {
    if (c.semantic === 'timestamp') columns.set(byName.get(info.time_index)!.column_id, timesIn(c, info));
    else columns.set(byName.get(c.name)!.column_id, c.vector);
  }
  return { op: OP_PUT, rowCount: t.rowCount, columns };
}

export class Ingester {
  constructor(
    private readonly catalog: CatalogManager,
    private readonly regions: RegionAccess,
    private readonly tables: TableRouter,
    private readonly metricTables: MetricTables,
    private readonly schemaLocks: KeyedMutex,
  ) {}

  /**
   * Writes decoded tables into `database`; returns the number of rows written. Tables of one
   * name are merged by the caller (one IngestTable per table).
   */
  async ingest(database: string, tables: readonly IngestTable[], opts: IngestOptions = {}): Promise<number> {
    const db = await this.catalog.requireDatabase(database);
    const seen = new Set<string>();
    for (const t of tables) {
      checkShape(t);
      if (seen.has(t.name)) throw invalid(`table ${t.name} is given twice in one request`);
      seen.add(t.name);
    }
    // Check everything against the tables as they are before changing anything.
    const existing = new Map<string, TableInfo>();
    for (const t of tables) {
      const info = await this.catalog.table(database, t.name);
      if (info === undefined) continue;
      missingColumns(info, t);
      existing.set(t.name, info);
    }
    const ready: Array<{ info: TableInfo; table: IngestTable }> = [];
    for (const t of tables) {
      if (t.rowCount === 0) continue;
      const info = existing.has(t.name) ? await this.addColumns(database, t) : await this.create(database, t, db.options, opts);
      ready.push({ info, table: t });
    }
    await Promise.all(ready.map(({ info, table }) => this.tables.write(info, batchOf(info, table))));
    return ready.reduce((n, r) => n + r.table.rowCount, 0);
  }

  /** Creates the table of `t` (or, when another writer just did, extends that one). */
  private async create(database: string, t: IngestTable, databaseOptions: Readonly<Record<string, string>>, opts: IngestOptions): Promise<TableInfo> {
    return this.schemaLocks.run(schemaLockKey(database, t.name), async () => {
      if ((await this.catalog.table(database, t.name)) !== undefined) return this.extend(database, t);
      if (opts.physicalTable !== undefined) return this.createLogical(database, t, opts.physicalTable, databaseOptions, opts.columnOrder);
      const own: Record<string, string> = { comment: CREATED_ON_INSERTION };
      if (opts.appendMode === true) own['append_mode'] = 'true';
      else if (opts.mergeMode !== undefined && databaseOptions['append_mode'] !== 'true') own['merge_mode'] = opts.mergeMode;
      const info = this.tableInfo(database, t, t.columns, withDatabaseOptions(own, databaseOptions), 'mito', await this.catalog.allocateTableId(), opts.columnOrder);
      await createWithRegions(info, this.catalog, this.regions, false);
      return info;
    });
  }

  /** A table made of decoded columns: tags, then fields, then the time index (GreptimeDB's order). */
  private tableInfo(database: string, t: IngestTable, cols: readonly IngestColumn[], options: Record<string, string>, engine: string, id: number, order: IngestOptions['columnOrder']): TableInfo {
    const ordered = order === 'as_given' ? cols : [...cols.filter((c) => c.semantic === 'tag'), ...cols.filter((c) => c.semantic === 'field'), ...cols.filter((c) => c.semantic === 'timestamp')];
    const columns = ordered.map((c, i) => schemaOf(c, i));
    return {
      table_id: id,
      catalog: DEFAULT_CATALOG,
      database,
      name: t.name,
      columns,
      primary_key: columns.filter((c) => c.semantic_type === 'tag').map((c) => c.name),
      time_index: columns.find((c) => c.semantic_type === 'timestamp')!.name,
      engine,
      options,
      region_numbers: [0],
      next_column_id: columns.length,
      schema_version: 0,
      created_at: Date.now(),
      ...(options['comment'] !== undefined && { comment: options['comment'] }),
    };
  }

  /** Creates `t` as a logical metric table on `physicalName`, creating that from `t`'s time index and fields when missing. */
  private async createLogical(database: string, t: IngestTable, physicalName: string, databaseOptions: Readonly<Record<string, string>>, order: IngestOptions['columnOrder']): Promise<TableInfo> {
    if ((await this.catalog.table(database, physicalName)) === undefined) {
      const own = t.columns.filter((c) => c.semantic !== 'tag');
      const physical = this.tableInfo(database, { ...t, name: physicalName }, own, withDatabaseOptions({ [PHYSICAL_TABLE_OPTION]: '' }, databaseOptions), METRIC_ENGINE, await this.catalog.allocateTableId(), order);
      await this.metricTables.create(physical, true);
    }
    const options = { [LOGICAL_TABLE_OPTION]: physicalName, comment: CREATED_ON_INSERTION };
    const info = this.tableInfo(database, t, t.columns, options, METRIC_ENGINE, await this.catalog.allocateTableId(), order);
    await this.metricTables.create(info, true);
    return (await this.catalog.table(database, t.name))!;
  }

  private async addColumns(database: string, t: IngestTable): Promise<TableInfo> {
    const info = await this.catalog.table(database, t.name);
    // Most writes add nothing: no lock needed to find that out.
    if (info !== undefined && missingColumns(info, t).length === 0) return info;
    return this.schemaLocks.run(schemaLockKey(database, t.name), () => this.extend(database, t));
  }

  /** Adds the columns `t` has and the table lacks (under the table's schema lock). */
  private async extend(database: string, t: IngestTable): Promise<TableInfo> {
    const info = await this.catalog.table(database, t.name);
    if (info === undefined) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${DEFAULT_CATALOG}.${database}.${t.name}`);
    const missing = missingColumns(info, t);
    if (missing.length === 0) return info;
    if (isLogicalTable(info)) {
      const field = missing.find((c) => c.semantic !== 'tag');
      if (field !== undefined) throw invalid(`Invalid request to table ${fullTableName(info)}, reason: field ${field.name} is not a field of its physical metric table`);
      return this.metricTables.addLogicalTags(info, missing.map((c, i) => schemaOf(c, i)));
    }
    let nextId = info.next_column_id;
    const added = missing.map((c) => schemaOf(c, nextId++));
    const next: TableInfo = {
      ...info,
      columns: [...info.columns, ...added],
      primary_key: [...info.primary_key, ...added.filter((c) => c.semantic_type === 'tag').map((c) => c.name)],
      next_column_id: nextId,
      schema_version: info.schema_version + 1,
    };
    const options = regionOptionsOf(next.options);
    for (const [i, id] of tableRegionIds(next).entries()) await this.regions.alterRegion(id, regionMetadataOf(next, next.region_numbers[i]!, options));
    await this.catalog.updateTable(info, next);
    return next;
  }
}
