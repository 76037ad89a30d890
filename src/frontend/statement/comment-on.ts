/**
 * `COMMENT ON TABLE t IS '…'` and `COMMENT ON COLUMN t.c IS '…'` (GreptimeDB's comment statements):
 * a table's comment is its `comment` option (as `WITH (comment = '…')` sets it, so SHOW CREATE TABLE
 * and information_schema.tables show it), a column's its COMMENT; `IS NULL` removes either.
 */
import type { TableInfo } from '../../catalog/table-info.js';
import { StatusCode } from '../../common/error/status-code.js';
import { TsdbError } from '../../common/error/tsdb-error.js';
import type { Statement } from '../../sql/ast.js';

type CommentOn = Extract<Statement, { kind: 'comment_on' }>;

/** The table after the statement: `schema_version` bumped, the comment set or removed. */
export function commented(table: TableInfo, stmt: CommentOn): TableInfo {
  const next = { ...table, schema_version: table.schema_version + 1 };
  if (stmt.column === undefined) {
    const options: Record<string, string> = { ...table.options };
    const out: { -readonly [K in keyof TableInfo]: TableInfo[K] } = { ...next, options };
    if (stmt.comment === null) {
      delete options['comment'];
      delete out.comment;
    } else {
      options['comment'] = stmt.comment;
      out.comment = stmt.comment;
    }
    return out;
  }
  const column = table.columns.find((c) => c.name === stmt.column);
  // GreptimeDB's words for a column the table does not have; its code there is 1002 (Unexpected,
  // HTTP 500), but a user's mistake is never a server error here: TableColumnNotFound (400).
  if (column === undefined) throw new TsdbError(StatusCode.TableColumnNotFound, `Column not found in column metadata, column_name: ${stmt.column}, column_id: 0`);
  const updated = { ...column };
  if (stmt.comment === null) delete (updated as { comment?: string }).comment;
  else (updated as { comment?: string }).comment = stmt.comment;
  return { ...next, columns: table.columns.map((c) => (c === column ? updated : c)) };
}
