/**
 * DuckDB's parse trees as `json_serialize_sql` writes them (`sql-json.ts` reads and writes them):
 * the JSON shape, and factories for the nodes tsdb's rewrites put into them.
 */
import type { TimeUnit } from '../types/time-unit.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Node = { [k: string]: Json };

export function isNode(v: Json | undefined): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Replaces `call` in place by a copy of a parsed template expression, keeping the call's alias:
 * each one-part column reference named in `args` (`__v`, `__k`, …) becomes a copy of its node,
 * and each template node for which `carried` names keys of the call (its DISTINCT, FILTER,
 * window, …) takes copies of those of them the call has. Carried keys are copied after the
 * template node's own children are filled, so a user's column named like a placeholder in them
 * stays the user's.
 */
export function replaceByTemplate(call: Node, template: Json, args: Readonly<Record<string, Json>>, carried: (n: Node) => readonly string[]): void {
  const fill = (n: Json): Json => {
    if (Array.isArray(n)) return n.map(fill);
    if (!isNode(n)) return n;
    const names = n['class'] === 'COLUMN_REF' ? n['column_names'] : undefined;
    if (Array.isArray(names) && names.length === 1 && typeof names[0] === 'string' && Object.hasOwn(args, names[0])) return structuredClone(args[names[0]]!);
    for (const [k, v] of Object.entries(n)) n[k] = fill(v);
    for (const key of carried(n)) if (key in call) n[key] = structuredClone(call[key]!);
    return n;
  };
  const filled = fill(structuredClone(template)) as Node;
  const alias = call['alias'];
  for (const key of Object.keys(call)) delete call[key];
  Object.assign(call, filled, { alias });
}

/**
 * Makes `n` the node `by` in place, keeping its alias and its place in the text: rewrites that
 * replace a node others hold by identity (the result names hold select items) use it.
 */
export function replaceInPlace(n: Node, by: Node): void {
  const { alias, query_location } = n;
  for (const k of Object.keys(n)) delete n[k];
  Object.assign(n, by, { alias, query_location });
}

/** A function call (`is_operator` for `+`, `-` and the like). */
export function functionNode(name: string, children: Json[], operator = false): Node {
  return {
    class: 'FUNCTION',
    type: 'FUNCTION',
    alias: '',
    query_location: 0,
    function_name: name,
    schema: '',
    children,
    filter: null,
    order_bys: { type: 'ORDER_MODIFIER', orders: [] },
    distinct: false,
    is_operator: operator,
    export_state: false,
    catalog: '',
  };
}

/**
 * `row_number() OVER (PARTITION BY partitions ORDER BY orders) = 1`: the QUALIFY that keeps the
 * first row of each partition in that order (DISTINCT ON and lastpoint shapes, rewritten).
 */
export function firstRowOfPartition(partitions: Json[], orders: Json[]): Node {
  return {
    class: 'COMPARISON',
    type: 'COMPARE_EQUAL',
    alias: '',
    query_location: 0,
    left: {
      class: 'WINDOW',
      type: 'WINDOW_ROW_NUMBER',
      alias: '',
      query_location: 0,
      function_name: 'row_number',
      schema: '',
      catalog: '',
      children: [],
      partitions,
      orders,
      start: 'UNBOUNDED_PRECEDING',
      end: 'CURRENT_ROW_RANGE',
      start_expr: null,
      end_expr: null,
      offset_expr: null,
      default_expr: null,
      ignore_nulls: false,
      filter_expr: null,
      exclude_clause: 'NO_OTHER',
      distinct: false,
      arg_orders: [],
    },
    right: { class: 'CONSTANT', type: 'VALUE_CONSTANT', alias: '', query_location: 0, value: { type: { id: 'INTEGER', type_info: null }, is_null: false, value: 1 } },
  };
}

/** `CAST(child AS type)` of a type without parameters (`TIMESTAMP_NS`, `DATE`, …). */
export function castNode(child: Json, type: string): Node {
  return { class: 'CAST', type: 'OPERATOR_CAST', alias: '', query_location: 0, child, cast_type: { id: type, type_info: null }, try_cast: false };
}

/** A VARCHAR constant. */
export function stringNode(value: string): Node {
  return { class: 'CONSTANT', type: 'VALUE_CONSTANT', alias: '', query_location: 0, value: { type: { id: 'VARCHAR', type_info: null }, is_null: false, value } };
}

/** The text of a VARCHAR constant node, else undefined. */
export function stringOf(n: Json | undefined): string | undefined {
  if (!isNode(n) || n['class'] !== 'CONSTANT') return undefined;
  const value = n['value'] as Node;
  return (value['type'] as Node)['id'] === 'VARCHAR' && value['is_null'] !== true ? (value['value'] as string) : undefined;
}

/** The names of a column reference (`["cpu", "ts"]` for `cpu.ts`), else undefined. */
export function columnNamesOf(n: Json | undefined): readonly string[] | undefined {
  return isNode(n) && n['class'] === 'COLUMN_REF' ? (n['column_names'] as string[]) : undefined;
}

/** The lower-case name of a function call node, else undefined. */
export function functionNameOf(n: Json | undefined): string | undefined {
  return isNode(n) && n['class'] === 'FUNCTION' && typeof n['function_name'] === 'string' ? n['function_name'].toLowerCase() : undefined;
}

/** The type a CAST node casts to (`TIMESTAMP_NS`, `TIMESTAMP WITH TIME ZONE`, …), else undefined. */
export function castTypeOf(n: Json | undefined): string | undefined {
  if (!isNode(n) || n['class'] !== 'CAST' || !isNode(n['cast_type'])) return undefined;
  return String(n['cast_type']['id']);
}

/** The serialized tree of `SELECT <items>` (no FROM), for `json_deserialize_sql` or `json_execute_serialized_sql`. */
export function selectTree(items: Json[]): Node {
  return {
    error: false,
    statements: [
      {
        node: {
          type: 'SELECT_NODE',
          modifiers: [],
          cte_map: { map: [] },
          select_list: items,
          from_table: { type: 'EMPTY', alias: '', sample: null, query_location: 0 },
          where_clause: null,
          group_expressions: [],
          group_sets: [],
          aggregate_handling: 'STANDARD_HANDLING',
          having: null,
          sample: null,
          qualify: null,
        },
        named_param_map: [],
      },
    ],
  };
}

/** Every select list in the tree (of the query, its subqueries and CTEs), each with its items. */
export function selectLists(tree: unknown): Json[][] {
  const out: Json[][] = [];
  const walk = (n: Json): void => {
    if (Array.isArray(n)) {
      for (const x of n) walk(x);
      return;
    }
    if (!isNode(n)) return;
    if (n['type'] === 'SELECT_NODE' && Array.isArray(n['select_list'])) out.push(n['select_list']);
    for (const v of Object.values(n)) walk(v);
  };
  walk(tree as Json);
  return out;
}

/**
 * A literal list folded out of the query text (`sql/literal-lists.ts`): in the tree, a column
 * reference to its marker, the one element of an IN list. The rewrites of literals say here what they
 * would do to its elements; the elements are rewritten so when they replace the marker in the query
 * text (`folded-lists.ts`).
 */
export interface FoldedListUse {
  /** Its strings are timestamps, read in the session's time zone `zone` (`session-time.ts`). */
  stringsAreTimestamps(zone: string): void;
  /** Its integers are epochs in `unit` (`time-predicates.ts`). */
  integersAreEpochs(unit: TimeUnit): void;
}

/** The folded list a node is the marker of, else undefined. */
export type FoldedListOf = (n: Json | undefined) => FoldedListUse | undefined;
