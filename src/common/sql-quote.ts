/** Quoting of identifiers and text in the SQL that tsdb generates (DuckDB's, standard SQL). */

/** A SQL identifier in double quotes. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A SQL string literal. */
export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
