/**
 * SHOW DATABASES / TABLES / CREATE TABLE / CREATE DATABASE and DESCRIBE, with GreptimeDB's columns
 * (reference api.md §4.1, §4.4). LIKE patterns follow SQL (`%`, `_`); WHERE conditions are
 * evaluated by DuckDB over the rows shown.
 */
import type { CatalogManager } from '../../catalog/catalog-manager.js';
import { showTypeOf } from '../../catalog/column-types.js';
import { INFORMATION_SCHEMA_TABLES, sqlTypeName } from '../../catalog/information-schema.js';
import { INFORMATION_SCHEMA, type ColumnSchema, type TableInfo } from '../../catalog/table-info.js';
import type { ViewInfo } from '../../catalog/view-info.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { quoteIdent, quoteLiteral } from '../../common/sql-quote.js';
import { records, type Cell, type Output, type OutputColumn } from '../../query/output.js';
import type { ShowFilter, Statement } from '../../sql/ast.js';
import type { Session } from '../session.js';
import { isInternalColumn, isLogicalTable, LOGICAL_TABLE_OPTION } from '../metric-engine.js';
import { resolveName } from './names.js';
import { decimalOf } from '../../types/region-metadata.js';

/** `LIKE` pattern matching (`%` any run, `_` one character; case-sensitive, as MySQL's binary collation). */
export function likeMatches(pattern: string, text: string): boolean {
  const re = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.');
  return new RegExp(`^${re}$`, 's').test(text);
}

/**
 * Rows a `SHOW … WHERE cond` keeps: `cond` is evaluated over the rows shown (string columns of the
 * names given) as a query's WHERE, through the query path and its sandbox (`FrontendInstance`).
 */
export type ShowWhere = (columns: readonly OutputColumn[], rows: ReadonlyArray<readonly Cell[]>, condition: string) => Promise<Output>;

/** String rows filtered by LIKE (on the first column) or WHERE (`where`). */
export async function filtered(columns: readonly string[], rows: string[][], filter: ShowFilter | undefined, where: ShowWhere): Promise<Output> {
  const schema = columns.map((name) => ({ name, data_type: 'String' }));
  if (filter === undefined) return records(schema, rows);
  if (filter.kind === 'like') return records(schema, rows.filter((r) => likeMatches(filter.pattern, r[0]!)));
  const out = await where(schema, rows, filter.sql);
  return out.kind === 'records' ? records(schema, out.rows) : out;
}

export async function showDatabases(stmt: Extract<Statement, { kind: 'show_databases' }>, catalog: CatalogManager, where: ShowWhere): Promise<Output> {
  const dbs = await catalog.databases();
  if (!stmt.full) return filtered(['Database'], dbs.map((d) => [d.name]), stmt.filter, where);
  return filtered(['Database', 'Options'], dbs.map((d) => [d.name, optionLines(d.options)]), stmt.filter, where);
}

function optionLines(options: Readonly<Record<string, string>>): string {
  return Object.keys(options)
    .sort()
    .map((k) => `'${k}'='${options[k]}'`)
    .join('\n');
}

export async function showTables(stmt: Extract<Statement, { kind: 'show_tables' }>, session: Session, catalog: CatalogManager, where: ShowWhere): Promise<Output> {
  const database = stmt.database ?? session.database;
  await catalog.requireDatabase(database);
  const tables: Array<[string, string]> =
    database === INFORMATION_SCHEMA ? INFORMATION_SCHEMA_TABLES.map((t) => [t, 'LOCAL TEMPORARY']) : (await catalog.tables(database)).map((t) => [t.name, 'BASE TABLE']);
  // Views are listed among the tables (`Table_type` VIEW), as GreptimeDB lists them.
  if (database !== INFORMATION_SCHEMA) {
    for (const v of await catalog.views(database)) tables.push([v.name, 'VIEW']);
    tables.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
  const name = `Tables_in_${database}`;
  if (!stmt.full) return filtered([name], tables.map(([t]) => [t]), stmt.filter, where);
  return filtered([name, 'Table_type'], tables.map(([t, type]) => [t, type]), stmt.filter, where);
}

async function requireTable(catalog: CatalogManager, session: Session, name: { parts: readonly string[] }, short: boolean): Promise<TableInfo> {
  const { database, table } = resolveName(name, session);
  const info = (await catalog.table(database, table)) ?? viewTable(await catalog.view(database, table));
  if (info === undefined) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${short ? table : `${session.catalog}.${database}.${table}`}`);
  return info;
}

/** A view as DESC / SHOW COLUMNS / SHOW INDEX see it: a table with no columns (GreptimeDB's view table info has an empty schema). */
function viewTable(view: ViewInfo | undefined): TableInfo | undefined {
  if (view === undefined) return undefined;
  return { table_id: view.view_id, catalog: view.catalog, database: view.database, name: view.name, columns: [], primary_key: [], time_index: '', engine: '', options: {}, region_numbers: [], next_column_id: 0, schema_version: 0, created_at: view.created_at };
}

function defaultText(c: ColumnSchema): string {
  const d = c.default;
  if (d === undefined) return '';
  if (d.kind === 'current_timestamp') return 'current_timestamp()';
  if (d.value === null) return 'NULL';
  return typeof d.value === 'string' && c.data_type === 'String' ? d.value : String(d.value);
}

/** DESC TABLE: `Column | Type | Key | Null | Default | Semantic Type`. */
export async function describeTable(stmt: Extract<Statement, { kind: 'describe_table' }>, session: Session, catalog: CatalogManager): Promise<Output> {
  const info = await requireTable(catalog, session, stmt.name, true);
  const rows: Cell[][] = info.columns.map((c) => [
    c.name,
    c.data_type,
    c.semantic_type === 'field' ? '' : 'PRI',
    c.nullable ? 'YES' : 'NO',
    defaultText(c),
    c.semantic_type.toUpperCase(),
  ]);
  return records(['Column', 'Type', 'Key', 'Null', 'Default', 'Semantic Type'].map((name) => ({ name, data_type: 'String' })), rows);
}

function sqlDefault(c: ColumnSchema): string {
  const d = c.default;
  if (d === undefined) return '';
  if (d.kind === 'current_timestamp') return ' DEFAULT current_timestamp()';
  if (d.value === null) return ' DEFAULT NULL';
  // A DECIMAL default is its number (kept as text only to stay exact).
  if (typeof d.value === 'string' && decimalOf(c.data_type) === undefined) return ` DEFAULT ${quoteLiteral(d.value)}`;
  return ` DEFAULT ${String(d.value)}`;
}

/**
 * `PARTITION ON COLUMNS ("a") (\n  expr,\n  …\n)` of a table's rule, or an empty line when it has
 * none (GreptimeDB's layout; the expressions in their stored, canonical form).
 */
function partitionBlock(partition: TableInfo['partition']): string {
  if (partition === undefined || partition.columns.length === 0) return '';
  return `PARTITION ON COLUMNS (${partition.columns.map(quoteIdent).join(', ')}) (\n${partition.exprs.map((e) => `  ${e}`).join(',\n')}\n)`;
}

/**
 * The CREATE TABLE statement that re-creates a table (GreptimeDB's layout); `storage` is the table
 * whose partition rule it shows (a logical metric table's is its physical table's).
 */
export function createTableSql(info: TableInfo, storage: TableInfo = info): string {
  // The metric engine's own key columns are not part of the statement that re-creates the table.
  const own = info.engine === 'metric' ? info.columns.filter((c) => !isInternalColumn(c.name)) : info.columns;
  const primaryKey = info.engine === 'metric' ? info.primary_key.filter((n) => !isInternalColumn(n)) : info.primary_key;
  const lines = own.map((c) => {
    const nullText = c.nullable ? 'NULL' : 'NOT NULL';
    const comment = c.comment !== undefined ? ` COMMENT ${quoteLiteral(c.comment)}` : '';
    const inverted = c.inverted_index === true ? ' INVERTED INDEX' : '';
    return `  ${quoteIdent(c.name)} ${showTypeOf(c.data_type)} ${nullText}${sqlDefault(c)}${comment}${inverted},`;
  });
  lines.push(`  TIME INDEX (${quoteIdent(info.time_index)})${primaryKey.length > 0 ? ',' : ''}`);
  if (primaryKey.length > 0) lines.push(`  PRIMARY KEY (${primaryKey.map(quoteIdent).join(', ')})`);
  const keys = Object.keys(info.options).sort();
  const withClause = keys.length === 0 ? '' : `WITH(\n${keys.map((k) => `  ${k.includes('.') ? quoteLiteral(k) : k} = ${quoteLiteral(info.options[k]!)}`).join(',\n')}\n)`;
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(info.name)} (\n${lines.join('\n')}\n)\n${partitionBlock(storage.partition)}\nENGINE=${info.engine}\n${withClause}`;
}

export async function showCreateTable(stmt: Extract<Statement, { kind: 'show_create_table' }>, session: Session, catalog: CatalogManager): Promise<Output> {
  const info = await requireTable(catalog, session, stmt.name, false);
  const storage = isLogicalTable(info) ? await catalog.table(info.database, info.options[LOGICAL_TABLE_OPTION]!) : info;
  return records(
    [
      { name: 'Table', data_type: 'String' },
      { name: 'Create Table', data_type: 'String' },
    ],
    [[info.name, createTableSql(info, storage)]],
  );
}

export async function showCreateDatabase(stmt: Extract<Statement, { kind: 'show_create_database' }>, catalog: CatalogManager): Promise<Output> {
  const db = await catalog.requireDatabase(stmt.name);
  const keys = Object.keys(db.options).sort();
  const text = `CREATE DATABASE IF NOT EXISTS ${quoteIdent(db.name)}${keys.length === 0 ? '' : `\nWITH(\n${keys.map((k) => `  ${k} = ${quoteLiteral(db.options[k]!)}`).join(',\n')}\n)`}`;
  return records(
    [
      { name: 'Database', data_type: 'String' },
      { name: 'Create Database', data_type: 'String' },
    ],
    [[db.name, text]],
  );
}

/** `SHOW [FULL] COLUMNS FROM t`: MySQL's columns plus `Tsdb_type` (reference api.md §4.4). */
export async function showColumns(stmt: Extract<Statement, { kind: 'show_columns' }>, session: Session, catalog: CatalogManager, where: ShowWhere): Promise<Output> {
  const name = stmt.database !== undefined ? { parts: [stmt.database, ...stmt.name.parts.slice(-1)] } : stmt.name;
  const info = await requireTable(catalog, session, name, false);
  const key = (c: ColumnSchema) => (c.semantic_type === 'tag' ? 'PRI' : c.semantic_type === 'timestamp' ? 'TIME INDEX' : '');
  const rows = info.columns.map((c) => {
    const base = { Field: c.name, Type: sqlTypeName(c.data_type), Null: c.nullable ? 'Yes' : 'No', Key: key(c), Default: c.default === undefined ? '' : defaultText(c), Extra: '' };
    return stmt.full
      ? [base.Field, base.Type, c.data_type === 'String' ? 'utf8_bin' : '', base.Null, base.Key, base.Default, base.Extra, 'select,insert', c.comment ?? '', c.data_type]
      : [base.Field, base.Type, base.Null, base.Key, base.Default, base.Extra, c.data_type];
  });
  const columns = stmt.full
    ? ['Field', 'Type', 'Collation', 'Null', 'Key', 'Default', 'Extra', 'Privileges', 'Comment', 'Tsdb_type']
    : ['Field', 'Type', 'Null', 'Key', 'Default', 'Extra', 'Tsdb_type'];
  return filtered(columns, rows, stmt.filter, where);
}

/** `SHOW INDEX FROM t`: MySQL's columns; the primary key as `PRIMARY`, the time index as `TIME INDEX`. */
export async function showIndex(stmt: Extract<Statement, { kind: 'show_index' }>, session: Session, catalog: CatalogManager, where: ShowWhere): Promise<Output> {
  const name = stmt.database !== undefined ? { parts: [stmt.database, ...stmt.name.parts.slice(-1)] } : stmt.name;
  const info = await requireTable(catalog, session, name, false);
  const rows: string[][] = [];
  info.primary_key.forEach((col, i) => {
    const c = info.columns.find((x) => x.name === col)!;
    rows.push([info.name, '1', 'PRIMARY', String(i + 1), col, 'A', '', '', '', c.nullable ? 'YES' : '', 'tsdb-primary-key-v1', '', '', 'YES', '']);
  });
  rows.push([info.name, '1', 'TIME INDEX', '1', info.time_index, 'A', '', '', '', '', '', '', '', 'YES', '']);
  const columns = ['Table', 'Non_unique', 'Key_name', 'Seq_in_index', 'Column_name', 'Collation', 'Cardinality', 'Sub_part', 'Packed', 'Null', 'Index_type', 'Comment', 'Index_comment', 'Visible', 'Expression'];
  return filtered(columns, rows, stmt.filter, where);
}
