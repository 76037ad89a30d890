/**
 * SHOW DATABASES / TABLES / CREATE TABLE / CREATE DATABASE and DESCRIBE, with GreptimeDB's columns
 * (reference api.md §4.1, §4.4). LIKE patterns follow SQL (`%`, `_`); WHERE conditions are
 * evaluated by DuckDB over the rows shown.
 */
import type { CatalogManager } from '../../catalog/catalog-manager.js';
import { SHOW_TYPES, showTypeOf } from '../../catalog/column-types.js';
import { INFORMATION_SCHEMA_TABLES, informationSchemaTableDefs, sqlTypeName } from '../../catalog/information-schema.js';
import { indexEntries, NUMBERS, NUMBERS_TABLE } from '../../catalog/information-schema-more.js';
import { indexClauses } from '../../catalog/column-indexes.js';
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
  }
  // GreptimeDB's test table `numbers`, in `public` (sorted in with the others).
  if (database === 'public' && !tables.some(([t]) => t === NUMBERS_TABLE)) {
    tables.push([NUMBERS_TABLE, 'LOCAL TEMPORARY']);
  }
  tables.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
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
  const system = systemTable(stmt.name, session);
  if (system !== undefined && (system.name !== NUMBERS_TABLE || (await catalog.table('public', NUMBERS_TABLE)) === undefined)) {
    const keys = new Set(system.def.primaryKey ?? []);
    const rows: Cell[][] = system.def.columns.map((c) => [c.name, c.type, keys.has(c.name) ? 'PRI' : '', c.nullable ? 'YES' : 'NO', '', keys.has(c.name) ? 'TAG' : 'FIELD']);
    return records(['Column', 'Type', 'Key', 'Null', 'Default', 'Semantic Type'].map((name) => ({ name, data_type: 'String' })), rows);
  }
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

/**
 * A table of the system's that a name refers to: one of information_schema's (any case of its
 * database and name, as GreptimeDB takes them) or `public.numbers`; undefined for other names.
 */
export function systemTable(name: { parts: readonly string[] }, session: Session): { name: string; def: { readonly columns: ReadonlyArray<{ name: string; type: string; nullable: boolean }>; readonly primaryKey?: readonly string[] } } | undefined {
  const { database, table } = resolveName(name, session);
  if (database.toLowerCase() === INFORMATION_SCHEMA) {
    const def = informationSchemaTableDefs().find((t) => t.name === table.toLowerCase());
    return def === undefined ? undefined : { name: def.name, def };
  }
  if (database === 'public' && table === NUMBERS_TABLE) return { name: NUMBERS_TABLE, def: NUMBERS };
  return undefined;
}

/** A value in an option list as GreptimeDB prints it: Rust's `escape_debug` (`\n`, `\'`, `\\`…). */
export function escapeDebug(value: string): string {
  let out = '';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === "'") out += "\\'";
    else if (ch === '"') out += '\\"';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\0') out += '\\0';
    else if (code < 0x20 || code === 0x7f) out += `\\u{${code.toString(16)}}`;
    else out += ch;
  }
  return out;
}

/** `k = 'v'` lines of an option list (sorted; a dotted key quoted), GreptimeDB's OptionMap layout. */
function optionList(options: Readonly<Record<string, string>>): string {
  return Object.keys(options)
    .sort()
    .map((k) => `  ${k.includes('.') ? `'${k}'` : k} = '${escapeDebug(options[k]!)}'`)
    .join(',\n');
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
    return `  ${quoteIdent(c.name)} ${showTypeOf(c.data_type)} ${nullText}${sqlDefault(c)}${comment}${indexClauses(c)},`;
  });
  lines.push(`  TIME INDEX (${quoteIdent(info.time_index)})${primaryKey.length > 0 ? ',' : ''}`);
  if (primaryKey.length > 0) lines.push(`  PRIMARY KEY (${primaryKey.map(quoteIdent).join(', ')})`);
  const withClause = Object.keys(info.options).length === 0 ? '' : `WITH(\n${optionList(info.options)}\n)`;
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(info.name)} (\n${lines.join('\n')}\n)\n${partitionBlock(storage.partition)}\nENGINE=${info.engine}\n${withClause}`;
}

export async function showCreateTable(stmt: Extract<Statement, { kind: 'show_create_table' }>, session: Session, catalog: CatalogManager): Promise<Output> {
  const system = systemTable(stmt.name, session);
  if (system !== undefined && (system.name !== NUMBERS_TABLE || (await catalog.table('public', NUMBERS_TABLE)) === undefined)) {
    const { database } = resolveName(stmt.name, session);
    throw new TsdbError(StatusCode.Unsupported, `Show create table only for base table. ${session.catalog}.${database.toLowerCase()}.${system.name} is TEMPORARY`);
  }
  const info = await requireTable(catalog, session, stmt.name, false);
  const storage = isLogicalTable(info) ? await catalog.table(info.database, info.options[LOGICAL_TABLE_OPTION]!) : info;
  // A table without a TTL of its own shows its database's, as it is now (GreptimeDB's).
  const databaseTtl = info.options['ttl'] === undefined ? (await catalog.database(info.database))?.options['ttl'] : undefined;
  const shown = databaseTtl === undefined ? info : { ...info, options: { ...info.options, ttl: databaseTtl } };
  return records(
    [
      { name: 'Table', data_type: 'String' },
      { name: 'Create Table', data_type: 'String' },
    ],
    [[info.name, createTableSql(shown, storage)]],
  );
}

export async function showCreateDatabase(stmt: Extract<Statement, { kind: 'show_create_database' }>, catalog: CatalogManager): Promise<Output> {
  const db = await catalog.requireDatabase(stmt.name);
  // The name as it is, never quoted (GreptimeDB prints an unquoted identifier).
  const text = `CREATE DATABASE IF NOT EXISTS ${db.name}${Object.keys(db.options).length === 0 ? '' : `\nWITH(\n${optionList(db.options)}\n)`}`;
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

/**
 * `SHOW INDEX FROM t`: MySQL's columns over the table's rows of information_schema.statistics
 * (GreptimeDB's `show_index`): `PRIMARY` (Non_unique 0, Index_type `PRIMARY`), `TIME INDEX`
 * (`TIME`), a column's `INVERTED_INDEX_<c>` (`INVERTED`), sorted by Key_name then Seq_in_index.
 */
export async function showIndex(stmt: Extract<Statement, { kind: 'show_index' }>, session: Session, catalog: CatalogManager, where: ShowWhere): Promise<Output> {
  const name = stmt.database !== undefined ? { parts: [stmt.database, ...stmt.name.parts.slice(-1)] } : stmt.name;
  const { database, table } = resolveName(name, session);
  const info = (await catalog.table(database, table)) ?? (database === 'public' && table === NUMBERS_TABLE ? { name: NUMBERS_TABLE, columns: [{ column_id: 0, name: 'number', data_type: 'UInt32' as const, semantic_type: 'tag' as const, nullable: false }], primary_key: ['number'], time_index: '', options: {} } : undefined);
  const columns: OutputColumn[] = [
    ['Table', 'String'],
    ['Non_unique', 'Int64'],
    ['Key_name', 'String'],
    ['Seq_in_index', 'Int64'],
    ['Column_name', 'String'],
    ['Collation', 'String'],
    ['Cardinality', 'Int64'],
    ['Sub_part', 'Int64'],
    ['Packed', 'String'],
    ['Null', 'String'],
    ['Index_type', 'String'],
    ['Comment', 'String'],
    ['Index_comment', 'String'],
    ['Visible', 'String'],
    ['Expression', 'String'],
  ].map(([n, t]) => ({ name: n!, data_type: t! }));
  // A table that is not there shows no index (GreptimeDB reads information_schema.statistics).
  const rows: Cell[][] = (info === undefined ? [] : indexEntries(info))
    .sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[2] - b[2]))
    .map(([nonUnique, key, seq, column, nullable, type]) => [table, nonUnique, key, seq, column, 'A', null, null, null, nullable, type, '', '', 'YES', null]);
  if (stmt.filter?.kind === 'like') throw new TsdbError(StatusCode.Unsupported, 'SQL statement is not supported, keyword: like');
  if (stmt.filter?.kind === 'where') {
    const out = await where(columns, rows, stmt.filter.sql);
    return out.kind === 'records' ? records(columns, out.rows) : out;
  }
  return records(columns, rows);
}
