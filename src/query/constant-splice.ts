/**
 * The rewrites of constants written back into the query text, at the byte offsets DuckDB's parse
 * tree gives them (`query_location`), instead of sending the rewritten tree through
 * `json_deserialize_sql`: one DuckDB round trip less (~0.5 ms of server CPU) for the commonest
 * rewritten queries, a time literal compared with the time index (`ts = 1451606400000`, `ts >=
 * '2016-01-01 00:00:00'` in a session time zone) made a timestamp.
 *
 * Only when the rewritten tree differs from the parsed one at constants alone, each replaced by
 * what this module can write: the constant itself, a new VARCHAR or integer constant, a CAST to a
 * plain type, a call of a plain function; and only where the text at the constant's offset is
 * plainly that constant (a string literal with its value, an integer with its value) and ASCII.
 * Calls without arguments count as constants here (`now()`, `current_date`: the session-time
 * rewrites make them the query's instant), at their name and empty parentheses.
 * Anything else returns undefined and the caller deserializes the tree as before.
 */
import { quoteLiteral } from '../common/sql-quote.js';
import { integerOf } from './sql-json.js';
import { isNode, type Json, type Node } from './sql-tree.js';
import { readQuoted } from './table-splice.js';

/** A part of the query text to replace. */
export interface TextSpan {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** Types a cast may name as written: DuckDB's names of them, without parameters. */
const PLAIN_TYPES = new Set(['TIMESTAMP', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS', 'TIMESTAMP WITH TIME ZONE', 'DATE', 'TIME', 'VARCHAR', 'BIGINT', 'INTEGER', 'DOUBLE', 'INTERVAL']);

const FUNCTION_NAME = /^[a-z_][a-z0-9_]*$/;

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}

const INTEGER = /-?[0-9]+/y;

/** The span of the literal `constant` is written as in `sql`, else undefined. */
function literalSpan(sql: string, constant: Node): { start: number; end: number } | undefined {
  const at = constant['query_location'];
  const value = constant['value'];
  if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= sql.length || !isNode(value) || value['is_null'] !== false) return undefined;
  // Not the end of a longer word (`e'…'`, `x'…'`, `1.5`): then the text is not the bare literal.
  if (at > 0 && /[A-Za-z0-9_$."']/.test(sql[at - 1]!)) return undefined;
  const id = isNode(value['type']) ? value['type']['id'] : undefined;
  if (id === 'VARCHAR' && typeof value['value'] === 'string') {
    const quoted = readQuoted(sql, at, "'");
    return quoted?.text === value['value'] ? { start: at, end: quoted.end } : undefined;
  }
  if (id === 'INTEGER' || id === 'BIGINT') {
    INTEGER.lastIndex = at;
    const m = INTEGER.exec(sql);
    const end = at + (m?.[0].length ?? 0);
    if (m === null || /[A-Za-z0-9_$.]/.test(sql[end] ?? ' ') || BigInt(m[0]) !== integerOf(value['value'])) return undefined;
    return { start: at, end };
  }
  return undefined;
}

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y;
const EMPTY_ARGUMENTS = /\s*\(\s*\)/y;

/** The span of the call without arguments `call` (`now()`, `current_timestamp`) in `sql`, else undefined. */
function callSpan(sql: string, call: Node): { start: number; end: number } | undefined {
  const at = call['query_location'];
  const name = call['function_name'];
  if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= sql.length || typeof name !== 'string') return undefined;
  if (at > 0 && /[A-Za-z0-9_$."]/.test(sql[at - 1]!)) return undefined;
  IDENTIFIER.lastIndex = at;
  const m = IDENTIFIER.exec(sql);
  if (m === null || m[0].toLowerCase() !== name.toLowerCase()) return undefined;
  let end = at + m[0].length;
  EMPTY_ARGUMENTS.lastIndex = end;
  const args = EMPTY_ARGUMENTS.exec(sql);
  if (args !== null) end += args[0].length;
  else if (/[A-Za-z0-9_$.("]/.test(sql[end] ?? ' ')) return undefined;
  return { start: at, end };
}

/** `n` as SQL text, `original` (the parsed constant) as `literal`; undefined when not writable here. */
function render(n: Json, original: Node, literal: string): string | undefined {
  if (!isNode(n) || (n['alias'] !== '' && n['alias'] !== undefined)) return undefined;
  if (deepEqual(n, original)) return literal;
  switch (n['class']) {
    case 'CONSTANT': {
      const value = n['value'];
      if (!isNode(value) || value['is_null'] !== false || !isNode(value['type'])) return undefined;
      const id = value['type']['id'];
      if (id === 'VARCHAR' && typeof value['value'] === 'string') return quoteLiteral(value['value']);
      const i = id === 'INTEGER' || id === 'BIGINT' ? integerOf(value['value']) : undefined;
      return i === undefined ? undefined : `(${i})`;
    }
    case 'CAST': {
      const type = n['cast_type'];
      if (n['try_cast'] !== false || !isNode(type) || type['type_info'] !== null || typeof type['id'] !== 'string' || !PLAIN_TYPES.has(type['id'])) return undefined;
      const child = render(n['child'] as Json, original, literal);
      return child === undefined ? undefined : `CAST(${child} AS ${type['id']})`;
    }
    case 'FUNCTION': {
      const name = n['function_name'];
      const children = n['children'];
      if (typeof name !== 'string' || !FUNCTION_NAME.test(name) || n['schema'] !== '' || n['catalog'] !== '' || n['is_operator'] !== false) return undefined;
      if (n['distinct'] !== false || n['filter'] !== null || n['export_state'] !== false || !Array.isArray(children)) return undefined;
      const orders = n['order_bys'];
      if (isNode(orders) && Array.isArray(orders['orders']) && orders['orders'].length > 0) return undefined;
      const args: string[] = [];
      for (const c of children) {
        const text = render(c, original, literal);
        if (text === undefined) return undefined;
        args.push(text);
      }
      return `${name}(${args.join(', ')})`;
    }
    default:
      return undefined;
  }
}

/**
 * The spans that make `sql` (whose parse is `parsed`) say what `rewritten` says, when the two trees
 * differ at constants alone and each can be written here; else undefined (see the file header).
 */
export function constantSpans(parsed: unknown, rewritten: unknown, sql: string): TextSpan[] | undefined {
  // query_location counts bytes: equal to string offsets only for ASCII text.
  if (!/^[\x00-\x7f]*$/.test(sql)) return undefined;
  const spans: TextSpan[] = [];
  const compare = (a: unknown, b: unknown): boolean => {
    if (a === b) return true;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (!compare(a[i], b[i])) return false;
      return true;
    }
    if (Array.isArray(b)) return false;
    const node = a as Json;
    if (isNode(node) && (node['class'] === 'CONSTANT' || (node['class'] === 'FUNCTION' && Array.isArray(node['children']) && node['children'].length === 0)) && !deepEqual(a, b)) {
      const a = node;
      if (a['alias'] !== '') return false;
      const span = a['class'] === 'CONSTANT' ? literalSpan(sql, a) : callSpan(sql, a);
      const text = span === undefined ? undefined : render(b as Json, a, sql.slice(span.start, span.end));
      if (span === undefined || text === undefined) return false;
      spans.push({ ...span, text });
      return true;
    }
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    for (const k of ka) if (!compare((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
    return true;
  };
  return compare(parsed, rewritten) ? spans : undefined;
}
