/**
 * Calls and operators whose DuckDB meaning differs from DataFusion's (GreptimeDB's), rewritten in
 * the user's parse tree:
 * - `a ~ b`, `a !~ b` are a regular expression's *search* in DataFusion (`'hello123' ~ '\d+'` is
 *   true), a full match in DuckDB (`regexp_full_match`); `~*` and `!~*` search case-insensitively,
 *   which DuckDB has no operator for. All become `regexp_matches(a, b[, 'i'])`.
 * - `arrow_cast(x, 'Int64')` casts to the Arrow type named (DuckDB lacks the function): a CAST to
 *   the DuckDB type tsdb gives that Arrow type; an Arrow type tsdb has no such type for is left to
 *   fail as an unknown function.
 * `regexp_like` and `octet_length` of a string literal are macros (`compat-functions.ts`).
 */
import { castNode, functionNode, isNode, replaceInPlace, stringNode, type Json, type Node } from './sql-tree.js';
import { duckTypeOfArrow } from './arrow-type-names.js';

/**
 * Rewrites the DataFusion calls and operators of a serialized parse tree of `sql` (the text its
 * offsets point into) in place; returns whether it changed anything.
 */
export function rewriteDataFusionCalls(tree: unknown, sql: string): boolean {
  let changed = false;
  const bytes = /^[\x00-\x7f]*$/.test(sql) ? undefined : Buffer.from(sql);
  const textAt = (n: Node, length: number): string => {
    const at = n['query_location'];
    if (typeof at !== 'number' || at <= 0) return '';
    return bytes === undefined ? sql.slice(at, at + length) : bytes.subarray(at, at + length).toString('utf8');
  };
  const visit = (n: Json | undefined): void => {
    if (Array.isArray(n)) return n.forEach(visit);
    if (!isNode(n)) return;
    for (const v of Object.values(n)) visit(v);
    const children = Array.isArray(n['children']) ? (n['children'] as Json[]) : undefined;
    if (n['class'] === 'OPERATOR' && n['type'] === 'OPERATOR_NOT' && children?.length === 1 && textAt(n, 2) === '!~') {
      // `a !~ b`: NOT of a full match DuckDB placed nowhere in the text.
      const inner = children[0];
      if (isNode(inner) && inner['function_name'] === 'regexp_full_match') {
        inner['function_name'] = 'regexp_matches';
        changed = true;
      }
      return;
    }
    if (n['class'] !== 'FUNCTION' || n['schema'] !== '' || children === undefined) return;
    const name = String(n['function_name']);
    if (name === 'regexp_full_match' && children.length === 2 && textAt(n, 1) === '~') {
      n['function_name'] = 'regexp_matches';
      changed = true;
    } else if ((name === '~*' || name === '!~*') && children.length === 2) {
      const search = functionNode('regexp_matches', [...children, stringNode('i')]);
      replaceInPlace(n, name === '~*' ? search : { class: 'OPERATOR', type: 'OPERATOR_NOT', alias: '', query_location: 0, children: [search] });
      changed = true;
    } else if (name.toLowerCase() === 'arrow_cast' && children.length === 2 && isNode(children[1]) && children[1]['class'] === 'CONSTANT') {
      const value = children[1]['value'] as Node;
      const type = (value['type'] as Node)['id'] === 'VARCHAR' && typeof value['value'] === 'string' ? duckTypeOfArrow(value['value']) : undefined;
      if (type === undefined) return;
      const decimal = /^DECIMAL\((\d+),(\d+)\)$/.exec(type);
      const cast = castNode(children[0]!, decimal === null ? type : 'DECIMAL');
      if (decimal !== null) cast['cast_type'] = { id: 'DECIMAL', type_info: { type: 'DECIMAL_TYPE_INFO', alias: '', extension_info: null, width: Number(decimal[1]), scale: Number(decimal[2]) } };
      replaceInPlace(n, cast);
      changed = true;
    }
  };
  visit(tree as Json);
  return changed;
}
