/**
 * GreptimeDB's reading of `json_get(j, path)::T` (its `JsonGetRewriter`): the cast picks how the
 * value at the path is read, as `json_get_int` (BIGINT), `json_get_float` (DOUBLE),
 * `json_get_bool` (BOOLEAN) or `json_get_string` (VARCHAR) read it, rather than a cast of its text
 * (`json_get(j, '[0]')::BIGINT` of `true` is 1, of `"abc"` NULL, not a conversion error). Other
 * casts stay casts of the text. A parse-tree rewrite (`sql-tree.ts` shapes), run with the other
 * rewrites of `query-executor.ts` before select items are named.
 */
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const READERS: Record<string, string> = {
  BIGINT: 'json_get_int',
  DOUBLE: 'json_get_float',
  BOOLEAN: 'json_get_bool',
  VARCHAR: 'json_get_string',
};

function isNode(n: Json | undefined): n is { [k: string]: Json } {
  return typeof n === 'object' && n !== null && !Array.isArray(n);
}

/** Rewrites the casts of two-argument `json_get` calls in `tree` in place; whether any changed. */
export function rewriteJsonGetCasts(tree: unknown): boolean {
  let changed = false;
  const visit = (n: Json): Json => {
    if (Array.isArray(n)) return n.map(visit);
    if (!isNode(n)) return n;
    for (const [k, v] of Object.entries(n)) n[k] = visit(v);
    const child = n['child'];
    const castType = n['cast_type'];
    if (n['class'] !== 'CAST' || n['try_cast'] === true || !isNode(child) || !isNode(castType)) return n;
    const reader = typeof castType['id'] === 'string' && castType['type_info'] === null ? READERS[castType['id']] : undefined;
    const args = child['children'];
    if (reader === undefined || child['class'] !== 'FUNCTION' || child['schema'] !== '' || String(child['function_name']).toLowerCase() !== 'json_get' || !Array.isArray(args) || args.length !== 2) return n;
    changed = true;
    return { ...child, function_name: reader, alias: n['alias'] ?? '' };
  };
  visit(tree as Json);
  return changed;
}
