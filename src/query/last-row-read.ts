/**
 * Whether a query reads only the last row of each series of a table, so that the table's scan may
 * leave out the others (`ScanRequest.lastRow`, `engine/read/region-scan.ts`): the lastpoint shape
 * `SELECT … FROM t [WHERE …] QUALIFY row_number() OVER (PARTITION BY <p> ORDER BY <time index> DESC
 * [, …]) = 1`, which DISTINCT ON (`distinct-on.ts`) and GreptimeDB's `last_value(… ORDER BY ts) …
 * GROUP BY` (`first-last-value.ts`) are rewritten to, and which TSBS's QUALIFY form is.
 *
 * Why the answer is the full scan's: every partition term is a function of primary key columns, so
 * a partition is a set of whole series, and its latest time T is the latest time of one of them.
 * Each row of the partition at T is then its series' last row (no series of the partition has a
 * later one), so the rows the window ranks first are among the series' last rows whatever the
 * other order terms say. The WHERE must keep or drop whole series (terms on primary key columns
 * only) or be a time range the scan applies exactly (`timeBoundOf`), before it picks last rows: a
 * filter on a field, or a range the scan takes wider than the WHERE, would make an earlier row the
 * last one. Nothing else of the SELECT may see the other rows: no aggregate, window or subquery
 * in its items, GROUP BY, HAVING or sample. The caller asks only for a table read once.
 */
import type { TimeUnit } from '../types/time-unit.js';
import { columnNamesOf, isNode, type Json, type Node } from './sql-tree.js';
import type { BaseTableNode } from './table-refs.js';
import { timeBoundOf } from './time-predicates.js';

/** What the test needs to know of the table. */
export interface LastRowTable {
  readonly primaryKey: readonly string[];
  readonly timeIndex: string;
  readonly unit: TimeUnit;
}

/** Functions whose value changes from call to call (as `time-predicates.ts` has them). */
const VOLATILE = new Set(['random', 'uuid', 'gen_random_uuid', 'uuidv4', 'uuidv7', 'nextval', 'currval', 'setseed']);

/** The SELECT whose FROM is `table` itself, else undefined. */
function selectOf(tree: unknown, table: BaseTableNode): Node | undefined {
  let found: Node | undefined;
  const walk = (n: Json): void => {
    if (found !== undefined) return;
    if (Array.isArray(n)) n.forEach(walk);
    else if (isNode(n)) {
      if (n['type'] === 'SELECT_NODE' && n['from_table'] === (table as unknown)) found = n;
      else Object.values(n).forEach(walk);
    }
  };
  walk(tree as Json);
  return found;
}

/** Whether any node under `n` satisfies `test`. */
function some(n: Json | undefined, test: (node: Node) => boolean): boolean {
  if (Array.isArray(n)) return n.some((x) => some(x, test));
  if (!isNode(n)) return false;
  return test(n) || Object.values(n).some((v) => some(v, test));
}

/** The terms of a WHERE joined by AND (nested ANDs flattened). */
function conjuncts(n: Json): Json[] {
  if (isNode(n) && n['class'] === 'CONJUNCTION' && n['type'] === 'CONJUNCTION_AND') return (n['children'] as Json[]).flatMap(conjuncts);
  return [n];
}

/**
 * Whether the SELECT reading `table` directly asks only for the last row of each series of it (see
 * the file header). `aggregates`: DuckDB's aggregate function names (lower case); `folded`: the
 * values of constant time bounds (`timeRangeOf`).
 */
export function readsLastRows(tree: unknown, table: BaseTableNode, t: LastRowTable, aggregates: ReadonlySet<string>, folded?: ReadonlyMap<object, bigint>): boolean {
  const node = selectOf(tree, table);
  if (node === undefined || !isNode(node['qualify'])) return false;
  if (node['having'] !== null || node['sample'] !== null || node['aggregate_handling'] !== 'STANDARD_HANDLING') return false;
  if (!Array.isArray(node['group_expressions']) || node['group_expressions'].length > 0) return false;
  if ((table as unknown as Node)['sample'] !== null && (table as unknown as Node)['sample'] !== undefined) return false;
  const names = new Set([table.alias, table.table_name].filter((x) => x !== '').map((x) => x.toLowerCase()));
  const key = new Set(t.primaryKey.map((c) => c.toLowerCase()));
  /** The lower-case column a reference to the table names, else undefined. */
  const columnOf = (n: Json | undefined): string | undefined => {
    const c = columnNamesOf(n);
    if (c === undefined || c.length > 2 || (c.length === 2 && !names.has(c[0]!.toLowerCase()))) return undefined;
    return c[c.length - 1]!.toLowerCase();
  };
  const isAggregate = (n: Node) => n['class'] === 'FUNCTION' && typeof n['function_name'] === 'string' && aggregates.has(n['function_name'].toLowerCase());
  // What sees more rows than its own: such a node anywhere in the SELECT's own clauses.
  const seesRows = (n: Node) => n['class'] === 'WINDOW' || n['class'] === 'SUBQUERY' || isAggregate(n);
  // A function of the series: primary key columns and constants only, the same at every call.
  const ofSeries = (x: Json): boolean =>
    !some(x, (n) => {
      if (n['class'] === 'COLUMN_REF') return !key.has(columnOf(n) ?? '');
      if (n['class'] === 'FUNCTION' && VOLATILE.has(String(n['function_name']).toLowerCase())) return true;
      return n['class'] === 'STAR' || n['class'] === 'LAMBDA' || n['class'] === 'LAMBDA_REF' || seesRows(n);
    });
  // QUALIFY row_number() OVER (PARTITION BY <functions of the series> ORDER BY <time index> DESC, …) = 1
  const q = node['qualify'];
  if (q['class'] !== 'COMPARISON' || q['type'] !== 'COMPARE_EQUAL') return false;
  const isOne = (n: Json | undefined) => isNode(n) && n['class'] === 'CONSTANT' && isNode(n['value']) && n['value']['is_null'] === false && n['value']['value'] === 1;
  const w = isOne(q['right']) ? q['left'] : isOne(q['left']) ? q['right'] : undefined;
  if (!isNode(w) || w['class'] !== 'WINDOW' || w['type'] !== 'WINDOW_ROW_NUMBER' || w['filter_expr'] !== null) return false;
  const partitions = w['partitions'];
  const orders = w['orders'];
  if (!Array.isArray(partitions) || !partitions.every(ofSeries) || !Array.isArray(orders) || orders.length === 0) return false;
  const first = orders[0];
  if (!isNode(first) || first['type'] !== 'DESCENDING' || columnOf(first['expression']) !== t.timeIndex.toLowerCase()) return false;
  if (some(orders.slice(1), seesRows)) return false;
  // Nothing else of the SELECT looks at other rows.
  if (some(node['select_list'], seesRows) || some(node['modifiers'], seesRows)) return false;
  // The WHERE keeps whole series, or the time range the scan applies exactly.
  const where = node['where_clause'];
  if (where === null || where === undefined) return true;
  // As `timeRangeOf` tells the time index (case and all): a term it does not take is no bound.
  const exactNames = new Set([table.alias, table.table_name].filter((x) => x !== ''));
  const isTime = (n: Json | undefined) => {
    const c = columnNamesOf(n);
    return c !== undefined && c[c.length - 1] === t.timeIndex && (c.length === 1 || (c.length === 2 && exactNames.has(c[0]!)));
  };
  return conjuncts(where).every((term) => {
    const bound = timeBoundOf(term, isTime, t.unit, folded);
    return bound === 'exact' || (bound === undefined && ofSeries(term));
  });
}
