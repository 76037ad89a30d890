/**
 * Table references of a query, found in DuckDB's own parse of it (`json_serialize_sql`, DESIGN.md
 * D6): every `BASE_TABLE` node that is not a CTE of the query. The nodes are the parse tree's own
 * objects, so that a caller can point them at something else and `json_deserialize_sql` the tree.
 */

/** A `BASE_TABLE` node of DuckDB's serialized parse tree (the fields tsdb reads and rewrites). */
export interface BaseTableNode {
  type: 'BASE_TABLE';
  catalog_name: string;
  schema_name: string;
  table_name: string;
  alias: string;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isObject(v: Json | undefined): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Names defined by WITH clauses anywhere in the tree (lower case), added to `out`. */
export function cteNames(tree: unknown, out = new Set<string>()): Set<string> {
  const node = tree as Json;
  if (Array.isArray(node)) for (const x of node) cteNames(x, out);
  else if (isObject(node)) {
    const map = node['cte_map'];
    if (isObject(map) && Array.isArray(map['map'])) {
      for (const e of map['map']) if (isObject(e) && typeof e['key'] === 'string') out.add(e['key'].toLowerCase());
    }
    for (const v of Object.values(node)) cteNames(v, out);
  }
  return out;
}

function collect(node: Json, ctes: ReadonlySet<string>, out: BaseTableNode[]): void {
  if (Array.isArray(node)) for (const x of node) collect(x, ctes, out);
  else if (isObject(node)) {
    if (node['type'] === 'BASE_TABLE' && typeof node['table_name'] === 'string') {
      const isCte = node['schema_name'] === '' && node['catalog_name'] === '' && ctes.has(node['table_name'].toLowerCase());
      if (!isCte) out.push(node as unknown as BaseTableNode);
    }
    for (const v of Object.values(node)) collect(v, ctes, out);
  }
}

/** The table references of a serialized parse tree (`{"error":false,"statements":[…]}`). */
export function tableRefs(tree: unknown): BaseTableNode[] {
  const root = tree as Json;
  const out: BaseTableNode[] = [];
  collect(root, cteNames(root, new Set()), out);
  return out;
}

/**
 * The WHERE clause of the SELECT that reads `table` directly (the query itself, a subquery or a
 * CTE), and the names the table goes by there (alias, table name); undefined when there is none.
 * Its terms filter every row the table gives, so the ones on the time index and primary key may
 * narrow the table's scan (`time-predicates.ts`, `key-predicates.ts`).
 */
export function whereOfTable(tree: unknown, table: BaseTableNode): { where: { [k: string]: unknown }; names: ReadonlySet<string> } | undefined {
  let node: { [k: string]: unknown } | undefined;
  const find = (n: unknown): void => {
    if (node !== undefined) return;
    if (Array.isArray(n)) n.forEach(find);
    else if (typeof n === 'object' && n !== null) {
      const o = n as { [k: string]: unknown };
      if (o['type'] === 'SELECT_NODE' && o['from_table'] === table) node = o;
      else Object.values(o).forEach(find);
    }
  };
  find(tree);
  const where = node?.['where_clause'];
  if (typeof where !== 'object' || where === null || Array.isArray(where)) return undefined;
  return { where: where as { [k: string]: unknown }, names: new Set([table.alias, table.table_name].filter((x) => x !== '')) };
}

/**
 * Every name a column reference of the query holds (lower-cased; each part of `t.col`, so a
 * qualified or struct reference keeps its column), or undefined when the query may read columns
 * it does not name: a `*` or `COLUMNS(…)`, a NATURAL join, a PIVOT/UNPIVOT. A table's scan may
 * leave out the columns not in the set (a remote region then sends fewer).
 */
export function referencedColumns(tree: unknown): Set<string> | undefined {
  const out = new Set<string>();
  const walk = (node: Json): boolean => {
    if (Array.isArray(node)) return node.every(walk);
    if (!isObject(node)) return true;
    if (node['class'] === 'STAR' || node['type'] === 'PIVOT' || node['ref_type'] === 'NATURAL') return false;
    if (node['class'] === 'COLUMN_REF' && Array.isArray(node['column_names'])) {
      for (const n of node['column_names']) if (typeof n === 'string') out.add(n.toLowerCase());
    }
    if (Array.isArray(node['using_columns'])) {
      for (const n of node['using_columns']) if (typeof n === 'string') out.add(n.toLowerCase());
    }
    return Object.values(node).every(walk);
  };
  return walk(tree as Json) ? out : undefined;
}
