/**
 * The LIMIT a table's scan may stop at: GreptimeDB (DataFusion) hands a query's LIMIT to the scan
 * of its one table when nothing between them needs more rows — no WHERE, GROUP BY, HAVING,
 * aggregate, window, DISTINCT or ORDER BY — and `public.numbers` gives as many rows as its scan
 * asks (100 when it asks for none). `LIMIT n OFFSET m` asks for n + m.
 */
import { integerOf } from './query-split.js';
import { isNode, type Json, type Node } from './sql-tree.js';

/** Whether `n` holds an aggregate call or a window. */
function aggregating(n: Json, aggregates: ReadonlySet<string>): boolean {
  if (Array.isArray(n)) return n.some((x) => aggregating(x, aggregates));
  if (!isNode(n)) return false;
  if (n['class'] === 'WINDOW') return true;
  if (n['class'] === 'FUNCTION' && typeof n['function_name'] === 'string' && aggregates.has(n['function_name'].toLowerCase())) return true;
  return Object.values(n).some((v) => aggregating(v, aggregates));
}

/** The SELECT node reading `ref` directly (its FROM is `ref`), anywhere in `n`. */
function readerOf(n: Json, ref: object): Node | undefined {
  if (Array.isArray(n)) {
    for (const x of n) {
      const found = readerOf(x, ref);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isNode(n)) return undefined;
  if (n['type'] === 'SELECT_NODE' && n['from_table'] === (ref as Json)) return n;
  return readerOf(Object.values(n), ref);
}

/**
 * The rows the scan of `ref` (a base table node of `tree`) may stop at; undefined: all. The query
 * reading it may be a subquery (`SELECT count(*) FROM (SELECT * FROM numbers LIMIT 1000)`).
 */
export function scanLimitOf(tree: unknown, ref: object, aggregates: ReadonlySet<string>): number | undefined {
  const statements = (tree as { statements?: Json }).statements;
  const node = statements === undefined ? undefined : readerOf(statements, ref);
  if (node === undefined) return undefined;
  if (node['where_clause'] !== null || node['having'] !== null || (node['qualify'] ?? null) !== null) return undefined;
  if (!Array.isArray(node['group_expressions']) || node['group_expressions'].length > 0) return undefined;
  const cte = node['cte_map'];
  if (isNode(cte) && Array.isArray(cte['map']) && cte['map'].length > 0) return undefined;
  const modifiers = node['modifiers'];
  if (!Array.isArray(modifiers) || modifiers.length !== 1 || !isNode(modifiers[0]) || modifiers[0]['type'] !== 'LIMIT_MODIFIER') return undefined;
  const limit = integerOf(modifiers[0]['limit']);
  const offset = modifiers[0]['offset'] === null ? 0 : integerOf(modifiers[0]['offset']);
  if (limit === undefined || offset === undefined || aggregating(node['select_list'] ?? null, aggregates)) return undefined;
  return limit + offset;
}
