/**
 * CREATE TABLE: from the statement to a checked table info (types, time index, primary key,
 * defaults, options inherited from the database, the partition rule and its regions), then the
 * regions, then the catalog entry.
 */
import { columnTypeOf } from '../../catalog/column-types.js';
import type { CatalogManager } from '../../catalog/catalog-manager.js';
import type { TableDdl } from '../../catalog/table-ddl.js';
import { checkColumnCount, checkColumnName, checkTableName } from '../../catalog/limit-checks.js';
import { checkedPartition } from '../../catalog/partition-rule.js';
import { checkOptions, COMPACTION_OVERRIDE, isDynamicDatabaseOption, regionOptionsOf } from '../../catalog/table-options.js';
import { columnIndexFields } from '../../catalog/column-indexes.js';
import { DEFAULT_CATALOG, INFORMATION_SCHEMA, type ColumnDefault, type ColumnSchema, type TableInfo } from '../../catalog/table-info.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { storedTypeOf, TIMESTAMP_TYPES, type ColumnType, type TimestampType } from '../../types/region-metadata.js';
import type { ColumnDef, Statement, ValueExpr } from '../../sql/ast.js';
import type { Session } from '../session.js';
import { resolveName } from './names.js';
import { columnDefault } from './values.js';

type CreateTable = Extract<Statement, { kind: 'create_table' }>;

function invalidColumn(name: string, error: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, `Invalid column option, column name: ${name}, error: ${error}`);
}

function isTimestamp(t: ColumnType): t is TimestampType {
  return (TIMESTAMP_TYPES as readonly string[]).includes(t);
}

/** A column's DEFAULT as stored: a constant of the column's type, or the time of the write. */
function defaultOf(def: ColumnDef, type: ColumnType, v: ValueExpr, zone: string): ColumnDefault {
  const d = columnDefault(type, v, zone);
  if (!('reason' in d)) return d;
  throw invalidColumn(def.name, d.reason === 'expression' ? `unsupported default expression ${d.detail}` : `invalid default value: ${d.detail}`);
}

/**
 * A table's options: its own, over those of its database it does not set (checked for the engine).
 * The database's TTL and compaction options are not copied: they apply from the database as it is
 * (`effectiveOptions`), so that ALTER DATABASE reaches the table. Compaction options of its own
 * mark the table as overriding its database's (`compaction.override`), as GreptimeDB does.
 */
export function withDatabaseOptions(own: Readonly<Record<string, string>>, databaseOptions: Readonly<Record<string, string>>): Record<string, string> {
  const inherited = Object.fromEntries(
    Object.entries(databaseOptions).filter(([k]) => own[k] === undefined && !isDynamicDatabaseOption(k) && !(k === 'merge_mode' && own['append_mode'] === 'true')),
  );
  const options = { ...inherited, ...own, ...(own['compaction.type'] !== undefined && { [COMPACTION_OVERRIDE]: 'true' }) };
  regionOptionsOf(options);
  return options;
}

/** Checks the statement and builds the table's info (id allocated by the caller). */
export function tableInfoOf(stmt: CreateTable, database: string, tableId: number, databaseOptions: Readonly<Record<string, string>>, zone = 'UTC'): TableInfo {
  const name = stmt.name.parts.at(-1)!;
  const seen = new Set<string>();
  for (const c of stmt.columns) {
    if (seen.has(c.name)) throw new TsdbError(StatusCode.InvalidArguments, `Duplicate column name: ${c.name}`);
    seen.add(c.name);
  }
  const timeIndex = stmt.timeIndex ?? stmt.columns.find((c) => c.timeIndex)?.name;
  if (timeIndex === undefined) throw new TsdbError(StatusCode.InvalidSyntax, 'Missing time index constraint');
  if (!seen.has(timeIndex)) throw new TsdbError(StatusCode.InvalidArguments, `Invalid time index: column ${timeIndex} not found`);
  const primaryKey = stmt.primaryKey ?? stmt.columns.filter((c) => c.primaryKey).map((c) => c.name);
  for (const k of primaryKey) {
    if (!seen.has(k)) throw new TsdbError(StatusCode.InvalidArguments, `Illegal primary keys definition: column ${k} not found`);
    if (k === timeIndex) throw new TsdbError(StatusCode.InvalidArguments, `Illegal primary keys definition: the time index ${k} cannot be in the primary key`);
  }
  if (new Set(primaryKey).size !== primaryKey.length) throw new TsdbError(StatusCode.InvalidArguments, 'Illegal primary keys definition: a column appears twice');

  const columns: ColumnSchema[] = stmt.columns.map((c, i) => {
    const type = columnTypeOf(c.type, c.name);
    const isTime = c.name === timeIndex;
    if (isTime && !isTimestamp(type)) throw invalidColumn(c.name, 'time index column data type should be timestamp');
    if (isTime && c.nullable === true) throw invalidColumn(c.name, "time index column can't be null");
    if (primaryKey.includes(c.name) && storedTypeOf(type) === 'Binary') throw invalidColumn(c.name, 'a binary column cannot be part of the primary key');
    return {
      column_id: i,
      name: c.name,
      data_type: type,
      semantic_type: isTime ? 'timestamp' : primaryKey.includes(c.name) ? 'tag' : 'field',
      nullable: isTime ? false : c.nullable !== false,
      ...(c.default !== undefined && c.default.kind !== 'null' && { default: defaultOf(c, type, c.default, zone) }),
      ...(c.comment !== undefined && { comment: c.comment }),
      ...(c.indexes.some((x) => x.kind === 'inverted') && { inverted_index: true }),
      ...columnIndexFields(c.indexes),
    };
  });
  const engine = (stmt.engine ?? 'mito').toLowerCase();
  if (engine !== 'mito' && engine !== 'metric') throw new TsdbError(StatusCode.Unsupported, `Unsupported table engine: ${stmt.engine}`);
  // One region per partition expression (none: one region); a logical metric table's rule is
  // checked against its physical table's when it is created (`metric-tables.ts`).
  const partition = stmt.partition === undefined ? undefined : checkedPartition(stmt.partition, { name, columns }, zone);
  const regionCount = Math.max(1, partition?.exprs.length ?? 0);
  const options = withDatabaseOptions(checkOptions(stmt.options, 'table'), databaseOptions);
  return {
    table_id: tableId,
    catalog: DEFAULT_CATALOG,
    database,
    name,
    columns,
    primary_key: primaryKey,
    time_index: timeIndex,
    engine,
    options,
    region_numbers: Array.from({ length: regionCount }, (_, i) => i),
    ...(partition !== undefined && { partition }),
    next_column_id: columns.length,
    schema_version: 0,
    created_at: Date.now(),
    ...(options['comment'] !== undefined && { comment: options['comment'] }),
  };
}

/** Executes CREATE TABLE; returns whether a table was created (false: it existed, IF NOT EXISTS). */
export async function createTable(
  stmt: CreateTable,
  session: Session,
  catalog: CatalogManager,
  ddl: TableDdl,
  /** Creates tables of the metric engine (`frontend/metric-tables.ts`). */
  metric: (info: TableInfo, ifNotExists: boolean) => Promise<boolean>,
): Promise<boolean> {
  const { database, table } = resolveName(stmt.name, session);
  // information_schema is virtual: a table created there could never be read (GreptimeDB's message).
  if (database === INFORMATION_SCHEMA) throw new TsdbError(StatusCode.Unsupported, `Schema \`${database}\` is read-only`);
  const db = await catalog.requireDatabase(database);
  const existing = await catalog.table(database, table);
  if (existing !== undefined) {
    if (stmt.ifNotExists) return false;
    throw new TsdbError(StatusCode.TableAlreadyExists, `Table already exists: \`${DEFAULT_CATALOG}.${database}.${table}\``);
  }
  if (stmt.like !== undefined) {
    const like = resolveName(stmt.like, session);
    const src = await catalog.table(like.database, like.table);
    if (src === undefined) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${DEFAULT_CATALOG}.${like.database}.${like.table}`);
    return createLike(stmt, src, database, ddl, stmt.ifNotExists);
  }
  const id = await ddl.allocateTableId();
  const info = tableInfoOf(stmt, database, id, db.options, session.timezone);
  if (info.engine === 'metric') return metric(info, stmt.ifNotExists);
  return createWithRegions(info, ddl, stmt.ifNotExists);
}

async function createLike(stmt: CreateTable, src: TableInfo, database: string, ddl: TableDdl, ifNotExists: boolean): Promise<boolean> {
  const id = await ddl.allocateTableId();
  // The new table has the source's partition rule, and so as many regions (GreptimeDB keeps it too).
  const info: TableInfo = { ...src, table_id: id, database, name: stmt.name.parts.at(-1)!, schema_version: 0, created_at: Date.now() };
  return createWithRegions(info, ddl, ifNotExists);
}

/**
 * Checks the name and the columns (`catalog/limits.ts`), then creates the table (regions first,
 * then the name; a lost race for the name removes the regions again: `TableDdl.createTable`).
 */
export async function createWithRegions(info: TableInfo, ddl: TableDdl, ifNotExists: boolean): Promise<boolean> {
  checkTableName(info.name);
  checkColumnCount(info.name, info.columns.length);
  for (const c of info.columns) checkColumnName(info.name, c.name);
  regionOptionsOf(info.options);
  return ddl.createTable(info, ifNotExists);
}
