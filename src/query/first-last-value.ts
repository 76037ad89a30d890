/**
 * GreptimeDB's aggregates `first_value(expr ORDER BY …)` and `last_value(expr ORDER BY …)` (its
 * TSBS client writes lastpoint with them: `SELECT last_value(usage_user ORDER BY ts) … GROUP BY
 * hostname`). DuckDB has first_value/last_value only as window functions; its aggregates `first`
 * and `last` take the same ORDER BY and, like DataFusion's, give the value of the first or last row
 * in that order, NULL included. A call of either as an aggregate (no OVER) is renamed in the parse
 * tree; the window form is left alone. Without an ORDER BY the row is any row of the group, as in
 * DataFusion (input order, which a query does not fix).
 *
 * The lastpoint shape — a SELECT of one table whose items are its GROUP BY columns and
 * `last_value(e ORDER BY <time index>)` (or all `first_value`) calls, nothing else aggregated —
 * becomes the row of each group that the order puts last: `SELECT <cols>, e … QUALIFY row_number()
 * OVER (PARTITION BY <groups> ORDER BY <time index> DESC) = 1`, which sorts only the keys rather
 * than each call its own copy of every row (TSBS lastpoint in this form: docs/benchmarks.md). The
 * time index is never NULL, so the row is the one every call would pick (of rows of equal time,
 * one row for all calls, where each call could pick its own).
 */
import { firstRowOfPartition, isNode, type Json, type Node } from './sql-tree.js';

const AGGREGATES: Readonly<Record<string, 'first' | 'last'>> = { first_value: 'first', last_value: 'last' };

/**
 * Rewrites aggregate calls of first_value/last_value in a serialized parse tree, in place; returns
 * whether any was. `timeIndexOf` gives the time index column of a table as a SELECT names it in its
 * FROM (lower case), if it has one; `aggregates` DuckDB's aggregate function names (lower case).
 */
export function rewriteFirstLastValue(tree: unknown, timeIndexOf: (table: string) => string | undefined = () => undefined, aggregates: ReadonlySet<string> = new Set()): boolean {
  let changed = false;
  const walk = (n: Json): void => {
    if (Array.isArray(n)) {
      n.forEach(walk);
      return;
    }
    if (!isNode(n)) return;
    if (n['type'] === 'SELECT_NODE' && lastRowOfGroups(n, timeIndexOf, aggregates)) changed = true;
    // A window call is class WINDOW; an aggregate or scalar call, FUNCTION.
    if (n['class'] === 'FUNCTION' && n['schema'] === '' && typeof n['function_name'] === 'string') {
      const kind = AGGREGATES[n['function_name'].toLowerCase()];
      if (kind !== undefined) {
        n['function_name'] = kind;
        changed = true;
      }
    }
    for (const v of Object.values(n)) walk(v);
  };
  walk(tree as Json);
  return changed;
}

/** Whether any node under `n` satisfies `test`. */
function some(n: Json | undefined, test: (node: Node) => boolean): boolean {
  if (Array.isArray(n)) return n.some((x) => some(x, test));
  if (!isNode(n)) return false;
  if (test(n)) return true;
  return Object.values(n).some((v) => some(v, test));
}

/** The first/last_value call `n` is, with its argument and order term, else undefined. */
function orderedCall(n: Json): { kind: 'first' | 'last'; arg: Json; order: Node } | undefined {
  if (!isNode(n) || n['class'] !== 'FUNCTION' || n['schema'] !== '' || typeof n['function_name'] !== 'string') return undefined;
  const kind = AGGREGATES[n['function_name'].toLowerCase()];
  const children = n['children'];
  const modifier = n['order_bys'];
  const orders = isNode(modifier) ? modifier['orders'] : undefined;
  if (kind === undefined || n['distinct'] !== false || n['filter'] !== null || !Array.isArray(children) || children.length !== 1) return undefined;
  if (!Array.isArray(orders) || orders.length !== 1 || !isNode(orders[0])) return undefined;
  return { kind, arg: children[0]!, order: orders[0] };
}

/** Rewrites the SELECT `node` of the lastpoint shape (see the file header) in place; false when it is not of it. */
function lastRowOfGroups(node: Node, timeIndexOf: (table: string) => string | undefined, aggregates: ReadonlySet<string>): boolean {
  const from = node['from_table'];
  if (!isNode(from) || from['type'] !== 'BASE_TABLE' || typeof from['table_name'] !== 'string') return false;
  const timeIndex = timeIndexOf(from['table_name'].toLowerCase());
  if (timeIndex === undefined || node['qualify'] !== null || node['having'] !== null || node['aggregate_handling'] !== 'STANDARD_HANDLING') return false;
  const groups = node['group_expressions'];
  const sets = node['group_sets'];
  const items = node['select_list'];
  if (!Array.isArray(groups) || groups.length === 0 || !Array.isArray(sets) || sets.length !== 1 || !Array.isArray(items)) return false;
  if (!Array.isArray(sets[0]) || sets[0].length !== groups.length) return false;
  // Groups of plain columns; the items: those columns, or ordered calls all of one kind and order.
  if (!groups.every((g) => isNode(g) && g['class'] === 'COLUMN_REF')) return false;
  const groupNames = new Set(groups.map((g) => ((g as Node)['column_names'] as string[]).join('.').toLowerCase()));
  const calls: Array<{ index: number; kind: 'first' | 'last'; arg: Json; order: Node }> = [];
  const isAggregate = (x: Node) => x['class'] === 'WINDOW' || x['class'] === 'SUBQUERY' || (x['class'] === 'FUNCTION' && typeof x['function_name'] === 'string' && (aggregates.has(x['function_name'].toLowerCase()) || AGGREGATES[x['function_name'].toLowerCase()] !== undefined));
  for (const [index, item] of items.entries()) {
    if (!isNode(item)) return false;
    if (item['class'] === 'COLUMN_REF' && groupNames.has((item['column_names'] as string[]).join('.').toLowerCase())) continue;
    const call = orderedCall(item);
    if (call === undefined || some(call.arg, isAggregate)) return false;
    calls.push({ index, ...call });
  }
  if (calls.length === 0) return false;
  const first = calls[0]!;
  const key = first.order['expression'];
  if (!isNode(key) || key['class'] !== 'COLUMN_REF' || !Array.isArray(key['column_names'])) return false;
  const keyNames = key['column_names'] as Json[];
  if (keyNames.length !== 1 || typeof keyNames[0] !== 'string' || keyNames[0].toLowerCase() !== timeIndex.toLowerCase()) return false;
  const direction = first.order['type'];
  if (direction !== 'ASCENDING' && direction !== 'DESCENDING' && direction !== 'ORDER_DEFAULT') return false;
  const sameOrder = (o: Node) => o['type'] === direction && JSON.stringify(o['expression'], (k, v: unknown) => (k === 'query_location' ? undefined : v)) === JSON.stringify(key, (k, v: unknown) => (k === 'query_location' ? undefined : v));
  if (!calls.every((c) => c.kind === first.kind && sameOrder(c.order))) return false;
  // The WHERE, and an ORDER BY of the answer, must not aggregate (they would once grouped).
  if (some(node['where_clause'], isAggregate) || some(node['modifiers'], isAggregate)) return false;
  // The row each group's calls read: the last in their order (last_value), or the first.
  const descending = (first.kind === 'last') !== (direction === 'DESCENDING');
  for (const c of calls) {
    const item = items[c.index] as Node;
    const arg: Json = isNode(c.arg) ? { ...c.arg, alias: item['alias'] ?? '' } : c.arg;
    items[c.index] = arg;
  }
  node['group_expressions'] = [];
  node['group_sets'] = [];
  node['qualify'] = firstRowOfPartition(structuredClone(groups), [{ type: descending ? 'DESCENDING' : 'ASCENDING', null_order: 'ORDER_DEFAULT', expression: structuredClone(key) }]);
  return true;
}
