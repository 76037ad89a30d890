/**
 * Table references replaced in the query text itself, at the byte offsets DuckDB's parse tree gives
 * them (`query_location`), instead of sending the rewritten tree back through
 * `json_deserialize_sql` (one DuckDB round trip, ~1 ms of a point query's few). Only for a query the
 * rewrites left alone otherwise, and only where the text is plainly the table's name: ASCII text,
 * unqualified references without TABLESAMPLE or AT; anything else returns undefined and the caller
 * deserializes the tree.
 */

/** A table reference as parsed, before any rewrite. */
export interface ParsedTableRef {
  readonly table_name: string;
  readonly schema_name: string;
  readonly catalog_name: string;
  readonly alias: string;
  readonly query_location?: unknown;
  readonly sample?: unknown;
  readonly at_clause?: unknown;
}

import type { TextSpan } from './constant-splice.js';

const UNQUOTED = /[A-Za-z_][A-Za-z0-9_$]*/y;

/**
 * The text quoted by `quote` starting at `at` in `sql` (doubled quotes read as one) and the offset
 * after its closing quote, or undefined when `sql[at]` is not the quote or it is never closed.
 */
export function readQuoted(sql: string, at: number, quote: "'" | '"'): { text: string; end: number } | undefined {
  if (sql[at] !== quote) return undefined;
  let i = at + 1;
  let text = '';
  for (;;) {
    const q = sql.indexOf(quote, i);
    if (q < 0) return undefined;
    text += sql.slice(i, q);
    if (sql[q + 1] !== quote) return { text, end: q + 1 };
    text += quote;
    i = q + 2;
  }
}

/** The end of the identifier naming `name` at `at` in `sql`, or undefined if it is not there. */
function identifierEnd(sql: string, at: number, name: string): number | undefined {
  if (sql[at] === '"') {
    const quoted = readQuoted(sql, at, '"');
    return quoted?.text === name ? quoted.end : undefined;
  }
  UNQUOTED.lastIndex = at;
  const m = UNQUOTED.exec(sql);
  if (m === null || m[0].toLowerCase() !== name.toLowerCase()) return undefined;
  return at + m[0].length;
}

/**
 * `sql` with each reference's table name replaced by `(relation)` (and `AS <table>` when it has no
 * alias, so that `table.column` still resolves), and the `others` spans replaced by their text
 * (`constant-splice.ts`), or undefined when a reference cannot be placed or two spans overlap.
 */
export function spliceTableRefs(sql: string, refs: ReadonlyArray<{ readonly ref: ParsedTableRef; readonly relation: string }>, others: readonly TextSpan[] = []): string | undefined {
  // query_location counts bytes: equal to string offsets only for ASCII text.
  if (!/^[\x00-\x7f]*$/.test(sql)) return undefined;
  const spans: TextSpan[] = [...others];
  for (const { ref, relation } of refs) {
    const at = ref.query_location;
    if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= sql.length) return undefined;
    if (ref.schema_name !== '' || ref.catalog_name !== '' || (ref.sample ?? null) !== null || (ref.at_clause ?? null) !== null) return undefined;
    const end = identifierEnd(sql, at, ref.table_name);
    // The name must stand alone: not the start of a longer name, nor qualified.
    if (end === undefined || sql[end] === '.' || (at > 0 && /[A-Za-z0-9_$."]/.test(sql[at - 1]!))) return undefined;
    const alias = ref.alias === '' ? ` AS "${ref.table_name.replaceAll('"', '""')}"` : '';
    spans.push({ start: at, end, text: `(${relation})${alias}` });
  }
  spans.sort((a, b) => a.start - b.start);
  for (let i = 1; i < spans.length; i++) if (spans[i]!.start < spans[i - 1]!.end) return undefined;
  let out = '';
  let from = 0;
  for (const s of spans) {
    out += sql.slice(from, s.start) + s.text;
    from = s.end;
  }
  return out + sql.slice(from);
}
