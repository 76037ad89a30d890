/**
 * `SELECT DISTINCT ON (k) … ORDER BY k, ts DESC` (the "last row per series" query every dashboard
 * sends) rewritten as `QUALIFY row_number() OVER (PARTITION BY k ORDER BY k, ts DESC) = 1`: the same
 * rows, but DuckDB's DISTINCT ON sorts every column of every row, the window only the keys
 * (TSBS lastpoint: 887 ms → ~195 ms, docs/benchmarks.md).
 */

import { firstRowOfPartition, isNode, type Json, type Node } from './sql-tree.js';

const isConstant = (n: Json | undefined) => isNode(n) && n['class'] === 'CONSTANT';

/** Whether two expressions are the same, wherever they were written. */
function sameExpression(a: Json | undefined, b: Json | undefined): boolean {
  const plain = (x: Json | undefined) => JSON.stringify(x, (k, v: unknown) => (k === 'query_location' ? undefined : v));
  return plain(a) === plain(b);
}

/** Rewrites every eligible DISTINCT ON in the serialized tree, in place; returns whether any was. */
export function rewriteDistinctOn(tree: unknown): boolean {
  let changed = false;
  const walk = (n: Json): void => {
    if (Array.isArray(n)) {
      n.forEach(walk);
      return;
    }
    if (!isNode(n)) return;
    if (n['type'] === 'SELECT_NODE' && Array.isArray(n['modifiers']) && n['qualify'] === null) {
      const mods = n['modifiers'] as Node[];
      const distinct = mods.find((m) => m['type'] === 'DISTINCT_MODIFIER');
      const order = mods.find((m) => m['type'] === 'ORDER_MODIFIER');
      const targets = distinct?.['distinct_on_targets'];
      const orders = (order?.['orders'] as Node[] | undefined) ?? [];
      // Positions (`DISTINCT ON (1)`, `ORDER BY 1`) mean select items there, not constants in a window.
      if (Array.isArray(targets) && targets.length > 0 && !targets.some(isConstant) && !orders.some((o) => isConstant(o['expression']))) {
        n['modifiers'] = mods.filter((m) => m !== distinct);
        // Ordering by a partition key is redundant inside the partition (and makes DuckDB sort more).
        n['qualify'] = firstRowOfPartition(targets, orders.filter((o) => !targets.some((t) => sameExpression(t, o['expression']))));
        changed = true;
      }
    }
    for (const v of Object.values(n)) walk(v);
  };
  walk(tree as Json);
  return changed;
}
