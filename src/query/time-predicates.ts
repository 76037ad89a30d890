/**
 * The time index in DuckDB's parse tree of a query:
 * - integer literals compared with a timestamp column (`ts >= 1000`, `ts BETWEEN 0 AND 10`,
 *   `ts IN (1, 2)`) are epochs in the column's unit, as in GreptimeDB; DuckDB refuses to compare
 *   them, so they become timestamps of that unit;
 * - the time range a query's WHERE puts on a table's time index (literal bounds joined by AND)
 *   goes to the table's scan, so that SST files outside it are never opened.
 */
import { parseTimestamp, type TimeUnit } from '../common/time/timestamp.js';
import { integerOf } from './sql-json.js';
import { whereOfTable, type BaseTableNode } from './table-refs.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Node = { [k: string]: Json };

function isNode(v: Json | undefined): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const INTEGER_TYPES = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'INTEGER_LITERAL']);

/** The integer of an integer constant node, else undefined. */
function integerConstant(n: Json | undefined): bigint | undefined {
  if (!isNode(n) || n['class'] !== 'CONSTANT') return undefined;
  const value = n['value'] as Node;
  const type = (value['type'] as Node)['id'] as string;
  if (!INTEGER_TYPES.has(type) || value['is_null'] === true) return undefined;
  // Integers beyond 2^53 are lossless-json numbers (sql-json.ts).
  return integerOf(value['value']);
}

/** The string of a string constant node (or of a cast of one), else undefined. */
function stringConstant(n: Json | undefined): string | undefined {
  if (!isNode(n)) return undefined;
  if (n['class'] === 'CAST') return stringConstant(n['child']);
  if (n['class'] !== 'CONSTANT') return undefined;
  const value = n['value'] as Node;
  return (value['type'] as Node)['id'] === 'VARCHAR' && value['is_null'] !== true ? (value['value'] as string) : undefined;
}

function columnName(n: Json | undefined): readonly string[] | undefined {
  return isNode(n) && n['class'] === 'COLUMN_REF' ? (n['column_names'] as string[]) : undefined;
}

function fn(name: string, child: Json): Node {
  return {
    class: 'FUNCTION',
    type: 'FUNCTION',
    alias: '',
    query_location: 0,
    function_name: name,
    schema: '',
    children: [child],
    filter: null,
    order_bys: { type: 'ORDER_MODIFIER', orders: [] },
    distinct: false,
    is_operator: false,
    export_state: false,
    catalog: '',
  };
}

function cast(child: Json, type: string): Node {
  return { class: 'CAST', type: 'OPERATOR_CAST', alias: '', query_location: 0, child, cast_type: { id: type, type_info: null }, try_cast: false };
}

/** A timestamp of `unit` from an integer constant node. */
function timestampOf(constant: Node, unit: TimeUnit): Node {
  switch (unit) {
    case 's':
      return cast(fn('to_timestamp', constant), 'TIMESTAMP_S');
    case 'ms':
      return cast(fn('epoch_ms', constant), 'TIMESTAMP_MS');
    case 'us':
      return fn('make_timestamp', constant);
    case 'ns':
      return fn('make_timestamp_ns', constant);
  }
}

/** DuckDB's timestamp type of each unit. */
export const TIME_TYPES: Record<TimeUnit, string> = { s: 'TIMESTAMP_S', ms: 'TIMESTAMP_MS', us: 'TIMESTAMP', ns: 'TIMESTAMP_NS' };

/** Functions whose result keeps the unit of their timestamp argument in GreptimeDB (DuckDB gives microseconds). */
const UNIT_KEEPING = new Set(['date_bin', 'date_trunc', 'time_bucket']);

/**
 * Rewrites integer literals compared with timestamp columns (`columns`: column name → unit of
 * the tables the query reads) into timestamps, and casts `date_bin` / `date_trunc` of them back to
 * their unit, in place. Returns the casts that are unaliased select items: the caller names them
 * as DuckDB named the expression before the cast.
 */
export function rewriteTimeLiterals(tree: unknown, columns: ReadonlyMap<string, TimeUnit>): Array<{ node: { [k: string]: unknown }; original: unknown }> {
  const unnamed: Array<{ node: Node; original: Node }> = [];
  const wrappedFunctions = new WeakSet<Node>();
  const unitOf = (n: Json | undefined) => {
    const names = columnName(n);
    return names === undefined ? undefined : columns.get(names[names.length - 1]!);
  };
  const fix = (parent: Node, key: string, unit: TimeUnit) => {
    const c = parent[key];
    if (integerConstant(c) !== undefined) parent[key] = timestampOf(c as Node, unit);
  };
  const walk = (n: Json): void => {
    if (Array.isArray(n)) {
      for (const x of n) walk(x);
      return;
    }
    if (!isNode(n)) return;
    if (n['class'] === 'COMPARISON') {
      const l = unitOf(n['left']);
      const r = unitOf(n['right']);
      if (l !== undefined) fix(n, 'right', l);
      if (r !== undefined) fix(n, 'left', r);
    } else if (n['class'] === 'BETWEEN') {
      const u = unitOf(n['input']);
      if (u !== undefined) {
        fix(n, 'lower', u);
        fix(n, 'upper', u);
      }
    } else if (n['class'] === 'OPERATOR' && (n['type'] === 'COMPARE_IN' || n['type'] === 'COMPARE_NOT_IN')) {
      const children = n['children'] as Json[];
      const u = unitOf(children[0]);
      if (u !== undefined) for (let i = 1; i < children.length; i++) if (integerConstant(children[i]) !== undefined) children[i] = timestampOf(children[i] as Node, u);
    }
    for (const [k, v] of Object.entries(n)) {
      if (Array.isArray(v)) {
        v.forEach((x, i) => (v[i] = keepUnit(x, k === 'select_list')));
        v.forEach(walk);
      } else {
        n[k] = keepUnit(v, false);
        walk(n[k]!);
      }
    }
  };
  /** date_bin(…, ts) / date_trunc(…, ts) keep ts's unit, as in GreptimeDB: wrapped in a cast to it. */
  const keepUnit = (x: Json, selectItem: boolean): Json => {
    if (!isNode(x) || x['class'] !== 'FUNCTION' || !UNIT_KEEPING.has(String(x['function_name']).toLowerCase()) || wrappedFunctions.has(x)) return x;
    const u = (x['children'] as Json[]).map((a) => unitOf(a)).find((y) => y !== undefined);
    if (u === undefined || u === 'us') return x;
    wrappedFunctions.add(x);
    const wrapped = cast(x, TIME_TYPES[u]);
    wrapped['alias'] = x['alias'] as string;
    x['alias'] = '';
    if (wrapped['alias'] === '' && selectItem) unnamed.push({ node: wrapped, original: x });
    return wrapped;
  };
  walk(tree as Json);
  return unnamed;
}

/** An inclusive range on a time index, in its unit. */
export interface TimeRange {
  start?: bigint;
  end?: bigint;
}

/**
 * The time range that the WHERE clause of the SELECT reading `table` directly (`SELECT … FROM
 * table WHERE …`, as the query, a subquery or a CTE) puts on the table's time index `column` (unit
 * `unit`): the terms joined by AND that compare the column with a literal. Undefined when the
 * table is read some other way (a join) or nothing usable is said. Only bounds that can only
 * narrow correctly are taken; the caller pushes them only for a table read once.
 */
export function timeRangeOf(tree: unknown, table: BaseTableNode, column: string, unit: TimeUnit): TimeRange | undefined {
  // The SELECT that reads the table directly (the query itself, a subquery or a CTE): its WHERE
  // filters every row the table gives, so its time bounds may prune the table's scan.
  const found = whereOfTable(tree, table);
  if (found === undefined) return undefined;
  const where = found.where as Node;
  const names = found.names;
  const isTimeColumn = (n: Json | undefined) => {
    const c = columnName(n);
    if (c === undefined || c[c.length - 1] !== column) return false;
    return c.length === 1 || (c.length === 2 && names.has(c[0]!));
  };
  /**
   * A literal bound in the column's unit: an integer epoch (exact), or a timestamp string read as
   * UTC as DuckDB reads it, floored to the unit (inexact: a `<` bound keeps its own value).
   */
  let exact = true;
  const bound = (n: Json | undefined): bigint | undefined => {
    exact = true;
    if (isNode(n) && n['class'] === 'CAST' && isNode(n['child']) && n['child']['class'] === 'FUNCTION') {
      const f = n['child'];
      if (f['function_name'] === 'epoch_ms' || f['function_name'] === 'to_timestamp') return integerConstant((f['children'] as Json[])[0]);
    }
    if (isNode(n) && n['class'] === 'FUNCTION' && (n['function_name'] === 'make_timestamp' || n['function_name'] === 'make_timestamp_ns')) {
      return (n['children'] as Json[]).length === 1 ? integerConstant((n['children'] as Json[])[0]) : undefined;
    }
    const s = stringConstant(n);
    exact = false;
    return s === undefined ? undefined : parseTimestamp(s, unit, 'UTC');
  };
  const range: TimeRange = {};
  const narrow = (start?: bigint, end?: bigint) => {
    if (start !== undefined && (range.start === undefined || start > range.start)) range.start = start;
    if (end !== undefined && (range.end === undefined || end < range.end)) range.end = end;
  };
  const terms = where['class'] === 'CONJUNCTION' && where['type'] === 'CONJUNCTION_AND' ? (where['children'] as Json[]) : [where];
  for (const t of terms) {
    if (!isNode(t)) continue;
    if (t['class'] === 'BETWEEN' && isTimeColumn(t['input'])) {
      narrow(bound(t['lower']), bound(t['upper']));
      continue;
    }
    if (t['class'] !== 'COMPARISON') continue;
    let type = t['type'] as string;
    let other: Json | undefined;
    if (isTimeColumn(t['left'])) other = t['right'];
    else if (isTimeColumn(t['right'])) {
      other = t['left'];
      // `X < ts` is `ts > X`.
      type = ({ COMPARE_LESSTHAN: 'COMPARE_GREATERTHAN', COMPARE_GREATERTHAN: 'COMPARE_LESSTHAN', COMPARE_LESSTHANOREQUALTO: 'COMPARE_GREATERTHANOREQUALTO', COMPARE_GREATERTHANOREQUALTO: 'COMPARE_LESSTHANOREQUALTO' } as Record<string, string>)[type] ?? type;
    } else continue;
    const b = bound(other);
    if (b === undefined) continue;
    switch (type) {
      case 'COMPARE_EQUAL':
        narrow(b, b);
        break;
      case 'COMPARE_GREATERTHAN':
        narrow(b + 1n);
        break;
      case 'COMPARE_GREATERTHANOREQUALTO':
        narrow(b);
        break;
      case 'COMPARE_LESSTHAN':
        // The scan range only prunes (DuckDB still applies the WHERE): a bound that may have lost
        // a fraction of the unit must not exclude the instant it was floored to.
        narrow(undefined, exact ? b - 1n : b);
        break;
      case 'COMPARE_LESSTHANOREQUALTO':
        narrow(undefined, b);
        break;
    }
  }
  return range.start === undefined && range.end === undefined ? undefined : range;
}
