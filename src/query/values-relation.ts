/**
 * Rows computed in JavaScript (information_schema) as an SQL relation with typed columns, so that
 * queries join and filter them like any table.
 */
import type { ColumnType } from '../engine/region/metadata.js';
import { quoteIdent, quoteLiteral, SQL_TYPES } from '../engine/sst/sst-format.js';
import type { Cell, OutputColumn } from './output.js';


function literal(v: Cell, type: string): string {
  if (v === null) return 'NULL';
  if (type === 'TimestampMillisecond') return `epoch_ms(${String(v)})`;
  if (typeof v === 'string') return quoteLiteral(v);
  if (typeof v === 'object') return quoteLiteral(JSON.stringify(v));
  return String(v);
}

/** `rows` as a SELECT with columns `columns`. */
export function valuesRelation(columns: readonly OutputColumn[], rows: ReadonlyArray<readonly Cell[]>): string {
  const typeOf = (c: OutputColumn) => SQL_TYPES[c.data_type as ColumnType] ?? 'VARCHAR';
  return rows.length === 0
    ? `SELECT ${columns.map((c) => `CAST(NULL AS ${typeOf(c)}) AS ${quoteIdent(c.name)}`).join(', ')} WHERE false`
    : `SELECT ${columns.map((c, i) => `CAST(col${i} AS ${typeOf(c)}) AS ${quoteIdent(c.name)}`).join(', ')} FROM (VALUES ${rows
        .map((r) => `(${r.map((v, i) => literal(v, columns[i]!.data_type)).join(', ')})`)
        .join(', ')}) AS t(${columns.map((_, i) => `col${i}`).join(', ')})`;
}
