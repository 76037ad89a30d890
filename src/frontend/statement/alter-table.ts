/**
 * ALTER TABLE (reference api.md §4.4): add columns (FIRST / AFTER, IF NOT EXISTS, tags too), drop a
 * field column, set or drop a default, set or unset options, rename. The regions get the new schema
 * (a new schema version; files are not rewritten), then the catalog records it.
 */
import type { CatalogManager } from '../../catalog/catalog-manager.js';
import { columnTypeOf } from '../../catalog/column-types.js';
import { canModifyColumnType } from '../../catalog/column-conversion.js';
import { checkColumnCount, checkColumnName, checkTableName } from '../../catalog/limit-checks.js';
import { checkOptions, regionOptionsOf } from '../../catalog/table-options.js';
import { columnIndexFields, fulltextIndexOptions, skippingIndexOptions } from '../../catalog/column-indexes.js';
import type { TableDdl } from '../../catalog/table-ddl.js';
import { type ColumnDefault, type ColumnSchema, type TableInfo } from '../../catalog/table-info.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { ColumnType } from '../../types/region-metadata.js';
import type { ColumnDef, Statement, ValueExpr } from '../../sql/ast.js';
import type { Session } from '../session.js';
import { resolveName } from './names.js';
import { columnDefault } from './values.js';

type AlterTable = Extract<Statement, { kind: 'alter_table' }>;

function notFound(column: string, table: TableInfo): TsdbError {
  return new TsdbError(StatusCode.TableColumnNotFound, `Column ${column} not exists in table ${table.name}`);
}

function defaultOf(column: string, type: ColumnType, v: ValueExpr, zone: string): ColumnDefault | undefined {
  if (v.kind === 'null') return undefined;
  const d = columnDefault(type, v, zone);
  if ('reason' in d) throw new TsdbError(StatusCode.InvalidArguments, `Invalid default value of column ${column}: ${d.detail}`);
  return d;
}

function newColumn(def: ColumnDef, id: number, table: TableInfo, zone: string): ColumnSchema {
  if (def.timeIndex) throw new TsdbError(StatusCode.InvalidArguments, `Cannot add the time index column ${def.name}: a table has one time index`);
  const type = columnTypeOf(def.type, def.name);
  const dflt = def.default === undefined ? undefined : defaultOf(def.name, type, def.default, zone);
  const nullable = def.nullable !== false;
  if (!nullable && dflt === undefined) {
    throw new TsdbError(StatusCode.InvalidArguments, `Cannot add column ${def.name} to table ${table.name}: it is NOT NULL without a default value`);
  }
  return {
    column_id: id,
    name: def.name,
    data_type: type,
    semantic_type: def.primaryKey ? 'tag' : 'field',
    nullable,
    ...(dflt !== undefined && { default: dflt }),
    ...(def.comment !== undefined && { comment: def.comment }),
    ...(def.indexes.some((x) => x.kind === 'inverted') && { inverted_index: true }),
    ...columnIndexFields(def.indexes),
  };
}

/** Refuses a key that is not a table option. */
function checkKey(key: string): void {
  if (key.toLowerCase() === 'storage') {
    // The table's files are on that provider; moving them is not something ALTER does.
    throw new TsdbError(StatusCode.InvalidArguments, 'Invalid alter table options: the storage of a table cannot be changed after it is created');
  }
  try {
    checkOptions({ [key]: 'comment' === key.toLowerCase() ? '' : 'x' }, 'table');
  } catch (err) {
    if (err instanceof TsdbError && /^Unrecognized/.test(err.message)) throw err;
  }
}

/** The table after the statement's action (`zone`: the session's, in which a timestamp DEFAULT string is read). */
export function altered(table: TableInfo, action: AlterTable['action'], zone = 'UTC'): TableInfo {
  const next = { ...table, schema_version: table.schema_version + 1 };
  const find = (name: string) => table.columns.find((c) => c.name === name);
  switch (action.kind) {
    case 'add_columns': {
      const columns = [...table.columns];
      const primaryKey = [...table.primary_key];
      let nextId = table.next_column_id;
      for (const { column, ifNotExists, location } of action.columns) {
        if (columns.some((c) => c.name === column.name)) {
          if (ifNotExists) continue;
          throw new TsdbError(StatusCode.TableColumnExists, `Column ${column.name} already exists in table ${table.name}`);
        }
        const c = newColumn(column, nextId++, table, zone);
        if (c.semantic_type === 'tag') primaryKey.push(c.name);
        if (location === undefined) columns.push(c);
        else if ('first' in location) columns.unshift(c);
        else {
          const at = columns.findIndex((x) => x.name === location.after);
          if (at < 0) throw notFound(location.after, table);
          columns.splice(at + 1, 0, c);
        }
      }
      checkColumnCount(table.name, columns.length);
      for (const { column } of action.columns) checkColumnName(table.name, column.name);
      return { ...next, columns, primary_key: primaryKey, next_column_id: nextId };
    }
    case 'drop_column': {
      const c = find(action.name);
      if (c === undefined) throw notFound(action.name, table);
      if (c.semantic_type !== 'field') {
        throw new TsdbError(StatusCode.InvalidArguments, `Not allowed to remove index column ${c.name} from table ${table.name}`);
      }
      if (table.partition?.columns.includes(c.name) === true) {
        throw new TsdbError(StatusCode.InvalidArguments, `Not allowed to remove partition column ${c.name} from table ${table.name}`);
      }
      if (table.columns.filter((x) => x.semantic_type === 'field').length === 1 && table.columns.length <= 2) {
        throw new TsdbError(StatusCode.InvalidArguments, `Cannot remove the last field column ${c.name} of table ${table.name}`);
      }
      return { ...next, columns: table.columns.filter((x) => x.name !== c.name) };
    }
    case 'set_default':
    case 'drop_default': {
      const c = find(action.name);
      if (c === undefined) throw notFound(action.name, table);
      const dflt = action.kind === 'set_default' ? defaultOf(c.name, c.data_type, action.default, zone) : undefined;
      if (dflt === undefined && !c.nullable && c.semantic_type !== 'timestamp') {
        throw new TsdbError(StatusCode.InvalidArguments, `Cannot drop the default of column ${c.name}: it is NOT NULL`);
      }
      const updated: ColumnSchema = { ...c };
      delete (updated as { default?: ColumnDefault }).default;
      return { ...next, columns: table.columns.map((x) => (x.name === c.name ? (dflt === undefined ? updated : { ...updated, default: dflt }) : x)) };
    }
    case 'set_options': {
      const options: Record<string, string> = { ...table.options };
      for (const [k, v] of Object.entries(action.options)) {
        if (k.toLowerCase() === 'storage') checkKey(k);
        // `NULL` or '' clears an option (reference api.md §4.4).
        if (v === '') {
          checkKey(k);
          delete options[k.toLowerCase()];
        } else Object.assign(options, checkOptions({ [k]: v }, 'table'));
      }
      regionOptionsOf(checkOptions(options, 'table'));
      return { ...next, options };
    }
    case 'unset_options': {
      const options: Record<string, string> = { ...table.options };
      for (const k of action.keys) {
        checkKey(k);
        delete options[k.toLowerCase()];
      }
      return { ...next, options };
    }
    case 'set_index':
    case 'unset_index': {
      const c = find(action.name);
      if (c === undefined) throw notFound(action.name, table);
      if (action.index === 'fulltext' || action.index === 'skipping') {
        // Recorded in the catalog (shown by SHOW CREATE TABLE / SHOW INDEX); the engine builds no such index.
        const field = action.index === 'fulltext' ? 'fulltext_index' : 'skipping_index';
        const changed: { -readonly [K in keyof ColumnSchema]: ColumnSchema[K] } = { ...c };
        delete changed[field];
        if (action.kind === 'set_index') {
          const options = action.index === 'fulltext' ? fulltextIndexOptions(action.options) : skippingIndexOptions(action.options);
          if (options !== undefined) changed[field] = options;
        }
        return { ...next, columns: table.columns.map((x) => (x.name === c.name ? changed : x)) };
      }
      if (action.index !== 'inverted') throw new TsdbError(StatusCode.Unsupported, `${action.index.toUpperCase()} INDEX is not supported`);
      const updated: ColumnSchema = { ...c };
      delete (updated as { inverted_index?: boolean }).inverted_index;
      // Files written before keep the index they have (or none); new ones follow the column.
      return { ...next, columns: table.columns.map((x) => (x.name === c.name ? (action.kind === 'set_index' ? { ...updated, inverted_index: true } : updated) : x)) };
    }
    case 'rename':
      checkTableName(action.newName);
      return { ...next, name: action.newName };
    case 'modify_column_type': {
      const c = find(action.name);
      if (c === undefined) throw notFound(action.name, table);
      const to = columnTypeOf(action.type, c.name);
      const refuse = (why: string) => new TsdbError(StatusCode.InvalidArguments, `Invalid alter table(${table.name}) request: ${why}`);
      if (c.semantic_type === 'tag') throw refuse(`Not allowed to change primary key index column '${c.name}'`);
      if (c.semantic_type === 'timestamp') throw refuse(`Not allowed to change timestamp index column '${c.name}' datatype`);
      // The rule's literals are values of the column's type (`catalog/partition-rule.ts`).
      if (to !== c.data_type && table.partition?.columns.includes(c.name) === true) {
        throw new TsdbError(StatusCode.InvalidArguments, `Not allowed to change the type of partition column ${c.name} of table ${table.name}`);
      }
      if (!canModifyColumnType(c.data_type, to)) throw refuse(`column '${c.name}' cannot be cast automatically to type '${to}'`);
      if (!c.nullable) throw refuse(`column '${c.name}' must be nullable to ensure safe conversion.`);
      // Rows already written keep their type in their files; reads cast them to the new one.
      const updated: ColumnSchema = { ...c, data_type: to };
      delete (updated as { default?: ColumnDefault }).default;
      return { ...next, columns: table.columns.map((x) => (x.name === c.name ? updated : x)) };
    }
  }
}

/** Executes ALTER TABLE. */
export async function alterTable(stmt: AlterTable, session: Session, catalog: CatalogManager, ddl: TableDdl): Promise<void> {
  const { database, table } = resolveName(stmt.name, session);
  const info = await catalog.table(database, table);
  if (info === undefined) throw new TsdbError(StatusCode.TableNotFound, `Table not found: ${session.catalog}.${database}.${table}`);
  if (stmt.action.kind === 'rename' && (await catalog.table(database, stmt.action.newName)) !== undefined) {
    throw new TsdbError(StatusCode.TableAlreadyExists, `Table already exists: \`${session.catalog}.${database}.${stmt.action.newName}\``);
  }
  const next = altered(info, stmt.action, session.timezone);
  // Checked here, before the change is sent anywhere: a bad option is the user's mistake.
  regionOptionsOf(next.options);
  await ddl.alterTable(info, next);
}
