/**
 * Result column names as GreptimeDB (DataFusion) gives them, where DuckDB names them otherwise: an
 * unaliased aggregate or function of plain columns over one table is named with the columns
 * qualified by the table (`avg(cpu.usage)`, not DuckDB's `avg(usage)`), as clients and dashboards
 * written for GreptimeDB read them back by those names.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Node = { [k: string]: Json };

function isNode(v: Json | undefined): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Names the root SELECT's unaliased `f(col, …)` items `f(table.col,…)`, in place. */
export function nameSelectItems(tree: unknown, qualifier: string): void {
  const statements = (tree as Node)['statements'];
  if (!Array.isArray(statements) || statements.length !== 1 || !isNode(statements[0])) return;
  const node = statements[0]['node'];
  if (!isNode(node) || node['type'] !== 'SELECT_NODE' || !Array.isArray(node['select_list'])) return;
  for (const item of node['select_list']) {
    if (!isNode(item) || item['class'] !== 'FUNCTION' || item['alias'] !== '' || item['is_operator'] !== false) continue;
    if (item['distinct'] !== false || item['filter'] !== null || item['schema'] !== '') continue;
    const children = item['children'];
    if (!Array.isArray(children) || children.length === 0) continue;
    const args: string[] = [];
    for (const c of children) {
      if (!isNode(c) || c['class'] !== 'COLUMN_REF' || !Array.isArray(c['column_names'])) break;
      const names = c['column_names'] as string[];
      args.push(names.length === 1 ? `${qualifier}.${names[0]}` : names.join('.'));
    }
    if (args.length !== children.length) continue;
    item['alias'] = `${String(item['function_name'])}(${args.join(',')})`;
  }
}
