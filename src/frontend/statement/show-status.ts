/**
 * `SHOW TABLE STATUS [FROM db] [LIKE | WHERE]`: MySQL's columns over the database's rows of
 * information_schema.tables, sorted by name (GreptimeDB's `show_table_status`), with their types
 * (Version, Rows… UInt64; the times TimestampSecond).
 */
import { informationSchemaTable, type InformationSchemaSource } from '../../catalog/information-schema.js';
import { records, type Cell, type Output, type OutputColumn } from '../../query/output.js';
import type { Statement } from '../../sql/ast.js';
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
  const tables = (await informationSchemaTable('tables', source))!;
  const at = (name: string) => tables.columns.findIndex((c) => c.name === name);
  const schemaAt = at('table_schema');
  const picks = STATUS_COLUMNS.map(([from]) => at(from));
  const columns: OutputColumn[] = STATUS_COLUMNS.map(([, shown], i) => ({ name: shown, data_type: tables.columns[picks[i]!]!.data_type }));
  let rows: Cell[][] = tables.rows.filter((r) => r[schemaAt] === database).map((r) => picks.map((i) => r[i]!));
  rows.sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : String(a[0]) > String(b[0]) ? 1 : 0));
  if (stmt.filter?.kind === 'like') {
    const pattern = stmt.filter.pattern;
    rows = rows.filter((r) => likeMatches(pattern, String(r[0])));
  } else if (stmt.filter?.kind === 'where') {
    const out = await where(columns, rows, stmt.filter.sql);
    return out.kind === 'records' ? records(columns, out.rows) : out;
  }
  return records(columns, rows);
}
