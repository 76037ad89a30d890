/**
 * GreptimeDB's aggregates `first_value(expr ORDER BY …)` and `last_value(expr ORDER BY …)` (its
 * TSBS client writes lastpoint with them: `SELECT last_value(usage_user ORDER BY ts) … GROUP BY
 * hostname`). DuckDB has first_value/last_value only as window functions; its aggregates `first`
 * and `last` take the same ORDER BY and, like DataFusion's, give the value of the first or last row
 * in that order, NULL included. A call of either as an aggregate (no OVER) is renamed in the parse
 * tree; the window form is left alone. Without an ORDER BY the row is any row of the group, as in
 * DataFusion (input order, which a query does not fix).
 */
import { isNode, type Json } from './sql-tree.js';

const AGGREGATES: Readonly<Record<string, string>> = { first_value: 'first', last_value: 'last' };

/** Renames aggregate calls of first_value/last_value in a serialized parse tree, in place; returns whether any was. */
export function rewriteFirstLastValue(tree: unknown): boolean {
  let changed = false;
  const walk = (n: Json): void => {
    if (Array.isArray(n)) {
      n.forEach(walk);
      return;
    }
    if (!isNode(n)) return;
    // A window call is class WINDOW; an aggregate or scalar call, FUNCTION.
    if (n['class'] === 'FUNCTION' && n['schema'] === '' && typeof n['function_name'] === 'string') {
      const duckdb = AGGREGATES[n['function_name'].toLowerCase()];
      if (duckdb !== undefined) {
        n['function_name'] = duckdb;
        changed = true;
      }
    }
    for (const v of Object.values(n)) walk(v);
  };
  walk(tree as Json);
  return changed;
}
