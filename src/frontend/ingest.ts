/**
 * Schema on write for the ingestion protocols (DESIGN.md "Write path"): each decoded table is
 * resolved, created when missing (tags as a STRING primary key, fields, the protocol's time index)
 * or given the columns it lacks, its columns are checked against the table's, and its rows are
 * written to the table's region.
 *
 * A request is checked whole before anything is written or created: a column whose type or kind
 * differs from the table's, a time index value outside the range of the table's unit (after the
 * conversion to it, computed exactly: never wrapped), or a table that would have more than
 * `MAX_COLUMNS_PER_TABLE` columns refuses the request, and nothing of it lands. Schema changes of
 * one table are serialized (`schemaLocks`, shared with ALTER TABLE), so concurrent writers adding
 * different columns do not lose one another's.
 */
import type { CatalogManager } from '../catalog/catalog-manager.js';
import type { TableDdl } from '../catalog/table-ddl.js';
import { checkColumnName, checkTableName } from '../catalog/limit-checks.js';
import { MAX_COLUMNS_PER_TABLE, MAX_NAME_LENGTH } from '../catalog/limits.js';
import { DEFAULT_CATALOG, fullTableName, type ColumnSchema, type TableInfo } from '../catalog/table-info.js';
import { formatTtl } from '../catalog/table-options.js';
import { StatusCode } from '../common/error/status-code.js';
import { TsdbError } from '../common/error/tsdb-error.js';
import type { KeyedMutex } from '../common/sync/keyed-mutex.js';
import { firstOutOfRange } from '../common/time/range-halves.js';
import { checkTimestampRange, NS_PER_UNIT, TIMESTAMP_RANGE } from '../common/time/timestamp.js';
import { OP_DELETE, OP_PUT, vectorLength, type Vector, type WriteBatch } from '../types/write-batch.js';
import { timeUnitOf, type TimeUnit } from '../types/time-unit.js';
import type { IngestColumn, IngestOptions, IngestTable } from './ingest-request.js';
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
  if (t.name.length > MAX_NAME_LENGTH) checkTableName(t.name);
  const names = new Set<string>();
  let ts: IngestColumn | undefined;
  for (const c of t.columns) {
    if (c.name === '') throw invalid(`table ${t.name}: a column name is empty`);
    checkColumnName(t.name, c.name);
    if (names.has(c.name)) throw invalid(`table ${t.name}: column ${c.name} is given twice`);
    names.add(c.name);
    const length = vectorLength(c.vector);
    if (length !== t.rowCount) throw invalid(`table ${t.name}: column ${c.name} has ${length} values for ${t.rowCount} rows`);
    if (c.semantic === 'timestamp') {
      if (ts !== undefined) throw invalid(`table ${t.name}: two time index columns, ${ts.name} and ${c.name}`);
      if (timeUnitOf(c.type) === undefined || c.vector.type !== 'int64') throw invalid(`table ${t.name}: time index ${c.name} is not a timestamp`);
      ts = c;
    }
    if (c.semantic === 'tag' && c.type === 'Binary') throw invalid(`table ${t.name}: tag ${c.name} is binary; a binary column cannot be part of the primary key`);
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

/** The unit of the time index of a table. */
function timeIndexUnit(info: TableInfo): TimeUnit {
  return timeUnitOf(info.columns.find((x) => x.name === info.time_index)!.data_type)!;
}

/** Throws the error of a time index value out of the range of its column's unit. */
function outOfRange(table: string, column: string, value: bigint, unit: TimeUnit): never {
  try {
    checkTimestampRange(value, unit, column);
  } catch (err) {
    throw invalid(`Invalid request to table ${table}, reason: ${(err as Error).message}`);
  }
  throw invalid(`Invalid request to table ${table}, reason: timestamp ${value} is out of range for column ${column}`);
}

/**
 * The time index values `c` in `unit` (floored, as every unit conversion here), for the time index
 * `column` of `table`: checked against the range of the unit, computed in BigInt so that nothing
 * wraps. The same vector when the units are the same.
 */
function timesIn(c: IngestColumn, unit: TimeUnit, table: string, column: string): Vector {
  const from = timeUnitOf(c.type)!;
  const src = c.vector.data as BigInt64Array;
  if (from === unit) {
    const bad = firstOutOfRange(src, unit);
    if (bad >= 0) outOfRange(table, column, src[bad]!, unit);
    return c.vector;
  }
  const out = new BigInt64Array(src.length);
  const fromNs = NS_PER_UNIT[from];
  const toNs = NS_PER_UNIT[unit];
  const { min, max } = TIMESTAMP_RANGE[unit];
  for (let i = 0; i < src.length; i++) {
    const ns = src[i]! * fromNs;
    let q = ns / toNs;
    if (ns % toNs < 0n) q -= 1n;
    if (q < min || q > max) outOfRange(table, column, q, unit);
    out[i] = q;
  }
  return { type: 'int64', data: out };
}

/** The time index column of a decoded table (`checkShape` made sure there is one). */
function timeColumnOf(t: IngestTable): IngestColumn {
  return t.columns.find((c) => c.semantic === 'timestamp')!;
}

/**
 * The time index of `t` for the table `info` (converted to its unit and checked against its range),
 * or, for a table to be created (`info` undefined), checked in its own unit.
 */
function checkedTimes(database: string, t: IngestTable, info: TableInfo | undefined): { unit: TimeUnit; vector: Vector } {
  const ts = timeColumnOf(t);
  if (info === undefined) {
    const unit = timeUnitOf(ts.type)!;
    return { unit, vector: timesIn(ts, unit, `${DEFAULT_CATALOG}.${database}.${t.name}`, ts.name) };
  }
  const unit = timeIndexUnit(info);
  return { unit, vector: timesIn(ts, unit, fullTableName(info), info.time_index) };
}

/** Refuses a table that would have more columns than `MAX_COLUMNS_PER_TABLE`. */
function checkWidth(table: string, columns: number): void {
  if (columns <= MAX_COLUMNS_PER_TABLE) return;
  throw invalid(`Invalid request to table ${table}, reason: it would have ${columns} columns, more than the ${MAX_COLUMNS_PER_TABLE} a table may have`);
}

/** The columns of `t` (besides its time index) that `info` lacks, by name only. */
function newColumnCount(info: TableInfo, t: IngestTable): number {
  const names = new Set(info.columns.map((c) => c.name));
  let n = 0;
  for (const c of t.columns) if (c.semantic !== 'timestamp' && !names.has(c.name)) n++;
  return n;
}

/**
 * The write batch of decoded rows for a table that has every column they name; `times` is the time
 * index already converted for `unit` (recomputed when the table's unit is another).
 */
function batchOf(info: TableInfo, t: IngestTable, times: { unit: TimeUnit; vector: Vector } | undefined): WriteBatch {
  const byName = new Map(info.columns.map((c) => [c.name, c]));
  const columns = new Map<number, Vector>();
  const unit = timeIndexUnit(info);
  for (const c of t.columns) {
    if (c.semantic !== 'timestamp') columns.set(byName.get(c.name)!.column_id, c.vector);
    else columns.set(byName.get(info.time_index)!.column_id, times !== undefined && times.unit === unit ? times.vector : timesIn(c, unit, fullTableName(info), info.time_index));
  }
  return { op: OP_PUT, rowCount: t.rowCount, columns };
}

/** How often a schema change raced by another writer is tried. */
const SCHEMA_ATTEMPTS = 5;

export class Ingester {
  constructor(
    private readonly catalog: CatalogManager,
    private readonly ddl: TableDdl,
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
    if (opts.ttl !== undefined) opts = { ...opts, ttl: formatTtl(opts.ttl) };
    const seen = new Set<string>();
    for (const t of tables) {
      checkShape(t);
      if (seen.has(t.name)) throw invalid(`table ${t.name} is given twice in one request`);
      seen.add(t.name);
    }
    // Check everything against the tables as they are before changing anything. The request as a
    // whole: time index values in range, tables within the column limit.
    const infos: Array<TableInfo | undefined> = [];
    const times: Array<{ unit: TimeUnit; vector: Vector }> = [];
    for (const t of tables) {
      const info = await this.catalog.table(database, t.name);
      if (info === undefined && opts.autoCreateTable === false) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${DEFAULT_CATALOG}.${database}.${t.name}`);
      infos.push(info);
      times.push(checkedTimes(database, t, info));
      if (info === undefined) checkWidth(`${DEFAULT_CATALOG}.${database}.${t.name}`, t.columns.length);
      else checkWidth(fullTableName(info), info.columns.length + newColumnCount(info, t));
    }
    // Each table: its columns' kinds and types against the table's.
    const failed = new Set<number>();
    const fail = (i: number, err: unknown) => {
      if (opts.onTableError === undefined) throw err;
      failed.add(i);
      opts.onTableError(i, err);
    };
    tables.forEach((t, i) => {
      const info = infos[i];
      if (info === undefined) return;
      try {
        missingColumns(info, t);
      } catch (err) {
        fail(i, err);
      }
    });
    if (opts.checkOnly === true) return 0;
    const ready: Array<{ info: TableInfo; table: IngestTable; index: number }> = [];
    for (const [i, t] of tables.entries()) {
      if (t.rowCount === 0 || failed.has(i)) continue;
      try {
        const info = await this.withSchemaRetries(() => (infos[i] !== undefined ? this.addColumns(database, t) : this.create(database, t, db.options, opts)));
        ready.push({ info, table: t, index: i });
      } catch (err) {
        fail(i, err);
      }
    }
    const written = await Promise.allSettled(ready.map(({ info, table, index }) => this.tables.write(info, batchOf(info, table, times[index]))));
    let rows = 0;
    for (const [k, w] of written.entries()) {
      if (w.status === 'fulfilled') rows += ready[k]!.table.rowCount;
      else fail(ready[k]!.index, w.reason);
    }
    return rows;
  }

  /**
   * Deletes rows by key (gRPC row deletes): each table must exist, and the decoded columns must
   * hold every primary key column and the time index, with the table's types and kinds (as
   * GreptimeDB's mito: `delete requests need column <c>`); field columns may come along and are
   * checked the same way, then ignored. Checked whole before anything is written; returns the number
   * of keys written as deletions (GreptimeDB's affected rows of a delete).
   */
  async delete(database: string, tables: readonly IngestTable[]): Promise<number> {
    await this.catalog.requireDatabase(database);
    const seen = new Set<string>();
    const batches: Array<{ info: TableInfo; batch: WriteBatch }> = [];
    for (const t of tables) {
      checkShape(t);
      if (seen.has(t.name)) throw invalid(`table ${t.name} is given twice in one request`);
      seen.add(t.name);
      const info = await this.catalog.table(database, t.name);
      if (info === undefined) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${DEFAULT_CATALOG}.${database}.${t.name}`);
      const unknown = missingColumns(info, t)[0];
      if (unknown !== undefined) throw new TsdbError(StatusCode.TableColumnNotFound, `Column ${unknown.name} not exists in table ${t.name}`);
      const byName = new Map(info.columns.map((c) => [c.name, c]));
      const columns = new Map<number, Vector>();
      for (const name of info.primary_key) {
        const given = t.columns.find((c) => c.name === name);
        if (given === undefined) throw invalid(`Invalid request to table ${fullTableName(info)}, reason: delete requests need column ${name}`);
        columns.set(byName.get(name)!.column_id, given.vector);
      }
      const times = checkedTimes(database, t, info);
      columns.set(byName.get(info.time_index)!.column_id, times.vector);
      // Given partition columns choose each row's region (without them it goes to every region).
      for (const name of info.partition?.columns ?? []) {
        const id = byName.get(name)!.column_id;
        const given = t.columns.find((c) => c.name === name);
        if (given !== undefined && !columns.has(id)) columns.set(id, given.vector);
      }
      if (t.rowCount > 0) batches.push({ info, batch: { op: OP_DELETE, rowCount: t.rowCount, columns } });
    }
    const written = await Promise.allSettled(batches.map(({ info, batch }) => this.tables.write(info, batch)));
    const failed = written.find((w): w is PromiseRejectedResult => w.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    return batches.reduce((n, b) => n + b.batch.rowCount, 0);
  }

  /**
   * Runs a schema change of ingestion again when another writer changed the table first — in a
   * cluster, another frontend: the table it was about to create exists now (TableAlreadyExists),
   * or the table it extends is no longer the one it read (RequestOutdated). The catalog is read
   * afresh each time. Nothing has been written yet, so running it again is safe.
   */
  private async withSchemaRetries<T>(step: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await step();
      } catch (err) {
        const raced = err instanceof TsdbError && (err.code === StatusCode.TableAlreadyExists || err.code === StatusCode.RequestOutdated);
        if (!raced || attempt >= SCHEMA_ATTEMPTS) throw err;
        this.catalog.invalidate();
      }
    }
  }

  /** Creates the table of `t` (or, when another writer just did, extends that one). */
  private async create(database: string, t: IngestTable, databaseOptions: Readonly<Record<string, string>>, opts: IngestOptions): Promise<TableInfo> {
    return this.schemaLocks.run(schemaLockKey(database, t.name), async () => {
      if ((await this.catalog.table(database, t.name)) !== undefined) return this.extend(database, t);
      if (opts.physicalTable !== undefined) return this.createLogical(database, t, opts.physicalTable, databaseOptions, opts.columnOrder);
      const own: Record<string, string> = { comment: CREATED_ON_INSERTION };
      if (opts.ttl !== undefined) own['ttl'] = opts.ttl;
      if (opts.appendMode === true) own['append_mode'] = 'true';
      else if (opts.mergeMode !== undefined && databaseOptions['append_mode'] !== 'true') own['merge_mode'] = opts.mergeMode;
      const info = this.tableInfo(database, t, t.columns, withDatabaseOptions(own, databaseOptions), 'mito', await this.ddl.allocateTableId(), opts.columnOrder);
      await createWithRegions(info, this.ddl, false);
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
      const physical = this.tableInfo(database, { ...t, name: physicalName }, own, withDatabaseOptions({ [PHYSICAL_TABLE_OPTION]: '' }, databaseOptions), METRIC_ENGINE, await this.ddl.allocateTableId(), order);
      await this.metricTables.create(physical, true);
    }
    const options = { [LOGICAL_TABLE_OPTION]: physicalName, comment: CREATED_ON_INSERTION };
    const info = this.tableInfo(database, t, t.columns, options, METRIC_ENGINE, await this.ddl.allocateTableId(), order);
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
    // Checked before the request changed anything, but another writer may have added columns since.
    checkWidth(fullTableName(info), info.columns.length + missing.length);
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
    await this.ddl.alterTable(info, next);
    return next;
  }
}
