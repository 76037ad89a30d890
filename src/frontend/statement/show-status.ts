/**
 * `SHOW TABLE STATUS [FROM db] [LIKE | WHERE]`: MySQL's columns over the database's rows of
 * information_schema.tables, sorted by name (GreptimeDB's `show_table_status`), with their types
 * (Version, Rows… UInt64; the times TimestampSecond); `SHOW CHARACTER SET` and `SHOW COLLATION`
 * over information_schema.character_sets and collations.
 */
import { informationSchemaTable, type InformationSchemaSource } from '../../catalog/information-schema.js';
import { records, type Cell, type Output, type OutputColumn } from '../../query/output.js';
import type { ShowFilter, Statement } from '../../sql/ast.js';
import type { Session } from '../session.js';
import { likeMatches, type ShowWhere } from './show.js';

/** MySQL's name of each column shown, by the information_schema.tables column it shows. */
const STATUS_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['table_name', 'Name'],
  ['engine', 'Engine'],
  ['version', 'Version'],
  ['row_format', 'Row_format'],
  ['table_rows', 'Rows'],
  ['avg_row_length', 'Avg_row_length'],
  ['data_length', 'Data_length'],
  ['max_data_length', 'Max_data_length'],
  ['index_length', 'Index_length'],
  ['data_free', 'Data_free'],
  ['auto_increment', 'Auto_increment'],
  ['create_time', 'Create_time'],
  ['update_time', 'Update_time'],
  ['check_time', 'Check_time'],
  ['table_collation', 'Collation'],
  ['checksum', 'Checksum'],
  ['create_options', 'Create_options'],
  ['table_comment', 'Comment'],
];

export async function showTableStatus(stmt: Extract<Statement, { kind: 'show_table_status' }>, session: Session, source: InformationSchemaSource, where: ShowWhere): Promise<Output> {
  const database = stmt.database ?? session.database;
  return shownFrom('tables', STATUS_COLUMNS, (r, at) => r[at('table_schema')] === database, stmt.filter, source, where, true);
}

/** `SHOW CHARACTER SET | CHARSET`: information_schema.character_sets, MySQL's columns. */
const CHARSET_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['character_set_name', 'Charset'],
  ['description', 'Description'],
  ['default_collate_name', 'Default collation'],
  ['maxlen', 'Maxlen'],
];

/** `SHOW COLLATION`: information_schema.collations, MySQL's columns. */
const COLLATION_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['collation_name', 'Collation'],
  ['character_set_name', 'Charset'],
  ['id', 'Id'],
  ['is_default', 'Default'],
  ['is_compiled', 'Compiled'],
  ['sortlen', 'Sortlen'],
];

export function showCharsetOrCollation(stmt: Extract<Statement, { kind: 'show_charset' | 'show_collation' }>, source: InformationSchemaSource, where: ShowWhere): Promise<Output> {
  return stmt.kind === 'show_charset'
    ? shownFrom('character_sets', CHARSET_COLUMNS, () => true, stmt.filter, source, where, false)
    : shownFrom('collations', COLLATION_COLUMNS, () => true, stmt.filter, source, where, false);
}

/**
 * The rows of an information_schema table that `keep` keeps, its columns `picks` under MySQL's
 * names (GreptimeDB's `query_from_information_schema_table`), LIKE on the first, WHERE over them.
 */
async function shownFrom(
  table: string,
  picks: ReadonlyArray<readonly [string, string]>,
  keep: (row: readonly Cell[], at: (name: string) => number) => boolean,
  filter: ShowFilter | undefined,
  source: InformationSchemaSource,
  where: ShowWhere,
  sorted: boolean,
): Promise<Output> {
  const from = (await informationSchemaTable(table, source))!;
  const at = (name: string) => from.columns.findIndex((c) => c.name === name);
  const indexes = picks.map(([name]) => at(name));
  const columns: OutputColumn[] = picks.map(([, shown], i) => ({ name: shown, data_type: from.columns[indexes[i]!]!.data_type }));
  let rows: Cell[][] = from.rows.filter((r) => keep(r, at)).map((r) => indexes.map((i) => r[i]!));
  if (sorted) rows.sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : String(a[0]) > String(b[0]) ? 1 : 0));
  if (filter?.kind === 'like') {
    const pattern = filter.pattern;
    rows = rows.filter((r) => likeMatches(pattern, String(r[0])));
  } else if (filter?.kind === 'where') {
    const out = await where(columns, rows, filter.sql);
    return out.kind === 'records' ? records(columns, out.rows) : out;
  }
  return records(columns, rows);
}
