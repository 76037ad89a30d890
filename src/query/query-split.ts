/**
 * How a query of one partitioned table splits over its regions (GreptimeDB's distributed plan,
 * reference internals.md §6.7), decided from DuckDB's parse tree alone, so that each region answers
 * its part where its rows are and only the answers cross to the frontend:
 *
 * - `whole`: every region runs the query itself, the frontend unites the answers and applies the
 *   ORDER BY / LIMIT / OFFSET again. Right when each answer row comes from one region's rows alone:
 *   a filter/projection without aggregates, an aggregation whose GROUP BY has every partition
 *   column (a group's rows are all in one region: the rule maps a row by those columns), or window
 *   functions (and a QUALIFY: DISTINCT ON as rewritten, lastpoint) partitioned by every partition
 *   column, without aggregates.
 * - `partial`: every region aggregates its rows by the groups (count, sum, min, max; avg as sum and
 *   count), the frontend aggregates those again (sum of counts, …) and applies HAVING, ORDER BY and
 *   LIMIT to the final groups.
 *
 * Anything else (other window functions, subqueries, CTEs, set operations, DISTINCT, GROUPING SETS, other
 * aggregates, an ORDER BY term that is not an output column…) does not split: a wrong answer is
 * worse than a slow one. The trees handed out are copies; the caller writes them back as SQL
 * (`json_deserialize_sql`).
 */
import { randomBytes } from 'node:crypto';
import { quoteIdent } from '../common/sql-quote.js';
import { castNode, functionNode, isNode, type Json, type Node } from './sql-tree.js';

/** What the split needs to know of the table. */
export interface SplitTable {
  /** Its partition columns (a row's region is a function of them). */
  readonly partitionColumns: readonly string[];
  /** Every column's name, in table order (what `*` expands to). */
  readonly columnNames: readonly string[];
  /** Columns of integer or floating-point types (what `sum` and `avg` take alike). */
  readonly numericColumns: ReadonlySet<string>;
  /** DuckDB's aggregate function names, lower case. */
  readonly aggregates: ReadonlySet<string>;
}

/** An ORDER BY term of the final step: the answer column (0-based), its direction and NULLS order as SQL. */
export interface FinalOrder {
  readonly column: number;
  readonly direction: '' | ' ASC' | ' DESC';
  readonly nulls: '' | ' NULLS FIRST' | ' NULLS LAST';
}

/** Each region runs the query (`region`: the tree, LIMIT raised by the OFFSET); the frontend orders and limits the union. */
export interface WholeSplit {
  readonly kind: 'whole';
  readonly region: unknown;
  /** Whether `region` is the query's tree unchanged. */
  readonly unchanged: boolean;
  readonly order: readonly FinalOrder[];
  /** The answer's columns (`*` expanded to the table's). */
  readonly columns: number;
  readonly limit?: number;
  readonly offset?: number;
}

/**
 * Each region runs `region` (groups and partial aggregates, named `splitColumn(i)`); the frontend
 * runs `final` over their union, a base table named `FINAL_INPUT`.
 */
export interface PartialSplit {
  readonly kind: 'partial';
  readonly region: unknown;
  readonly final: unknown;
  /** The region answer's columns. */
  readonly columns: number;
}

export type QuerySplit = WholeSplit | PartialSplit;

/**
 * The name of the frontend's input in `PartialSplit.final` (the union of the regions' answers): an
 * identifier DuckDB writes unquoted, with a per-process nonce so that no literal matches it.
 */
export const FINAL_INPUT = `__tsdb_answers_${randomBytes(6).toString('hex')}`;

/** The name of the i-th column of a region's answer as the final step reads it. */
export function splitColumn(i: number): string {
  return `__tsdb_part_${i}`;
}

/** An expression's shape: its tree without its alias and source positions. */
function shape(n: Json): string {
  const top = isNode(n) ? { ...n, alias: '' } : n;
  return JSON.stringify(top, (k, v: unknown) => (k === 'query_location' ? undefined : v));
}

/** Whether any node under `n` satisfies `test`. */
function some(n: Json, test: (node: Node) => boolean): boolean {
  if (Array.isArray(n)) return n.some((x) => some(x, test));
  if (!isNode(n)) return false;
  if (test(n)) return true;
  return Object.values(n).some((v) => some(v, test));
}

function columnRef(name: string, alias = ''): Node {
  return { class: 'COLUMN_REF', type: 'COLUMN_REF', alias, query_location: 0, column_names: [name] };
}

/** An aggregate call of `children` with the FILTER of the call it stands for. */
function call(name: string, children: Json[], filter: Json = null): Node {
  return { ...functionNode(name, children), filter };
}

/** A non-negative integer constant's value, else undefined. */
export function integerOf(n: Json | undefined): number | undefined {
  if (!isNode(n) || n['class'] !== 'CONSTANT' || !isNode(n['value'])) return undefined;
  const v = n['value'];
  const id = isNode(v['type']) ? v['type']['id'] : undefined;
  if (v['is_null'] !== false || (id !== 'INTEGER' && id !== 'BIGINT')) return undefined;
  const value = v['value'];
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

const ORDER_DIRECTIONS: Record<string, FinalOrder['direction']> = { ORDER_DEFAULT: '', ASCENDING: ' ASC', DESCENDING: ' DESC' };
const NULL_ORDERS: Record<string, FinalOrder['nulls']> = { ORDER_DEFAULT: '', 'NULLS FIRST': ' NULLS FIRST', 'NULLS LAST': ' NULLS LAST' };

/** The query's shape the split reads: the root SELECT, its ORDER BY terms and LIMIT / OFFSET. */
interface Shape {
  readonly node: Node;
  readonly orders: Node[];
  /** Its window functions (in the select list, QUALIFY or ORDER BY). */
  readonly windows: Node[];
  readonly limit?: number;
  readonly offset?: number;
  readonly hasLimit: boolean;
}

/** The root SELECT of a query the split may take, else undefined. */
function shapeOf(tree: unknown): Shape | undefined {
  const statements = isNode(tree as Json) ? (tree as Node)['statements'] : undefined;
  if (!Array.isArray(statements) || statements.length !== 1 || !isNode(statements[0])) return undefined;
  const node = statements[0]['node'];
  if (!isNode(node) || node['type'] !== 'SELECT_NODE') return undefined;
  const from = node['from_table'];
  if (!isNode(from) || from['type'] !== 'BASE_TABLE' || from['sample'] !== null) return undefined;
  const ctes = node['cte_map'];
  if (!isNode(ctes) || !Array.isArray(ctes['map']) || ctes['map'].length > 0) return undefined;
  if (node['sample'] !== null || node['aggregate_handling'] !== 'STANDARD_HANDLING') return undefined;
  // A subquery or a lambda (its parameters look like columns) anywhere.
  if (some(node, (n) => n['class'] === 'SUBQUERY' || n['class'] === 'LAMBDA' || n['type'] === 'SELECT_NODE' && n !== node)) return undefined;
  const windows: Node[] = [];
  some(node, (n) => {
    if (n['class'] === 'WINDOW') windows.push(n);
    return false;
  });
  const groups = node['group_expressions'];
  const sets = node['group_sets'];
  if (!Array.isArray(groups) || !Array.isArray(sets)) return undefined;
  // Plain GROUP BY: one set of every expression (none without GROUP BY).
  if (groups.length === 0 ? sets.length !== 0 : sets.length !== 1 || !Array.isArray(sets[0]) || sets[0].length !== groups.length) return undefined;
  let orders: Node[] = [];
  let limit: number | undefined;
  let offset: number | undefined;
  let hasLimit = false;
  for (const m of node['modifiers'] as Json[]) {
    if (!isNode(m)) return undefined;
    if (m['type'] === 'ORDER_MODIFIER' && orders.length === 0 && Array.isArray(m['orders'])) orders = m['orders'] as Node[];
    else if (m['type'] === 'LIMIT_MODIFIER' && !hasLimit) {
      hasLimit = true;
      if (m['limit'] !== null) {
        limit = integerOf(m['limit']);
        if (limit === undefined) return undefined;
      }
      if (m['offset'] !== null) {
        offset = integerOf(m['offset']);
        if (offset === undefined) return undefined;
      }
    } else return undefined;
  }
  return { node, orders, windows, ...(limit !== undefined && { limit }), ...(offset !== undefined && { offset }), hasLimit };
}

/** Whether `n` calls an aggregate function. */
function hasAggregate(n: Json, table: SplitTable): boolean {
  return some(n, (x) => x['class'] === 'FUNCTION' && typeof x['function_name'] === 'string' && table.aggregates.has(x['function_name'].toLowerCase()));
}

/**
 * The GROUP BY expressions as expressions of the table's columns: a position (`GROUP BY 1`) or a
 * select alias that names no column (`GROUP BY bucket`) stands for its select item, as DuckDB binds
 * them. Undefined when one cannot be told.
 */
function groupExpressions(node: Node, table: SplitTable): Node[] | undefined {
  const items = node['select_list'] as Json[];
  const columns = new Set(table.columnNames.map((c) => c.toLowerCase()));
  const out: Node[] = [];
  for (const g of node['group_expressions'] as Json[]) {
    if (!isNode(g)) return undefined;
    let expr: Json = g;
    if (g['class'] === 'CONSTANT') {
      const k = integerOf(g);
      const item = k === undefined ? undefined : items[k - 1];
      if (!isNode(item) || item['class'] === 'STAR') return undefined;
      expr = { ...item, alias: '' };
    } else if (g['class'] === 'COLUMN_REF') {
      const names = g['column_names'] as string[];
      if (names.length === 1 && !columns.has(names[0]!.toLowerCase())) {
        const matches = items.filter((i) => isNode(i) && typeof i['alias'] === 'string' && i['alias'].toLowerCase() === names[0]!.toLowerCase());
        if (matches.length !== 1) return undefined;
        expr = { ...(matches[0] as Node), alias: '' };
      }
    }
    if (!isNode(expr) || hasAggregate(expr, table)) return undefined;
    out.push(structuredClone(expr));
  }
  return out;
}

/** The output columns' names as far as the tree tells them ('' where DuckDB names an expression by its text); undefined for a `*` with modifiers. */
function outputNames(items: readonly Json[], table: SplitTable): Array<{ name: string; item: number }> | undefined {
  const out: Array<{ name: string; item: number }> = [];
  for (const [i, item] of items.entries()) {
    if (!isNode(item)) return undefined;
    if (item['class'] === 'STAR') {
      const plain = item['relation_name'] === '' && item['columns'] === false && item['expr'] === null && [item['exclude_list'], item['replace_list'], item['qualified_exclude_list'], item['rename_list']].every((l) => Array.isArray(l) && l.length === 0);
      if (!plain) return undefined;
      for (const c of table.columnNames) out.push({ name: c, item: i });
    } else if (item['alias'] !== '') out.push({ name: String(item['alias']), item: i });
    else if (item['class'] === 'COLUMN_REF') out.push({ name: (item['column_names'] as string[]).at(-1)!, item: i });
    else out.push({ name: '', item: i });
  }
  return out;
}

/**
 * The answer column each ORDER BY term sorts by, as DuckDB binds it: a position, an output name, or
 * an expression equal to a select item. Undefined when a term sorts by anything else (a column the
 * answer does not have).
 */
function finalOrders(orders: readonly Node[], items: readonly Json[], table: SplitTable): FinalOrder[] | undefined {
  const outputs = outputNames(items, table);
  if (outputs === undefined) return undefined;
  const out: FinalOrder[] = [];
  for (const o of orders) {
    const direction = ORDER_DIRECTIONS[String(o['type'])];
    const nulls = NULL_ORDERS[String(o['null_order'])];
    const e = o['expression'];
    if (direction === undefined || nulls === undefined || !isNode(e)) return undefined;
    let column: number | undefined;
    if (e['class'] === 'CONSTANT') {
      const k = integerOf(e);
      if (k === undefined || k < 1 || k > outputs.length) return undefined;
      column = k - 1;
    } else {
      const names = e['class'] === 'COLUMN_REF' ? (e['column_names'] as string[]) : undefined;
      if (names?.length === 1) {
        const matches = outputs.flatMap((x, i) => (x.name.toLowerCase() === names[0]!.toLowerCase() ? [i] : []));
        if (matches.length > 1) return undefined;
        column = matches[0];
      }
      if (column === undefined) {
        const wanted = shape(e);
        const index = outputs.findIndex((x) => isNode(items[x.item]) && (items[x.item] as Node)['class'] !== 'STAR' && shape(items[x.item]!) === wanted);
        if (index < 0) return undefined;
        column = index;
      }
    }
    out.push({ column, direction, nulls });
  }
  return out;
}

/** Whether `g` is a plain reference to column `name` (of the one table). */
function refersTo(g: Node, name: string): boolean {
  if (g['class'] !== 'COLUMN_REF') return false;
  const names = g['column_names'] as string[];
  return names.at(-1)!.toLowerCase() === name.toLowerCase() && names.length <= 2;
}

function wholeSplit(tree: unknown, s: Shape, table: SplitTable): WholeSplit | undefined {
  const outputs = outputNames(s.node['select_list'] as Json[], table);
  const orders = finalOrders(s.orders, s.node['select_list'] as Json[], table);
  if (orders === undefined) return undefined;
  const region = structuredClone(tree);
  const root = shapeOf(region)!.node;
  let unchanged = true;
  if (s.offset !== undefined) {
    unchanged = false;
    // Each region's first limit + offset rows hold the answer's; without a LIMIT, each region's
    // whole answer, in no particular order.
    root['modifiers'] = (root['modifiers'] as Node[]).flatMap((m): Node[] => {
      if (m['type'] === 'LIMIT_MODIFIER') return s.limit === undefined ? [] : [{ ...m, limit: { ...(m['limit'] as Node), value: { type: { id: 'BIGINT', type_info: null }, is_null: false, value: s.limit + s.offset! } }, offset: null }];
      return s.limit === undefined && m['type'] === 'ORDER_MODIFIER' ? [] : [m];
    });
  }
  return { kind: 'whole', region, unchanged, order: orders, columns: outputs!.length, ...(s.limit !== undefined && { limit: s.limit }), ...(s.offset !== undefined && { offset: s.offset }) };
}

/** Whether `e` (an argument of `sum` or `avg`) is arithmetic of numeric columns and constants: the same type rules as on the table's rows. */
function numericExpression(e: Json, table: SplitTable): boolean {
  if (!isNode(e)) return false;
  if (e['class'] === 'COLUMN_REF') return table.numericColumns.has((e['column_names'] as string[]).at(-1)!.toLowerCase());
  if (e['class'] === 'CONSTANT') {
    const id = isNode(e['value']) && isNode(e['value']['type']) ? e['value']['type']['id'] : undefined;
    return id === 'INTEGER' || id === 'BIGINT' || id === 'DOUBLE' || id === 'DECIMAL';
  }
  if (e['class'] === 'FUNCTION' && e['is_operator'] === true && ['+', '-', '*'].includes(String(e['function_name']))) {
    return (e['children'] as Json[]).every((c) => numericExpression(c, table));
  }
  return false;
}

function partialSplit(tree: unknown, s: Shape, table: SplitTable): PartialSplit | undefined {
  const groups = groupExpressions(s.node, table);
  if (groups === undefined) return undefined;
  const groupShapes = groups.map(shape);
  const partials: Node[] = groups.map((g, i) => ({ ...g, alias: splitColumn(i) }));
  const byShape = new Map<string, number>();
  /** The answer column of a partial aggregate (one per distinct aggregate). */
  const part = (agg: Node): Node => {
    const key = shape(agg);
    let i = byShape.get(key);
    if (i === undefined) {
      i = partials.length;
      byShape.set(key, i);
      partials.push({ ...agg, alias: splitColumn(i) });
    }
    return columnRef(splitColumn(i));
  };
  let failed = false;
  const aliases = new Set((s.node['select_list'] as Json[]).flatMap((i) => (isNode(i) && typeof i['alias'] === 'string' && i['alias'] !== '' ? [i['alias'].toLowerCase()] : [])));
  const columns = new Set(table.columnNames.map((c) => c.toLowerCase()));
  /** `e` of the final step: groups as their answer columns, aggregates as the final of their partials. */
  const final = (e: Json, place: 'select' | 'having' | 'order'): Json => {
    if (failed || !isNode(e)) return Array.isArray(e) ? e.map((x) => final(x, place)) : e;
    if (e['class'] !== undefined && e['class'] !== 'CONSTANT') {
      const g = groupShapes.indexOf(shape(e));
      if (g >= 0) return columnRef(splitColumn(g), String(e['alias'] ?? ''));
    }
    const name = e['class'] === 'FUNCTION' && typeof e['function_name'] === 'string' ? e['function_name'].toLowerCase() : undefined;
    if (name !== undefined && table.aggregates.has(name)) {
      const args = e['children'] as Json[];
      const plain = e['distinct'] === false && e['export_state'] === false && isNode(e['order_bys']) && (e['order_bys']['orders'] as Json[]).length === 0 && e['schema'] === '';
      if (!plain || hasAggregate(args, table) || (e['filter'] !== null && hasAggregate(e['filter'] as Json, table))) {
        failed = true;
        return e;
      }
      const filter = e['filter'];
      const alias = String(e['alias']);
      const one = args.length === 1;
      let out: Node;
      if (name === 'count_star' && args.length === 0) out = castNode(call('sum', [part(call('count_star', [], filter))]), 'BIGINT');
      else if (name === 'count' && one) out = castNode(call('sum', [part(call('count', args, filter))]), 'BIGINT');
      else if ((name === 'min' || name === 'max') && one) out = call(name, [part(call(name, args, filter))]);
      else if (name === 'sum' && one && numericExpression(args[0]!, table)) out = call('sum', [part(call('sum', args, filter))]);
      else if (name === 'avg' && one && numericExpression(args[0]!, table)) out = functionNode('/', [castNode(call('sum', [part(call('sum', args, filter))]), 'DOUBLE'), castNode(call('sum', [part(call('count', args, filter))]), 'DOUBLE')], true);
      else {
        failed = true;
        return e;
      }
      out['alias'] = alias;
      return out;
    }
    if (e['class'] === 'COLUMN_REF') {
      // A select alias (ORDER BY's names are the answer's first); any other column is not a group's.
      const names = e['column_names'] as string[];
      const alias = names.length === 1 && aliases.has(names[0]!.toLowerCase());
      if (!(place === 'order' && alias) && !(place === 'having' && alias && !columns.has(names[0]!.toLowerCase()))) failed = true;
      return e;
    }
    if (e['class'] === 'STAR') {
      failed = true;
      return e;
    }
    const out: Node = {};
    for (const [k, v] of Object.entries(e)) out[k] = isNode(v) || Array.isArray(v) ? final(v, place) : v;
    return out;
  };
  const root = s.node;
  const items = (root['select_list'] as Json[]).map((item) => {
    const f = final(item, 'select');
    if (isNode(f) && isNode(item) && f['alias'] === '') {
      // The final expression is not the item's: it keeps the item's name.
      if (item['class'] === 'COLUMN_REF') f['alias'] = (item['column_names'] as string[]).at(-1)!;
      else failed = true;
    }
    return f;
  });
  const having = root['having'] === null ? null : final(root['having'] as Json, 'having');
  const modifiers = (root['modifiers'] as Node[]).map((m) => (m['type'] === 'ORDER_MODIFIER' ? { ...m, orders: (m['orders'] as Node[]).map((o) => ({ ...o, expression: final(o['expression']!, 'order') })) } : m));
  if (failed || partials.length === groups.length && groups.length === 0) return undefined;
  const region = structuredClone(tree) as Node;
  const regionRoot = shapeOf(region)!.node;
  Object.assign(regionRoot, { select_list: structuredClone(partials), group_expressions: structuredClone(groups), having: null, modifiers: [] });
  const finalTree = structuredClone(tree) as Node;
  const finalRoot = shapeOf(finalTree)!.node;
  Object.assign(finalRoot, {
    select_list: items,
    from_table: { type: 'BASE_TABLE', alias: '', sample: null, query_location: 0, schema_name: '', table_name: FINAL_INPUT, column_name_alias: [], catalog_name: '', at_clause: null },
    where_clause: null,
    group_expressions: groups.map((_, i) => columnRef(splitColumn(i))),
    having,
    modifiers,
  });
  return { kind: 'partial', region, final: finalTree, columns: partials.length };
}

/**
 * How `tree` (one query of the partitioned table, the only table it reads) splits over the
 * table's regions, or undefined when it does not.
 */
export function splitQuery(tree: unknown, table: SplitTable): QuerySplit | undefined {
  if (table.partitionColumns.length === 0) return undefined;
  const s = shapeOf(tree);
  if (s === undefined) return undefined;
  const node = s.node;
  if (node['where_clause'] !== null && hasAggregate(node['where_clause'] as Json, table)) return undefined;
  const grouped = (node['group_expressions'] as Json[]).length > 0;
  const aggregated = grouped || node['having'] !== null || hasAggregate(node['select_list'] as Json, table) || s.orders.some((o) => hasAggregate(o['expression']!, table));
  // Window functions (a QUALIFY, DISTINCT ON as `distinct-on.ts` writes it: lastpoint) over rows,
  // each partitioned by every partition column: a window's rows are all in one region, so each
  // region answers for its own rows.
  if (s.windows.length > 0 || node['qualify'] !== null) {
    if (aggregated || (node['qualify'] !== null && s.windows.length === 0)) return undefined;
    const local = (w: Node) => Array.isArray(w['partitions']) && table.partitionColumns.every((c) => (w['partitions'] as Json[]).some((p) => isNode(p) && refersTo(p, c)));
    return s.windows.every(local) ? wholeSplit(tree, s, table) : undefined;
  }
  if (!aggregated) return wholeSplit(tree, s, table);
  const groups = groupExpressions(node, table);
  if (groups === undefined) return undefined;
  if (table.partitionColumns.every((c) => groups.some((g) => refersTo(g, c)))) {
    const whole = wholeSplit(tree, s, table);
    if (whole !== undefined) return whole;
  }
  return partialSplit(tree, s, table);
}

/**
 * The frontend's query of a whole split's answers: `answers`, a relation of the regions' answers
 * with columns `splitColumn(i)`, named back `names`, ordered (by position: no name can shadow it)
 * and limited again.
 */
export function wholeFinalSql(split: WholeSplit, answers: string, names: readonly string[]): string {
  const order = split.order.length === 0 ? '' : ` ORDER BY ${split.order.map((o) => `${o.column + 1}${o.direction}${o.nulls}`).join(', ')}`;
  const limit = split.limit === undefined ? '' : ` LIMIT ${split.limit}`;
  const offset = split.offset === undefined ? '' : ` OFFSET ${split.offset}`;
  return `SELECT ${names.map((n, i) => `${splitColumn(i)} AS ${quoteIdent(n)}`).join(', ')} FROM ${answers}${order}${limit}${offset}`;
}
