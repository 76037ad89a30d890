/**
 * `avg` and `sum` of a DECIMAL column as DataFusion computes them (GreptimeDB's answers), where
 * DuckDB's differ: DuckDB averages a decimal as a DOUBLE (inexact) and sums it as DECIMAL(38, s);
 * DataFusion's avg is exact, Decimal(p + 4, s + 4) (the sum's unscaled value times 10^4 over the
 * count, truncated), and its sum is Decimal(p + 10, s), precisions capped at 38.
 *
 * Rewritten in the parse tree for an argument that is a column reference of a decimal column of the
 * query's tables (the name means one decimal type in all of them) or a cast to a DECIMAL type (decimal
 * arithmetic, `decimal-arithmetic.ts`, or the user's); other arguments keep DuckDB's.
 * The replacement is DuckDB's parse of a template (`template`), its `__v` the call's argument, its
 * aggregates keeping the call's DISTINCT and FILTER.
 */
import { isNode, replaceByTemplate, type Json, type Node } from './sql-tree.js';

export interface DecimalType {
  readonly precision: number;
  readonly scale: number;
}

/** The SQL of the replacement of `fn(__v)` for a column of type `d`. */
function templateOf(fn: 'avg' | 'sum', d: DecimalType): string {
  if (fn === 'sum') return `CAST(sum(__v) AS DECIMAL(${Math.min(38, d.precision + 10)}, ${d.scale}))`;
  const scale = d.scale + 4;
  // trunc(unscaled sum · 10^4 / count) (HUGEINT `//` truncates; NULL over no rows), then · 10^-scale as
  // exact DECIMAL arithmetic. The sum's unscaled value is its text without the point (DuckDB writes
  // every digit of the scale): multiplying by 10^s could overflow DECIMAL(38) where HUGEINT does not.
  const unscaledSum = d.scale === 0 ? 'CAST(sum(__v) AS HUGEINT)' : `CAST(replace(CAST(sum(__v) AS VARCHAR), '.', '') AS HUGEINT)`;
  const unscaled = `CAST(${unscaledSum} * 10000 // count(__v) AS DECIMAL(38, 0))`;
  const step = `CAST('0.${'0'.repeat(scale - 1)}1' AS DECIMAL(${scale + 1}, ${scale}))`;
  return `CAST(${unscaled} * ${step} AS DECIMAL(${Math.min(38, d.precision + 4)}, ${scale}))`;
}

/**
 * The DECIMAL type of an aggregate's argument: a decimal column, or a cast to a DECIMAL type (what
 * `decimal-arithmetic.ts` makes of decimal arithmetic); else undefined.
 */
function decimalTypeOf(arg: Json | undefined, decimals: ReadonlyMap<string, DecimalType>): DecimalType | undefined {
  if (!isNode(arg)) return undefined;
  if (arg['class'] === 'COLUMN_REF' && Array.isArray(arg['column_names'])) return decimals.get(String(arg['column_names'].at(-1)).toLowerCase());
  const to = arg['cast_type'];
  if (arg['class'] !== 'CAST' || arg['try_cast'] === true || !isNode(to) || to['id'] !== 'DECIMAL' || !isNode(to['type_info'])) return undefined;
  const { width, scale } = to['type_info'];
  return typeof width === 'number' && typeof scale === 'number' ? { precision: width, scale } : undefined;
}

/** Keys of an aggregate call that carry over to the template's aggregates (its `sum` and `count`). */
const CARRIED = ['distinct', 'filter', 'order_bys'] as const;

function carriedBy(n: Node): readonly string[] {
  return (n['class'] === 'AGGREGATE' || n['class'] === 'FUNCTION') && (n['function_name'] === 'sum' || n['function_name'] === 'count') ? CARRIED : [];
}

/**
 * Rewrites `avg(c)` / `sum(c)` of decimal columns (`decimals`: lower-cased column name → its type)
 * in a serialized parse tree. Returns whether it changed.
 */
export async function rewriteDecimalAggregates(tree: unknown, decimals: ReadonlyMap<string, DecimalType>, template: (sql: string) => Promise<unknown>): Promise<boolean> {
  if (decimals.size === 0) return false;
  const calls: Array<{ node: Node; fn: 'avg' | 'sum'; type: DecimalType }> = [];
  const find = (n: Json): void => {
    if (Array.isArray(n)) return n.forEach(find);
    if (!isNode(n)) return;
    Object.values(n).forEach(find);
    if (n['class'] !== 'AGGREGATE' && n['class'] !== 'FUNCTION') return;
    if (n['schema'] !== '' || n['is_operator'] === true || !Array.isArray(n['children']) || n['children'].length !== 1) return;
    const fn = String(n['function_name']).toLowerCase();
    if (fn !== 'avg' && fn !== 'sum') return;
    const type = decimalTypeOf(n['children'][0], decimals);
    if (type !== undefined && type.scale + 4 <= 38) calls.push({ node: n, fn, type });
  };
  find(tree as Json);
  for (const { node, fn, type } of calls) {
    replaceByTemplate(node, (await template(templateOf(fn, type))) as Json, { __v: (node['children'] as Json[])[0]! }, carriedBy);
  }
  return calls.length > 0;
}
