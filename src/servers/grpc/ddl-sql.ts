/**
 * GreptimeDB's DDL messages (`greptime.v1.DdlRequest`) as SQL statements, run through the same
 * SqlHandler as every SQL client: one parser, one set of checks (names, types, options, time index,
 * permissions), one catalog path, and the statement shows in the process list and can be cancelled.
 * Identifiers are double-quoted (case kept, `"` doubled), text single-quoted (`'` doubled).
 *
 * Served: create_database, create_table, alter_table (add_columns, drop_columns, rename_table,
 * set_table_options, unset_table_options), drop_table, truncate_table (whole table),
 * alter_database (set/unset options). DROP DATABASE has no DdlRequest member in GreptimeDB's
 * protocol: it goes through `query.sql`. Anything else is Unsupported.
 */
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import { quoteIdent, quoteLiteral } from '../../common/sql-quote.js';
import type { BaseColumnType } from '../../types/region-metadata.js';
import { COLUMN_DATA_TYPES, COLUMN_DATA_TYPE_NAMES } from './row-decoder.js';
import { isCatalog } from './request-context.js';

/** SQL spelling of each stored type (reference api.md §4.3). */
const SQL_TYPE: Record<BaseColumnType, string> = {
  Boolean: 'BOOLEAN',
  Int8: 'TINYINT',
  Int16: 'SMALLINT',
  Int32: 'INT',
  Int64: 'BIGINT',
  UInt8: 'UINT8',
  UInt16: 'UINT16',
  UInt32: 'UINT32',
  UInt64: 'UINT64',
  Float32: 'FLOAT',
  Float64: 'DOUBLE',
  String: 'STRING',
  Binary: 'BINARY',
  Date: 'DATE',
  TimestampSecond: 'TIMESTAMP(0)',
  TimestampMillisecond: 'TIMESTAMP(3)',
  TimestampMicrosecond: 'TIMESTAMP(6)',
  TimestampNanosecond: 'TIMESTAMP(9)',
  Json: 'JSON',
};

interface ColumnDef {
  readonly name: string;
  readonly data_type: number;
  readonly is_nullable: boolean;
  readonly default_constraint?: Uint8Array;
  readonly semantic_type: number;
  readonly comment?: string;
}

type Options = Readonly<Record<string, string>>;

/** `greptime.v1.DdlRequest` as decoded (the members tsdb serves). */
export interface DdlRequest {
  readonly expr?: string;
  readonly create_database?: { catalog_name: string; schema_name: string; create_if_not_exists: boolean; options?: Options };
  readonly create_table?: {
    catalog_name: string; schema_name: string; table_name: string; desc: string; column_defs: readonly ColumnDef[];
    time_index: string; primary_keys: readonly string[]; create_if_not_exists: boolean; table_options?: Options; engine: string;
  };
  readonly alter_table?: {
    catalog_name: string; schema_name: string; table_name: string; kind?: string;
    add_columns?: { add_columns: ReadonlyArray<{ column_def: ColumnDef | null; location?: { location_type: number; after_column_name: string } | null; add_if_not_exists: boolean }> };
    drop_columns?: { drop_columns: ReadonlyArray<{ name: string }> };
    rename_table?: { new_table_name: string };
    set_table_options?: { table_options: ReadonlyArray<{ key: string; value: string }> };
    unset_table_options?: { keys: readonly string[] };
  };
  readonly drop_table?: { catalog_name: string; schema_name: string; table_name: string; drop_if_exists: boolean };
  readonly truncate_table?: { catalog_name: string; schema_name: string; table_name: string; time_ranges?: { time_ranges?: readonly unknown[] } | null };
  readonly alter_database?: {
    catalog_name: string; schema_name: string; kind?: string;
    set_database_options?: { set_database_options: ReadonlyArray<{ key: string; value: string }> };
    unset_database_options?: { keys: readonly string[] };
  };
}

function invalid(message: string): TsdbError {
  return new TsdbError(StatusCode.InvalidArguments, message);
}

/** The database of an expression: its schema_name, else the request's; only the tsdb catalog exists (`greptime` names it too). */
function databaseOf(catalog: string, schema: string, fallback: string): string {
  if (catalog !== '' && !isCatalog(catalog.toLowerCase())) throw new TsdbError(StatusCode.DatabaseNotFound, `Database not found: ${catalog}-${schema || fallback}`);
  return schema !== '' ? schema : fallback;
}

function tableRef(e: { catalog_name: string; schema_name: string; table_name: string }, database: string): string {
  if (e.table_name === '') throw invalid('table_name is empty');
  return `${quoteIdent(databaseOf(e.catalog_name, e.schema_name, database))}.${quoteIdent(e.table_name)}`;
}

function optionList(entries: ReadonlyArray<readonly [string, string]>): string {
  return entries.map(([k, v]) => `${quoteLiteral(k)} = ${quoteLiteral(v)}`).join(', ');
}

/**
 * A column's default from its `default_constraint` (GreptimeDB's JSON form of
 * ColumnDefaultConstraint): `{"Function":"now()"}` or `{"Value":{"<Type>":<scalar>}}`.
 */
function defaultSql(column: string, bytes: Uint8Array | undefined): string | undefined {
  if (bytes === undefined || bytes.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw invalid(`Unsupported default_constraint of column ${column}: not GreptimeDB's JSON form`);
  }
  if (typeof parsed === 'object' && parsed !== null) {
    const fn = (parsed as Record<string, unknown>)['Function'];
    if (typeof fn === 'string' && /^[a-z_]+(\(\))?$/i.test(fn)) return fn.endsWith(')') ? fn : `${fn}()`;
    const value = (parsed as Record<string, unknown>)['Value'];
    if (value === 'Null') return 'NULL';
    if (typeof value === 'object' && value !== null && Object.keys(value).length === 1) {
      const v = Object.values(value)[0];
      if (typeof v === 'number' || typeof v === 'boolean') return String(v);
      if (typeof v === 'string') return quoteLiteral(v);
    }
  }
  throw invalid(`Unsupported default_constraint of column ${column}: ${Buffer.from(bytes).toString('utf8')}`);
}

function sqlTypeOf(def: ColumnDef): string {
  const spec = COLUMN_DATA_TYPES[def.data_type];
  if (spec === undefined) throw new TsdbError(StatusCode.Unsupported, `Unsupported data type ${COLUMN_DATA_TYPE_NAMES[def.data_type] ?? def.data_type} of column ${def.name}`);
  return SQL_TYPE[spec.type as BaseColumnType];
}

function columnSql(def: ColumnDef, opts: { timeIndex: boolean; tag?: boolean }): string {
  if (def.name === '') throw invalid('a column name is empty');
  const parts = [quoteIdent(def.name), sqlTypeOf(def)];
  if (!opts.timeIndex) parts.push(def.is_nullable ? 'NULL' : 'NOT NULL');
  const d = defaultSql(def.name, def.default_constraint);
  if (d !== undefined) parts.push(`DEFAULT ${d}`);
  if (def.comment) parts.push(`COMMENT ${quoteLiteral(def.comment)}`);
  if (opts.tag === true) parts.push('PRIMARY KEY');
  return parts.join(' ');
}

function engineName(engine: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(engine)) throw new TsdbError(StatusCode.Unsupported, `Unsupported table engine: ${engine}`);
  return engine;
}

/** The SQL statements of a DDL request, to run in order; `database` is the request's database. */
export function ddlStatements(ddl: DdlRequest, database: string): string[] {
  switch (ddl.expr) {
    case 'create_database': {
      const e = ddl.create_database!;
      const name = databaseOf(e.catalog_name, e.schema_name, '');
      if (name === '') throw invalid('schema_name of create_database is empty');
      const opts = Object.entries(e.options ?? {});
      return [`CREATE DATABASE ${e.create_if_not_exists ? 'IF NOT EXISTS ' : ''}${quoteIdent(name)}${opts.length > 0 ? ` WITH (${optionList(opts)})` : ''}`];
    }
    case 'create_table': {
      const e = ddl.create_table!;
      const timeIndex = e.time_index !== '' ? e.time_index : e.column_defs.find((c) => c.semantic_type === 2)?.name;
      if (timeIndex === undefined) throw new TsdbError(StatusCode.InvalidSyntax, 'Missing time index constraint');
      const keys = e.primary_keys.length > 0 ? e.primary_keys : e.column_defs.filter((c) => c.semantic_type === 0).map((c) => c.name);
      const items = e.column_defs.map((c) => columnSql(c, { timeIndex: c.name === timeIndex }));
      items.push(`TIME INDEX (${quoteIdent(timeIndex)})`);
      if (keys.length > 0) items.push(`PRIMARY KEY (${keys.map(quoteIdent).join(', ')})`);
      const options: Array<[string, string]> = Object.entries(e.table_options ?? {});
      if (e.desc !== '' && !options.some(([k]) => k.toLowerCase() === 'comment')) options.push(['comment', e.desc]);
      return [
        `CREATE TABLE ${e.create_if_not_exists ? 'IF NOT EXISTS ' : ''}${tableRef(e, database)} (${items.join(', ')})` +
          (e.engine !== '' ? ` ENGINE = ${engineName(e.engine)}` : '') +
          (options.length > 0 ? ` WITH (${optionList(options)})` : ''),
      ];
    }
    case 'alter_table': {
      const e = ddl.alter_table!;
      const table = tableRef(e, database);
      switch (e.kind) {
        case 'add_columns': {
          const adds = e.add_columns!.add_columns;
          if (adds.length === 0) throw invalid('add_columns is empty');
          const parts = adds.map((a) => {
            if (a.column_def == null) throw invalid('add_columns: a column_def is missing');
            if (a.column_def.semantic_type === 2) throw invalid(`Cannot add the time index column ${a.column_def.name} to a table`);
            const loc = a.location == null ? '' : a.location.location_type === 0 ? ' FIRST' : ` AFTER ${quoteIdent(a.location.after_column_name)}`;
            return `ADD COLUMN ${a.add_if_not_exists ? 'IF NOT EXISTS ' : ''}${columnSql(a.column_def, { timeIndex: false, tag: a.column_def.semantic_type === 0 })}${loc}`;
          });
          return [`ALTER TABLE ${table} ${parts.join(', ')}`];
        }
        case 'drop_columns': {
          const drops = e.drop_columns!.drop_columns;
          if (drops.length === 0) throw invalid('drop_columns is empty');
          return drops.map((d) => `ALTER TABLE ${table} DROP COLUMN ${quoteIdent(d.name)}`);
        }
        case 'rename_table':
          if (e.rename_table!.new_table_name === '') throw invalid('new_table_name is empty');
          return [`ALTER TABLE ${table} RENAME ${quoteIdent(e.rename_table!.new_table_name)}`];
        case 'set_table_options': {
          const opts = e.set_table_options!.table_options.map((o) => [o.key, o.value] as const);
          if (opts.length === 0) throw invalid('set_table_options is empty');
          return [`ALTER TABLE ${table} SET ${optionList(opts)}`];
        }
        case 'unset_table_options': {
          const keys = e.unset_table_options!.keys;
          if (keys.length === 0) throw invalid('unset_table_options is empty');
          return [`ALTER TABLE ${table} UNSET ${keys.map(quoteLiteral).join(', ')}`];
        }
        default:
          throw new TsdbError(StatusCode.Unsupported, `Unsupported alter_table kind: ${e.kind ?? '(none or unknown to tsdb)'}`);
      }
    }
    case 'drop_table': {
      const e = ddl.drop_table!;
      return [`DROP TABLE ${e.drop_if_exists ? 'IF EXISTS ' : ''}${tableRef(e, database)}`];
    }
    case 'truncate_table': {
      const e = ddl.truncate_table!;
      if ((e.time_ranges?.time_ranges?.length ?? 0) > 0) throw new TsdbError(StatusCode.Unsupported, 'Truncating time ranges of a table is not supported: truncate_table empties the whole table');
      return [`TRUNCATE TABLE ${tableRef(e, database)}`];
    }
    case 'alter_database': {
      const e = ddl.alter_database!;
      const name = quoteIdent(databaseOf(e.catalog_name, e.schema_name, database));
      if (e.kind === 'set_database_options') {
        const opts = e.set_database_options!.set_database_options.map((o) => [o.key, o.value] as const);
        if (opts.length === 0) throw invalid('set_database_options is empty');
        return [`ALTER DATABASE ${name} SET ${optionList(opts)}`];
      }
      if (e.kind === 'unset_database_options') {
        const keys = e.unset_database_options!.keys;
        if (keys.length === 0) throw invalid('unset_database_options is empty');
        return [`ALTER DATABASE ${name} UNSET ${keys.map(quoteLiteral).join(', ')}`];
      }
      throw new TsdbError(StatusCode.Unsupported, `Unsupported alter_database kind: ${e.kind ?? '(none or unknown to tsdb)'}`);
    }
    default:
      throw new TsdbError(StatusCode.Unsupported, 'Unsupported DDL request: tsdb serves create_database, create_table, alter_table, drop_table, truncate_table and alter_database (DROP DATABASE through query.sql)');
  }
}
